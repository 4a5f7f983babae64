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

from .store import Changes, Identity, Loaded, SeatLink, Seen, StoreError, StoreTooNew, TableRecord

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
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
_TABLE_COLUMNS = ("id", "mode", "setup", "settings", "created", "save", "created_by", "private", "code", "about", "seats",
                  "step", "to_move", "finished", "outcome", "last_move", "updated", "archived", "clock", "notify")
_JSON = {"setup", "settings", "seats", "to_move", "clock"}


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
        identities = [Identity(*row) for row in self.db.execute("SELECT id, key_hash, name, created, last_seen FROM identities")]
        links = [SeatLink(*row) for row in self.db.execute(
            "SELECT s.table_id, s.seat, s.identity_id, s.since FROM seats s JOIN tables t ON t.id = s.table_id WHERE t.archived IS NULL")]
        seen = [Seen(*row) for row in self.db.execute("SELECT identity_id, table_id, step, at FROM seen")]
        settings = dict(self.db.execute("SELECT key, value FROM settings").fetchall())
        return Loaded(tables, identities, links, seen, settings)

    def archived(self) -> list[TableRecord]:
        rows = self.db.execute(f"SELECT {', '.join(_TABLE_COLUMNS)} FROM tables WHERE archived IS NOT NULL ORDER BY archived DESC, id")
        return [self._table(row) for row in rows]

    @staticmethod
    def _table(row: tuple[Any, ...]) -> TableRecord:
        values = {name: (json.loads(value) if name in _JSON and value is not None else value) for name, value in zip(_TABLE_COLUMNS, row)}
        values["private"] = bool(values["private"])
        values["finished"] = bool(values["finished"])
        return TableRecord(**values)

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
                db.execute("INSERT INTO identities (id, key_hash, name, created, last_seen) VALUES (?, ?, ?, ?, ?) "
                           "ON CONFLICT (id) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen",
                           (identity.id, identity.key_hash, identity.name, identity.created, identity.last_seen))
            placeholders = ", ".join("?" for _ in _TABLE_COLUMNS)
            updates = ", ".join(f"{name} = excluded.{name}" for name in _TABLE_COLUMNS if name != "id")
            for table in changes.tables.values():
                values = [getattr(table, name) for name in _TABLE_COLUMNS]
                values = [json.dumps(v, sort_keys=True) if name in _JSON else v for name, v in zip(_TABLE_COLUMNS, values)]
                db.execute(f"INSERT INTO tables ({', '.join(_TABLE_COLUMNS)}) VALUES ({placeholders}) ON CONFLICT (id) DO UPDATE SET {updates}", values)
            for table_id, seat in changes.unlinked:
                db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))
            for link in changes.linked.values():
                db.execute("INSERT INTO seats (table_id, seat, identity_id, since) VALUES (?, ?, ?, ?) ON CONFLICT (table_id, seat) "
                           "DO UPDATE SET identity_id = excluded.identity_id, since = excluded.since",
                           (link.table, link.seat, link.identity, link.since))
            for seen in changes.seen.values():
                db.execute("INSERT INTO seen (identity_id, table_id, step, at) VALUES (?, ?, ?, ?) ON CONFLICT (identity_id, table_id) "
                           "DO UPDATE SET step = excluded.step, at = excluded.at", (seen.identity, seen.table, seen.step, seen.at))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        try:
            self.db.execute("PRAGMA optimize")
        except sqlite3.Error:
            pass
        self.db.close()
