"""What one open table of a server tells the server (`net.host.HostEvents`): a peer admitted or
gone, a change to list, a decision begun, a stand-in's move, and what an identity last saw."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cthulhu.table import MoveBegins, StandInMove
    from cthulhu.table import Peer
    from cthulhu.net import Hello

    from .server import TableServer
    from .table import ServerTable


class TableEvents:
    """What one open table tells the server (`HostEvents`)."""

    def __init__(self, server: TableServer, table: ServerTable) -> None:
        self.server = server
        self.table = table

    def admitted(self, peer: Peer, hello: Hello) -> None:
        self.server._admitted(self.table, peer, hello)

    def left(self, peer: Peer) -> None:
        self.server._left(self.table, peer)

    def changed(self) -> None:
        self.server._changed(self.table)

    def move_begins(self, move: MoveBegins) -> None:
        self.server._move_begins(self.table, move)

    def stood_in(self, move: StandInMove) -> None:
        self.server._stood_in(self.table, move)

    def seen(self, hello: Hello) -> int | None:
        identity = self.server.people.find(hello.ident)
        seen = self.server.people.seen.get((identity.id, self.table.id)) if identity is not None else None
        return seen.step if seen is not None else None
