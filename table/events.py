"""What a table tells whoever keeps records of it (a server's lobby and store)."""

from __future__ import annotations

from typing import Protocol

from cthulhu.net import Hello

from .peers import Peer
from .turnclock import MoveBegins, StandInMove


class HostEvents(Protocol):
    """Called inside the table's trio tasks, never awaited: each must only note what happened."""

    def admitted(self, peer: Peer, hello: Hello) -> None:
        """`peer` was welcomed (to `peer.seat`, or to watch) for this hello."""

    def left(self, peer: Peer) -> None:
        """`peer`'s connection ended."""

    def changed(self) -> None:
        """The game moved on, or the seats or the start changed."""

    def move_begins(self, move: MoveBegins) -> None:
        """A person's seat must now decide (on a turn-based table, with its clock's deadline)."""

    def stood_in(self, move: StandInMove) -> None:
        """A bot decided for a person's seat (their stand-in, or their clock's skip)."""

    def seen(self, hello: Hello) -> int | None:
        """The last step this hello's person was told at this table (None: not known here; the
        host's memory of a seat token is used)."""
