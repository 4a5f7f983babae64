"""Games as records at a server: the club's records (`server.records`) and the challenges
(`server.challenge`), with the two things they share: the store's worker thread (every store call
goes through the one the server writes from, so the store is used by one thread at a time) and the
server's nursery (for the replays that run after a game ends)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import logging

import trio

from cthulhu.net import clean_text

from .challenge import Challenges
from .records import Records
from .refused import Refused

if TYPE_CHECKING:
    from .server import TableServer
    from .table import ServerTable

T = TypeVar("T")
log = logging.getLogger(__name__)


class Club:
    def __init__(self, server: TableServer) -> None:
        self.server = server
        self.records = Records(self)
        self.challenges = Challenges(self)

    async def in_store(self, call: Callable[[], T]) -> T:
        """`call` (a store method) in the store's worker thread, after the writes queued before it;
        a store that fails is `Refused("store_trouble")` (and one line in the log), never a crash."""
        try:
            return await trio.to_thread.run_sync(call, limiter=self.server._limiter)
        except Exception as exc:
            log.error("the store could not answer for the records or a challenge: %s", clean_text(str(exc)))
            raise Refused("store_trouble", "the server cannot read or write its records just now; try again later") from None

    def nursery(self) -> trio.Nursery | None:
        """Where a replay runs: the server's own tasks (None while it is not running)."""
        return self.server._nursery

    def saw(self, table: ServerTable) -> None:
        self.records.saw(table)
