"""What a server of many tables remembers, behind a small interface so the database is a backend.

The server keeps its records in memory while it runs (the lobby is listed from there, never from
the database) and hands the store every change as one `Changes` batch: `commit` writes it in one
transaction, `load` gives everything back at start. That is the whole contract, so another
backend (PostgreSQL for several server processes, see server/DESIGN.md) implements two calls and
a `close`, not the server.

The records are plain data. A table's game lives in its save file (the game record, as ever:
exportable, verifiable, replayable); the store holds what the lobby lists, who holds which seat,
the identities and their names, and what each identity last saw of each table. `settings` of a
table and of the server are open mappings, so later policies (a pace, a clock) add keys, not
columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class StoreError(Exception):
    """The store cannot be used as it is (damaged, or not ours); the message is one line for the
    operator, and nothing was written."""


class StoreTooNew(StoreError):
    """The database was written by a newer version of cthulhu (its schema is ahead of ours)."""


@dataclass(slots=True)
class TableRecord:
    """One table: how it was made (`setup` holds the seed: it never leaves the server), where its
    game is saved, and what the lobby shows of it (kept up to date while it is open)."""

    id: str
    mode: str
    setup: dict[str, Any]
    settings: dict[str, Any]  # bots by seat, the bots' kind and pause, the pace (live), ...
    created: str
    save: str  # the save file's name in the data folder's tables/
    created_by: str | None = None  # an identity id
    private: bool = False
    code: str | None = None
    about: str = ""
    seats: list[dict[str, Any]] = field(default_factory=list)  # [{seat, name, status}] as the lobby lists them
    step: int = 0
    to_move: list[int] = field(default_factory=list)
    finished: bool = False
    outcome: str | None = None
    last_move: str | None = None
    updated: str = ""
    archived: str | None = None  # when it was archived (None: live)
    clock: dict[str, Any] | None = None  # a turn-based table's running clock: {seat, step, deadline (UTC), paused}
    notify: str | None = None  # where a POST goes when a person's move begins (`server.notify`); never listed


@dataclass(slots=True)
class Identity:
    """Someone who came back: known by the hash of a key their own machine keeps (`key_hash`),
    and by the name chosen at their first visit."""

    id: str
    key_hash: str
    name: str
    created: str
    last_seen: str


@dataclass(frozen=True, slots=True)
class SeatLink:
    """`identity` holds `seat` at `table` (the seat token itself stays with them)."""

    table: str
    seat: int
    identity: str
    since: str


@dataclass(frozen=True, slots=True)
class Seen:
    """The last step of `table` that `identity` saw (what "since you left" starts from)."""

    identity: str
    table: str
    step: int
    at: str


@dataclass(slots=True)
class Changes:
    """Everything written in one transaction. Tables and identities are whole records (the newest
    version of each, by id); `unlinked` are (table, seat) pairs nobody holds any more."""

    tables: dict[str, TableRecord] = field(default_factory=dict)
    identities: dict[str, Identity] = field(default_factory=dict)
    linked: dict[tuple[str, int], SeatLink] = field(default_factory=dict)
    unlinked: set[tuple[str, int]] = field(default_factory=set)
    seen: dict[tuple[str, str], Seen] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.tables or self.identities or self.linked or self.unlinked or self.seen or self.settings)

    def link(self, link: SeatLink) -> None:
        key = (link.table, link.seat)
        self.unlinked.discard(key)
        self.linked[key] = link

    def unlink(self, table: str, seat: int) -> None:
        key = (table, seat)
        self.linked.pop(key, None)
        self.unlinked.add(key)


@dataclass(slots=True)
class Loaded:
    """Everything a store holds for the server at start (archived tables stay in the store)."""

    tables: list[TableRecord]
    identities: list[Identity]
    links: list[SeatLink]
    seen: list[Seen]
    settings: dict[str, str]


class Store(Protocol):
    """A server's records. Calls come from one thread at a time (never the event loop's)."""

    def load(self) -> Loaded:
        """Every live table, identity, seat link, last-seen step and server setting."""

    def commit(self, changes: Changes) -> None:
        """Write the batch in one transaction: all of it or (on an error) none of it."""

    def archived(self) -> list[TableRecord]:
        """The tables archived so far (kept, never deleted), newest first."""

    def close(self) -> None:
        """Finish writing; the store is not used after this."""
