"""What a server of many tables remembers, behind a small interface so the database is a backend.

The server keeps its records in memory while it runs (the lobby is listed from there, never from
the database) and hands the store every change as one `Changes` batch: `commit` writes it in one
transaction, `load` gives everything back at start. That is the whole contract, so another
backend (PostgreSQL for several server processes, `server.postgres`) implements two calls and
a `close`, not the server; one that keeps the tables' saves too gives each table a `shelf`.

The records are plain data. A table's game lives in its save file (the game record, as ever:
exportable, verifiable, replayable); the store holds what the lobby lists, who holds which seat,
the identities and their names, and what each identity last saw of each table. A table is kept
as the `TableSpec` it is opened from (typed here; a backend stores it as `stored` says and reads
it back with `from_stored`, every older form included); the server's `settings` are an open
mapping.

Besides the two calls, a few that ask the database directly, because there the database is the
truth across processes (server/DESIGN.md, "Games as records"): `add_result` / `results` for the club's
records, `enter` / `entry` / `board` for the challenges' boards (one entry per identity is the
table's primary key, so two processes can never both take a second try).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cthulhu.savegame.shelf import Shelf

from cthulhu.core import Setup
from cthulhu.table import TableSpec


class StoreError(Exception):
    """The store cannot be used as it is (damaged, or not ours); the message is one line for the
    operator, and nothing was written."""


class StoreTooNew(StoreError):
    """The database was written by a newer version of cthulhu (its schema is ahead of ours)."""


@dataclass(slots=True)
class TableRecord:
    """One table: how it was made (`spec`: its setup, which holds the seed and never leaves the
    server, its bots, stand-ins and pace), where its game is saved, and what the lobby shows of it
    (kept up to date while it is open)."""

    id: str
    mode: str
    spec: TableSpec  # `start` is the table's `Setup`; the save file, code, id and limits are given at each opening
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
    notify_format: str = "json"  # the body the receiver takes (`server.notices.FORMATS`)
    notified: dict[str, Any] | None = None  # what the webhook was told this turn (`server.moves.Told`)
    turns: dict[str, Any] | None = None  # a turn-based table's stand-in policy's memory (`StandInPolicy.saved`)

    @property
    def setup(self) -> Setup:
        assert isinstance(self.spec.start, Setup), "a server's table starts from a setup"
        return self.spec.start


def stored(record: TableRecord) -> dict[str, Any]:
    """A table record as a store keeps it, by column (the spec as `setup` and `settings`, JSON-ready)."""
    values = {f.name: getattr(record, f.name) for f in fields(record) if f.name != "spec"}
    values["setup"] = record.setup.model_dump(mode="json")
    values["settings"] = record.spec.kept()
    return values


def from_stored(values: dict[str, Any]) -> TableRecord:
    """A table record from the columns a store kept (`stored`'s, or an older version's)."""
    rest = dict(values)
    spec = TableSpec.of_kept(rest.pop("setup"), rest.pop("settings") or {})
    return TableRecord(spec=spec, **rest)


@dataclass(slots=True)
class Identity:
    """Someone who came back: known by the hash of a key their own machine keeps (`key_hash`),
    and by the name chosen at their first visit."""

    id: str
    key_hash: str
    name: str
    created: str
    last_seen: str
    merged_into: str | None = None  # linked to another identity (`link`): its key stands for that one now


@dataclass(frozen=True, slots=True)
class LinkCode:
    """A one-time code that links another door to `identity` (`server.linking`): only its hash is
    kept, and it is no good after `expires` (UTC) or once used."""

    code_hash: str
    identity: str
    expires: str


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


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished table's game as its verified save tells it (`server.verified`), for the club's
    records: `scenario` the one-id set-up choices ("episode=wexley_mill elder_one=hastur"),
    `players` its seats, `bots` whether a bot played a seat, `team` the seats' names. `problem`:
    the save did not verify (one line); such a game is counted apart, never ranked."""

    table: str
    mode: str
    scenario: str
    players: int
    bots: bool
    outcome: str
    turns: int
    team: list[str]
    finished: str
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class ChallengeEntry:
    """One identity's try at a challenge ("daily-2026-12-02"), entered once its save replayed
    and verified: what the board ranks (a win, then fewer turns, then fewer rerolls, then the
    earlier entry). `bots`: the save says a bot played it (ranked apart from people)."""

    challenge: str
    identity: str
    name: str
    outcome: str
    turns: int
    rerolls: int
    steps: int
    bots: bool
    at: str


@dataclass(slots=True)
class Changes:
    """Everything written in one transaction. Tables and identities are whole records (the newest
    version of each, by id); `unlinked` are (table, seat) pairs nobody holds any more; `dropped`
    are tables deleted (untouched ones that expired: nobody ever sat there), written last."""

    tables: dict[str, TableRecord] = field(default_factory=dict)
    identities: dict[str, Identity] = field(default_factory=dict)
    linked: dict[tuple[str, int], SeatLink] = field(default_factory=dict)
    unlinked: set[tuple[str, int]] = field(default_factory=set)
    seen: dict[tuple[str, str], Seen] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    codes: dict[str, LinkCode | None] = field(default_factory=dict)  # by hash; None: used or expired, delete it
    dropped: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.tables or self.identities or self.linked or self.unlinked or self.seen or self.settings or self.codes
                    or self.dropped)

    def keep(self, failed: Changes) -> None:
        """A batch the store could not write goes with this (newer) one: what changed since wins."""
        for name in ("tables", "identities", "linked", "seen", "settings", "codes"):
            pending = getattr(self, name)
            for key, value in getattr(failed, name).items():
                if name != "tables" or key not in self.dropped:
                    pending.setdefault(key, value)
        self.unlinked |= failed.unlinked - set(self.linked)
        self.dropped |= failed.dropped

    def drop(self, table: str) -> None:
        self.tables.pop(table, None)
        self.dropped.add(table)

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
    codes: list[LinkCode] = field(default_factory=list)


class Store(Protocol):
    """A server's records. Calls come from one thread at a time (never the event loop's)."""

    def load(self) -> Loaded:
        """Every live table, identity, seat link, last-seen step and server setting."""

    def commit(self, changes: Changes) -> None:
        """Write the batch in one transaction: all of it or (on an error) none of it."""

    def archived(self) -> list[TableRecord]:
        """The tables archived so far (kept, never deleted), newest first."""

    def shelf(self, table_id: str) -> Shelf | None:
        """Where the table's save is kept when the store keeps it (None: its file in tables/)."""

    def close(self) -> None:
        """Finish writing; the store is not used after this."""

    # -- games as records (schema 8) ----------------------------------------------------------------

    def add_result(self, result: GameResult) -> None:
        """Keep a finished table's result (a second one for the same table is ignored)."""

    def results(self) -> list[GameResult]:
        """Every result kept, oldest first."""

    def enter(self, entry: ChallengeEntry, save: bytes) -> bool:
        """Keep an identity's entry to a challenge in one transaction; False (nothing written)
        when that identity has one already: one try each, held by the database."""

    def entry(self, challenge: str, identity: str) -> ChallengeEntry | None:
        """That identity's entry to that challenge, if it has one."""

    def board(self, challenge: str, limit: int) -> tuple[list[ChallengeEntry], int]:
        """The best `limit` entries of a challenge in the board's order (people before bots; a
        win first, then fewer turns, fewer rerolls, the earlier entry), and how many there are."""
