"""Who runs a table when several `cthulhu server` processes share one PostgreSQL store.

Each table row has a lease: `owner` (this process's id and its advertised address, so another
process can redirect a joiner there), `owner_until` (on the database's clock: the machines' clocks
never matter) and `epoch`, raised on every take. A process opens a table only once it has taken
the lease (nobody holds it, it ran out, or it is its own), renews every lease it holds in the
store's batch, and every write for a table it runs carries the fence `owner = me AND epoch =
mine` in the statement that writes (`fenced`): a write that finds no such row means another
process took the table, so this one stops it at once (`LeaseLost`) and its peers reconnect. A
stalled owner (a SIGSTOP, a long pause) can never write after a takeover: its epoch is old.

The calls take a psycopg connection and run in the store's worker thread, like the store's own.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cthulhu.net import Redirect

if TYPE_CHECKING:
    import psycopg

    Db = psycopg.Connection[tuple[Any, ...]]

DEFAULT_LEASE = 15.0  # seconds: how long a process that died keeps its tables from the others


class LeaseLost(Exception):
    """Another process took `table` (its lease ran out while this one was stalled, or it was
    released): nothing of it may be written from here any more."""

    def __init__(self, table: str) -> None:
        super().__init__(f"table {table} is run by another process of this server now")
        self.table = table


@dataclass(frozen=True, slots=True)
class Me:
    """This process as the other processes see it: a random id (a restart is a new owner) and the
    address its joiners are sent to (`--advertise`), with its TLS port if it has one."""

    host: str
    port: int
    tls_port: int | None = None
    id: str = ""

    @classmethod
    def new(cls, host: str, port: int, tls_port: int | None = None) -> Me:
        return cls(host, port, tls_port, secrets.token_hex(6))

    @property
    def owner(self) -> str:
        """The `owner` column's value: `id@host:port` (and `/tls_port`)."""
        return f"{self.id}@{self.host}:{self.port}" + (f"/{self.tls_port}" if self.tls_port is not None else "")


def redirect_to(owner: str) -> Redirect | None:
    """Where a joiner of a table owned by `owner` (an `owner` column's value) is sent; None for a
    value that is not one (nothing to follow)."""
    _, _, address = owner.partition("@")
    address, _, tls = address.partition("/")
    host, _, port = address.rpartition(":")
    try:
        return Redirect(host=host.strip("[]"), port=int(port), tls_port=int(tls) if tls else None)
    except ValueError:
        return None


