"""The lobby's list: which tables an asker sees, in which order, a page at a time.

Everything comes from the tables' records in memory (never from the database, never by opening a
game), so a listing of a thousand tables costs a filter, a sort and one page of rows. The order
puts what an asker can act on first: in "my tables", the ones where it is their move; otherwise
the games still looking for players, then those under way, then the finished ones; newest
activity first within each.
"""

from __future__ import annotations

from collections.abc import Iterable

from cthulhu.net.messages import TablesPage

from .people import People
from .table import ServerTable


def listing(tables: Iterable[ServerTable], people: People, identity: str | None, *, seq: int = 0, query: str = "",
            page: int = 0, size: int = 20, mine: bool = False) -> TablesPage:
    """One page for `identity` (None: anonymous) of the live tables matching every word of `query`."""
    held = people.seats_of(identity)
    words = query.lower().split()
    chosen: list[tuple[ServerTable, list[int]]] = []
    for table in tables:
        seats = held.get(table.id, [])
        if not table.live or (mine and not seats) or not table.visible_to(identity, seats):
            continue
        if words:
            text = table.search_text()
            if not all(word in text for word in words):
                continue
        chosen.append((table, seats))
    chosen.sort(key=lambda item: item[0].activity(), reverse=True)
    if mine:
        chosen.sort(key=lambda item: (item[0].record.finished, not set(item[1]) & set(item[0].record.to_move)))
    else:
        chosen.sort(key=lambda item: (item[0].record.finished, item[0].open_seats() == 0))
    total = len(chosen)
    pages = max(1, -(-total // size))
    page = min(page, pages - 1)
    rows = [table.row(identity, seats) for table, seats in chosen[page * size:(page + 1) * size]]
    return TablesPage(seq=seq, page=page, pages=pages, total=total, rows=rows)
