"""The server's records in an embedded SQLite database (the standard library's `sqlite3`).

One file in the data folder, mode 0600. WAL journal, so the server's writer never blocks a
reader and a `kill -9` loses no committed transaction; `synchronous=FULL`, so a commit is on the
disk before the server goes on (the server batches its changes, a few commits a second at most).
The schema has a version (`PRAGMA user_version`) and a list of migrations, each run in the
transaction that records its version. Nothing is written before the file is known to be ours and
not newer than this program: a damaged file, another program's database, or one a newer cthulhu
migrated is refused with one line and left exactly as it was.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from .store import (
    ChallengeEntry, Changes, GameResult, Identity, LinkCode, Loaded, SeatLink, Seen, StoreError, StoreTooNew, TableRecord, from_stored, stored,
)

# Each migration takes the schema from the version before it to its own number.
MIGRATIONS: list[tuple[int, str]] = [
    (1, """
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE tables (
            id TEXT PRIMARY KEY, mode TEXT NOT NULL, setup TEXT NOT NULL, settings TEXT NOT NULL,
            created TEXT NOT NULL, save TEXT NOT NULL, created_by TEXT, private INTEGER NOT NULL,
            code TEXT, about TEXT NOT NULL, seats TEXT NOT NULL, step INTEGER NOT NULL,
            to_move TEXT NOT NULL, finished INTEGER NOT NULL, outcome TEXT, last_move TEXT,
            updated TEXT NOT NULL, archived TEXT);
        CREATE INDEX tables_live ON tables (archived);
        CREATE TABLE identities (
            id TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
            created TEXT NOT NULL, last_seen TEXT NOT NULL);
        CREATE TABLE seats (
            table_id TEXT NOT NULL REFERENCES tables (id), seat INTEGER NOT NULL,
            identity_id TEXT NOT NULL REFERENCES identities (id), since TEXT NOT NULL,
            PRIMARY KEY (table_id, seat));
        CREATE INDEX seats_by_identity ON seats (identity_id);
    """),
    (2, """
        CREATE TABLE seen (
            identity_id TEXT NOT NULL REFERENCES identities (id), table_id TEXT NOT NULL REFERENCES tables (id),
            step INTEGER NOT NULL, at TEXT NOT NULL, PRIMARY KEY (identity_id, table_id));
    """),
    # Turn-based tables: the running clock of the decision under way (its deadline in UTC), so a
    # restart gives it only the time it had left. The pace itself is in the table's settings.
    (3, """
        ALTER TABLE tables ADD COLUMN clock TEXT;
    """),
    # A table's notification address (NULL: none), POSTed to when a person's move begins.
    (4, """
        ALTER TABLE tables ADD COLUMN notify TEXT;
    """),
    # The body its receiver takes (json, discord, slack, matrix), and what it was told in the turn
    # under way (JSON: {turn, seats, reminded}), so a restart sends no notice twice.
    (5, """
        ALTER TABLE tables ADD COLUMN notify_format TEXT NOT NULL DEFAULT 'json';
        ALTER TABLE tables ADD COLUMN notified TEXT;
    """),
    # One person, several doors: an identity linked to another (its key stands for that one), and
    # the one-time codes that link them (hashed; each short-lived and used once).
    (6, """
        ALTER TABLE identities ADD COLUMN merged_into TEXT REFERENCES identities (id);
        CREATE TABLE link_codes (
            code_hash TEXT PRIMARY KEY, identity_id TEXT NOT NULL REFERENCES identities (id), expires TEXT NOT NULL);
    """),
    # Turn-based tables: what the stand-in policy remembers (`table.standin`: missed turns in a row,
    # the seats a stand-in keeps, the round without people), so a restart neither forgives a run of
    # missed turns nor wakes a paused table. Tables made before `--away-after` get its default.
    (7, """
        ALTER TABLE tables ADD COLUMN turns TEXT;
        UPDATE tables SET settings = json_set(settings, '$.pace.away_after', 3) WHERE json_extract(settings, '$.pace.kind') = 'turn-based';
    """),
    # Games as records: each finished table's verified result (the club's records), and each
    # identity's one entry to each challenge (its primary key: one try each). Plain SQL types only
    # (TEXT, INTEGER; `team` is JSON text), so another database takes the same statements.
    (8, """
        CREATE TABLE results (
            table_id TEXT PRIMARY KEY, mode TEXT NOT NULL, scenario TEXT NOT NULL, players INTEGER NOT NULL,
            bots INTEGER NOT NULL, outcome TEXT NOT NULL, turns INTEGER NOT NULL, team TEXT NOT NULL,
            finished TEXT NOT NULL, problem TEXT);
        CREATE TABLE challenge_entries (
            challenge TEXT NOT NULL, identity_id TEXT NOT NULL REFERENCES identities (id), name TEXT NOT NULL,
            outcome TEXT NOT NULL, won INTEGER NOT NULL, turns INTEGER NOT NULL, rerolls INTEGER NOT NULL,
            steps INTEGER NOT NULL, bots INTEGER NOT NULL, at TEXT NOT NULL, PRIMARY KEY (challenge, identity_id));
        CREATE INDEX challenge_board ON challenge_entries (challenge, bots, won, turns, rerolls, at);
    """),
    # Each challenge try's save, as it was sent and verified, so a record can be replayed later
    # (`cthulhu replay --store`); NULL for the tries entered before the server kept them.
    (9, """
        ALTER TABLE challenge_entries ADD COLUMN save BLOB;
    """),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
_TABLE_COLUMNS = ("id", "mode", "setup", "settings", "created", "save", "created_by", "private", "code", "about", "seats",
                  "step", "to_move", "finished", "outcome", "last_move", "updated", "archived", "clock", "notify",
                  "notify_format", "notified", "turns")
_JSON = {"setup", "settings", "seats", "to_move", "clock", "notified", "turns"}


def _problem(path: Path, exc: sqlite3.Error) -> StoreError:
    return StoreError(f"the server's database {path} cannot be read ({exc}); it was left as it is "
                      "(move it away to start afresh, or restore a copy)")


class SqliteStore:
    """`Store` on one SQLite file. Used from one thread at a time (the server's store worker)."""

    def __init__(self, path: str | Path, *, upto: int = SCHEMA_VERSION) -> None:
        """Open (or create) the database and bring its schema up to `upto` (tests stop early to
        make an old database). `StoreTooNew` or `StoreError` before anything is written."""
        self.path = Path(path)
        fresh = not self.path.exists()
        if fresh:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # the journal files take its mode
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _problem(self.path, exc) from None
        try:
            version = self._check(fresh)
            if version > SCHEMA_VERSION:
                raise StoreTooNew(f"the server's database {self.path} was written by a newer cthulhu (schema version {version}, "
                                  f"this one knows {SCHEMA_VERSION}); it was left as it is: run the newer cthulhu")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self._migrate(version, upto)
        except sqlite3.Error as exc:
            self.db.close()
            raise _problem(self.path, exc) from None
        except StoreError:
            self.db.close()
            raise

    def _check(self, fresh: bool) -> int:
        """The schema version, reading only: a damaged file fails here, as does another program's."""
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if self.db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise StoreError(f"the server's database {self.path} is damaged (SQLite's quick_check failed); it was left as it is")
        if version == 0 and not fresh and self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            raise StoreError(f"{self.path} is not a cthulhu server's database; it was left as it is")
        return version

    def _migrate(self, version: int, upto: int) -> None:
        for number, script in MIGRATIONS:
            if version < number <= upto:
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    for statement in script.split(";"):
                        if statement.strip():
                            self.db.execute(statement)
                    self.db.execute(f"PRAGMA user_version={number}")
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise
                self.db.execute("COMMIT")

    @property
    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    # -- reading --------------------------------------------------------------------------------

    def load(self) -> Loaded:
        tables = [self._table(row) for row in self.db.execute(f"SELECT {', '.join(_TABLE_COLUMNS)} FROM tables WHERE archived IS NULL ORDER BY created, id")]
        identities = [Identity(*row) for row in self.db.execute("SELECT id, key_hash, name, created, last_seen, merged_into FROM identities")]
        links = [SeatLink(*row) for row in self.db.execute(
            "SELECT s.table_id, s.seat, s.identity_id, s.since FROM seats s JOIN tables t ON t.id = s.table_id WHERE t.archived IS NULL")]
        seen = [Seen(*row) for row in self.db.execute("SELECT identity_id, table_id, step, at FROM seen")]
        settings = dict(self.db.execute("SELECT key, value FROM settings").fetchall())
        codes = [LinkCode(*row) for row in self.db.execute("SELECT code_hash, identity_id, expires FROM link_codes")]
        return Loaded(tables, identities, links, seen, settings, codes)

    def archived(self) -> list[TableRecord]:
        rows = self.db.execute(f"SELECT {', '.join(_TABLE_COLUMNS)} FROM tables WHERE archived IS NOT NULL ORDER BY archived DESC, id")
        return [self._table(row) for row in rows]

    def shelf(self, table_id: str) -> None:
        """Saves are files beside the database (`tables/`), not kept here."""
        return None

    @staticmethod
    def _table(row: tuple[Any, ...]) -> TableRecord:
        values = {name: (json.loads(value) if name in _JSON and value is not None else value) for name, value in zip(_TABLE_COLUMNS, row)}
        values["private"] = bool(values["private"])
        values["finished"] = bool(values["finished"])
        return from_stored(values)

    # -- writing --------------------------------------------------------------------------------

    def commit(self, changes: Changes) -> None:
        if not changes:
            return
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for key, value in changes.settings.items():
                db.execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
            for identity in changes.identities.values():
                db.execute("INSERT INTO identities (id, key_hash, name, created, last_seen, merged_into) VALUES (?, ?, ?, ?, ?, ?) "
                           "ON CONFLICT (id) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen, merged_into = excluded.merged_into",
                           (identity.id, identity.key_hash, identity.name, identity.created, identity.last_seen, identity.merged_into))
            placeholders = ", ".join("?" for _ in _TABLE_COLUMNS)
            updates = ", ".join(f"{name} = excluded.{name}" for name in _TABLE_COLUMNS if name != "id")
            for table in changes.tables.values():
                columns = stored(table)
                values = [json.dumps(columns[name], sort_keys=True) if name in _JSON else columns[name] for name in _TABLE_COLUMNS]
                db.execute(f"INSERT INTO tables ({', '.join(_TABLE_COLUMNS)}) VALUES ({placeholders}) ON CONFLICT (id) DO UPDATE SET {updates}", values)
            for table_id, seat in changes.unlinked:
                db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))
            for link in changes.linked.values():
                db.execute("INSERT INTO seats (table_id, seat, identity_id, since) VALUES (?, ?, ?, ?) ON CONFLICT (table_id, seat) "
                           "DO UPDATE SET identity_id = excluded.identity_id, since = excluded.since",
                           (link.table, link.seat, link.identity, link.since))
            for code_hash, code in changes.codes.items():
                if code is None:
                    db.execute("DELETE FROM link_codes WHERE code_hash = ?", (code_hash,))
                else:
                    db.execute("INSERT OR REPLACE INTO link_codes (code_hash, identity_id, expires) VALUES (?, ?, ?)",
                               (code.code_hash, code.identity, code.expires))
            for seen in changes.seen.values():
                db.execute("INSERT INTO seen (identity_id, table_id, step, at) VALUES (?, ?, ?, ?) ON CONFLICT (identity_id, table_id) "
                           "DO UPDATE SET step = excluded.step, at = excluded.at", (seen.identity, seen.table, seen.step, seen.at))
            for table_id in changes.dropped:
                for statement in ("DELETE FROM seen WHERE table_id = ?", "DELETE FROM seats WHERE table_id = ?", "DELETE FROM tables WHERE id = ?"):
                    db.execute(statement, (table_id,))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- games as records -------------------------------------------------------------------------

    def add_result(self, result: GameResult) -> None:
        self.db.execute("INSERT INTO results (table_id, mode, scenario, players, bots, outcome, turns, team, finished, problem) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO NOTHING",
                        (result.table, result.mode, result.scenario, result.players, int(result.bots), result.outcome, result.turns,
                         json.dumps(result.team), result.finished, result.problem))

    def results(self) -> list[GameResult]:
        rows = self.db.execute("SELECT table_id, mode, scenario, players, bots, outcome, turns, team, finished, problem FROM results "
                               "ORDER BY finished, table_id")
        return [GameResult(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], json.loads(r[7]), r[8], r[9]) for r in rows]

    _ENTRY = "challenge, identity_id, name, outcome, turns, rerolls, steps, bots, at"

    def enter(self, entry: ChallengeEntry, save: bytes) -> bool:
        cursor = self.db.execute(
            f"INSERT INTO challenge_entries ({self._ENTRY}, won, save) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (challenge, identity_id) DO NOTHING",
            (entry.challenge, entry.identity, entry.name, entry.outcome, entry.turns, entry.rerolls, entry.steps, int(entry.bots),
             entry.at, int(entry.outcome == "won"), save))
        return cursor.rowcount == 1

    def entry(self, challenge: str, identity: str) -> ChallengeEntry | None:
        row = self.db.execute(f"SELECT {self._ENTRY} FROM challenge_entries WHERE challenge = ? AND identity_id = ?",
                              (challenge, identity)).fetchone()
        return None if row is None else self._entry(row)

    def board(self, challenge: str, limit: int) -> tuple[list[ChallengeEntry], int]:
        rows = self.db.execute(f"SELECT {self._ENTRY} FROM challenge_entries WHERE challenge = ? "
                               "ORDER BY bots, won DESC, turns, rerolls, at, identity_id LIMIT ?", (challenge, limit))
        total = self.db.execute("SELECT count(*) FROM challenge_entries WHERE challenge = ?", (challenge,)).fetchone()[0]
        return [self._entry(row) for row in rows], int(total)

    @staticmethod
    def _entry(row: tuple[Any, ...]) -> ChallengeEntry:
        return ChallengeEntry(row[0], row[1], row[2], row[3], row[4], row[5], row[6], bool(row[7]), row[8])

    def close(self) -> None:
        try:
            self.db.execute("PRAGMA optimize")
        except sqlite3.Error:
            pass
        self.db.close()
