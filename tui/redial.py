"""What a link does when one of its connections ends, and what the player is told meanwhile.

`PeerSession.after_drop` decides (the one rule the trio client follows too): a redirect is
followed (`Conn.follow`: another process of the server runs the table), a finished game or a table
closed on purpose ends it, a seat the host no longer keeps is sat at anew, and anything else is
dialled again, home first, with the seat token and back-off for `RECONNECT_FOR` seconds, so a host
restarted with `--load` finds everybody back by themselves. Only the first connection's news is
told: the others only carry their seats' commands.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from cthulhu.net import RECONNECT_FOR, AfterDrop, reconnect_delays

from . import news
from .conn import Conn, JoinAs
from .dial import TlsFailed
from .link import Refused, TableChanged, TableClosed
from .linkerrors import LinkError
from .newsdesk import Newsdesk
from .seatkeys import SeatKeys

if TYPE_CHECKING:
    from .ownhost import OwnTable


class Redial:
    """The after-drop of one link's connections: `closed` (the link is closing), `stopped` (its own
    host's loop ended for good) and `comeback` (how to carry on, once closed) are the link's."""

    def __init__(self, join: JoinAs, address: str, keys: SeatKeys, desk: Newsdesk, embedded: OwnTable | None, *,
                 closed: Callable[[], bool], stopped: Callable[[], bool], comeback: Callable[[], str | None]) -> None:
        self.join = join
        self.address = address
        self.keys = keys
        self.desk = desk
        self.embedded = embedded
        self._closed = closed
        self._stopped = stopped
        self._comeback = comeback

    async def after_drop(self, conn: Conn, primary: bool) -> bool:
        """The connection ended: True to carry on reading a new one, False to stop."""
        session = conn.session
        if not self._closed() and session.redirect is not None:  # another process of the server runs the table
            try:
                unfollowed = await conn.follow(self.join, self.address)
            except (LinkError, TlsFailed):
                return await self.reconnect(conn, primary)  # from home again (`net.route`)
            if unfollowed is not None and primary:
                self.desk.put(Refused, status=None, reason=unfollowed)
            return unfollowed is None
        if self._closed() or not conn.was_up:
            return False  # done, or refused before we ever sat down (open() reports that)
        after = session.after_drop(seated=True)
        if after is AfterDrop.OVER:
            return False
        if self.embedded is not None and not await self.embedded.survives():
            return False  # our own host's loop ended (it raised): the link says so, nothing to reconnect to
        refused = session.closed
        if after is AfterDrop.SIT_ANEW:  # the host no longer keeps our seat (it was freed): come back as a new player
            self.keys.forget(session.sit_anew())
            if primary:
                self.desk.notice(news.SEAT_GIVEN_UP)
        elif after is AfterDrop.CLOSED and refused is not None:  # on purpose: nothing to reconnect to
            if primary:
                self.desk.put(TableClosed, status=news.closed("saved" in refused.details, self._comeback()))
                self.desk.notice(f"{refused.reason[:1].upper()}{refused.reason[1:]}.", headline=True)
            return False
        elif after is AfterDrop.REFUSED and refused is not None:
            if primary:
                self.desk.put(Refused, status=None, reason=f"the host closed the connection: {refused.reason}")
            return False
        return await self.reconnect(conn, primary)

    async def reconnect(self, conn: Conn, primary: bool) -> bool:
        """Lost the host: try again with our seat token, with back-off, for `RECONNECT_FOR` seconds."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        conn.route.lost()  # (home: it knows where the table is now)
        if primary:
            self.desk.notice(news.lost(self.address))
        for attempt, delay in enumerate(reconnect_delays(), 1):
            if primary:
                self.desk.put(TableChanged, status=news.reconnecting(self.address, attempt))
            await asyncio.sleep(delay)
            if self._closed() or self._stopped():
                return False
            conn.session.restart()
            try:
                await conn.connect(self.join, self.address, first=False)
                return True
            except (LinkError, TlsFailed):
                pass
            if loop.time() - started >= RECONNECT_FOR:
                break
        if primary:
            said, bar = news.gave_up(self.address, int(RECONNECT_FOR // 60))
            self.desk.put(Refused, status=bar, reason=said)
        return False
