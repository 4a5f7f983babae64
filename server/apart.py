"""A batch the store refuses for what it says (a constraint, not a full disk or a lost connection)
is written change by change, and only the changes it refuses are left out.

The server writes everything pending in one transaction (`TableServer.flush`) and keeps a batch
that failed for the next try. That is right for a disk or a database that is down for a while,
but a batch holding one change the store will never take (an identity whose key another row
holds, say) was tried again with every later change, and failed with each: from then on nothing
of the server's was written. Split up, the rest is written and the one change is named in the log.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from cthulhu.net import clean_text

from .store import Changes

if TYPE_CHECKING:
    from .fleet import Fleet

log = logging.getLogger("cthulhu.server.server")


def refused_for_what_it_says(exc: BaseException) -> bool:
    """The store refused the batch's data (a key, a constraint): trying it again cannot help."""
    if isinstance(exc, sqlite3.IntegrityError):
        return True
    try:
        import psycopg
    except ImportError:  # (the PostgreSQL extra is not installed: no such store)
        return False
    return isinstance(exc, psycopg.IntegrityError)


def changes_apart(changes: Changes) -> Iterator[tuple[str, Changes]]:
    """Each change as a batch of its own, named, in an order the store's references allow
    (identities before the seats, codes and merges that name them, tables before their seats)."""
    for name, value in changes.settings.items():
        yield f"setting {name}", Changes(settings={name: value})
    for identity in sorted(changes.identities.values(), key=lambda i: i.merged_into is not None):
        yield f"identity {identity.id}", Changes(identities={identity.id: identity})
    for table_id, record in changes.tables.items():
        yield f"table {table_id}", Changes(tables={table_id: record})
    for table_id, seat in sorted(changes.unlinked):
        yield f"seat {seat + 1} of table {table_id} let go", Changes(unlinked={(table_id, seat)})
    for place, link in changes.linked.items():
        yield f"seat {place[1] + 1} of table {place[0]}", Changes(linked={place: link})
    for code_hash, code in changes.codes.items():
        yield "a link code", Changes(codes={code_hash: code})
    for who_where, seen in changes.seen.items():
        yield f"what {who_where[0]} saw of table {who_where[1]}", Changes(seen={who_where: seen})
    for table_id in sorted(changes.dropped):
        yield f"table {table_id} dropped", Changes(dropped={table_id})


def commit_apart(commit: Callable[[Changes], None], changes: Changes, fleet: Fleet | None = None) -> list[str]:
    """(In the store's thread.) Write `changes` one by one with `commit`, leaving out each the store
    refuses for what it says (logged, and named in the answer). Any other failure stops it there and
    propagates (the server keeps the whole batch: what was written already is written again, which
    changes nothing). A `fleet`'s tables found run elsewhere are then those of every part."""
    left_out = []
    refused: set[str] = set()
    for what, part in changes_apart(changes):
        try:
            commit(part)
            if fleet is not None:
                refused |= fleet.refused
        except Exception as exc:
            if not refused_for_what_it_says(exc):
                raise
            left_out.append(what)
            reason = clean_text(str(exc).splitlines()[0]) if str(exc) else type(exc).__name__
            log.error("the store refused %s (%s); it is left out of the server's records", what, reason)
    if fleet is not None:
        fleet.refused = refused
    return left_out