class Leases:
    """The leases this process holds (table id -> its epoch), and the statements that take, renew,
    fence and release them. `on_lost(table)` is called (from the thread that found it) for each
    table another process took."""

    def __init__(self, me: Me, seconds: float = DEFAULT_LEASE, on_lost: Callable[[str], None] | None = None) -> None:
        self.me = me
        self.seconds = seconds
        self.on_lost = on_lost
        self.held: dict[str, int] = {}
        self.fresh: set[str] = set()  # made here, their rows not yet written with this owner (`claimed`)
        self.lost: set[str] = set()  # found lost since the caller last emptied it
        self._lock = threading.Lock()  # (saves are written from the hosts' threads, leases taken in the store's)

    def epoch(self, table: str) -> int | None:
        with self._lock:
            return self.held.get(table)

    def take(self, db: Db, table: str) -> str | None:
        """Take `table`'s lease if nobody holds it (or it ran out, or it is ours, or an earlier life's
        of this process at the same address, killed before it let go: nobody else can hold our port):
        None when taken, else the owner's `owner` value. The epoch is raised in the same statement."""
        row = db.execute(  # (a row another process is claiming or writing right now is skipped, not waited for)
            "UPDATE tables SET owner = %s, owner_until = now() + make_interval(secs => %s), epoch = epoch + 1 WHERE id = ("
            "SELECT id FROM tables WHERE id = %s AND archived IS NULL AND (owner IS NULL OR owner = %s OR owner_until < now() "
            "OR split_part(owner, '@', 2) = %s) FOR UPDATE SKIP LOCKED) RETURNING epoch",  # (our address: an earlier life of this process)
            (self.me.owner, self.seconds, table, self.me.owner, self.me.owner.partition("@")[2])).fetchone()
        if row is not None:
            with self._lock:
                self.held[table] = int(row[0])
            return None
        found = db.execute("SELECT owner FROM tables WHERE id = %s", (table,)).fetchone()
        return str(found[0]) if found is not None and found[0] is not None else ""

    def claim_new(self, table: str) -> None:
        """A table this process makes is its own from the start (its id is new and random: nobody
        else can hold it); its row says so once written (`claimed`)."""
        with self._lock:
            self.held[table] = 1
            self.fresh.add(table)

    def claimed(self, db: Db, tables: Iterable[str]) -> None:
        """The new tables' rows were written: the lease goes in them (epoch 1)."""
        with self._lock:
            new = [table for table in tables if table in self.fresh]
        for table in new:
            db.execute("UPDATE tables SET owner = %s, owner_until = now() + make_interval(secs => %s), epoch = 1 "
                       "WHERE id = %s AND owner IS NULL AND epoch = 0", (self.me.owner, self.seconds, table))
            with self._lock:
                self.fresh.discard(table)

    def fence(self, table: str) -> tuple[str | None, int | None]:
        """What a row of `table` written from here must say: (`owner`, `epoch`) if the table is
        ours, (None, None) if nobody's (a closed table's record)."""
        epoch = self.epoch(table)
        return (self.me.owner, epoch) if epoch is not None and table not in self.fresh else (None, None)

    def renew(self, db: Db) -> None:
        """In the store's batch: every lease held runs `seconds` more from now; a table whose row
        no longer says so was taken by another process (`on_lost`)."""
        rows = db.execute("UPDATE tables SET owner_until = now() + make_interval(secs => %s) WHERE owner = %s RETURNING id, epoch",
                          (self.seconds, self.me.owner)).fetchall()
        mine = {str(table): int(epoch) for table, epoch in rows}
        with self._lock:
            lost = [table for table, epoch in self.held.items() if table not in self.fresh and mine.get(table) != epoch]
        for table in lost:
            self.lose(table)

    def fenced(self, db: Db, table: str) -> None:
        """In a transaction that writes for `table`: hold its row as it is (a takeover waits for this
        transaction to end) if and only if it is still ours at our epoch; `LeaseLost` otherwise
        (the caller's transaction is rolled back)."""
        epoch = self.epoch(table)
        # A process stopped inside this transaction (SIGSTOP) must not hold the row past its lease.
        db.execute(f"SET LOCAL idle_in_transaction_session_timeout = {int(self.seconds * 1000)}")
        if table in self.fresh:  # (its first save comes before its row)
            row = db.execute("SELECT owner FROM tables WHERE id = %s FOR SHARE", (table,)).fetchone()
            if row is None or row[0] is None:
                return
        row = None if epoch is None else db.execute(
            "SELECT 1 FROM tables WHERE id = %s AND owner = %s AND epoch = %s FOR SHARE", (table, self.me.owner, epoch)).fetchone()
        if row is None:
            self.lose(table)
            raise LeaseLost(table)

    def lose(self, table: str) -> None:
        with self._lock:
            had = self.held.pop(table, None)
            self.lost.add(table)
        if had is not None and self.on_lost is not None:
            self.on_lost(table)

    def release(self, db: Db, tables: Iterable[str]) -> None:
        """Let the tables go (closed, or the process stops): the next hello anywhere takes them."""
        with self._lock:
            mine = [(table, self.held.pop(table)) for table in tables if table in self.held]
        for table, epoch in mine:
            db.execute("UPDATE tables SET owner = NULL, owner_until = NULL WHERE id = %s AND owner = %s AND epoch = %s",
                       (table, self.me.owner, epoch))
