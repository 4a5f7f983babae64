"""Tables nobody has sat at yet: what a flood of new tables can make, kept apart so it takes nobody's room.

A table is *touched* once a person has held one of its seats (a name in a seat, there or away).
Until then it costs the server a record and a save and gives nobody anything, and a stranger can
make them by the hundred: so untouched tables do not count towards `max_tables`, they are kept in a
`Crowd` of their own (at most `per_prefix` from one network, `total` in all: over either, the
oldest of the network holding the most goes, so a flood only ever pushes out its own), and one that
nobody is connected to expires `expiry` seconds after it was made (its creator's own identity
holds it longer, for a player who makes a table and comes back to it a while later). Expiring
deletes it: its record, its save. A table with only bots is never touched (nobody sits at it): it
lives while someone watches it, like any untouched table, and is one of the untouched meanwhile.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from cthulhu.net import prefix_of
from cthulhu.net import Crowd

from .table import ServerTable

if TYPE_CHECKING:
    from .server import TableServer

log = logging.getLogger("cthulhu.server.server")


def touched(table: ServerTable) -> bool:
    """A person has held a seat here (a bot's seat, an open one or a watcher do not count)."""
    return any(seat.get("status") in ("person", "away", "stand_in") for seat in table.record.seats)


class Untouched:
    """The untouched tables by network, and when each was made (the trio clock)."""

    def __init__(self, per_prefix: int, total: int, expiry: tuple[float, float]) -> None:
        self.crowd: Crowd[str] = Crowd(per_prefix, total)
        self.expiry = expiry  # (anonymous creator, a creator with an identity)
        self.since: dict[str, float] = {}

    def __len__(self) -> int:
        return len(self.crowd)

    def __contains__(self, table_id: object) -> bool:
        return table_id in self.crowd

    def add(self, table_id: str, address: str, now: float) -> list[str]:
        """A new untouched table made from `address`; the tables that must make room for it."""
        self.since[table_id] = now
        out = self.crowd.add(table_id, prefix_of(address))
        for old in out:
            self.since.pop(old, None)
        return out

    def count(self, address: str) -> int:
        return self.crowd.count(prefix_of(address))

    def discard(self, table_id: str) -> None:
        self.crowd.discard(table_id)
        self.since.pop(table_id, None)

    def due(self, tables: dict[str, ServerTable], now: float) -> Iterator[ServerTable]:
        """The untouched tables past their time that nobody is at."""
        for table_id, since in list(self.since.items()):
            table = tables.get(table_id)
            if table is None:
                self.discard(table_id)
                continue
            wait = self.expiry[table.record.created_by is not None]
            if now - since >= wait and not table.busy() and table.opening is None:
                yield table


def expire_soon(server: TableServer, table_ids: list[str]) -> None:
    """Untouched tables pushed out of their crowd by newer ones of the same network: gone now."""
    for table_id in table_ids:
        table = server.tables.get(table_id)
        if table is not None and server._nursery is not None:
            server._nursery.start_soon(expire, server, table, "its network made newer tables nobody sat at")


async def expire(server: TableServer, table: ServerTable, why: str) -> None:
    """Delete a table nobody ever sat at: its record (in memory and in the store) and its save."""
    if server.tables.get(table.id) is not table:
        return
    server.untouched.discard(table.id)
    await server._close(table)
    if server.tables.get(table.id) is not table or touched(table):
        return
    del server.tables[table.id]
    server.listings.drop(table.id)
    server._dirty.discard(table)
    server._changes.drop(table.id)  # (a store that keeps the saves deletes its save with it)
    table.save_path.unlink(missing_ok=True)
    server._poke()
    log.info("table %s expired: %s (%s)", table.id, why, table.record.mode)
