"""A SQLite server copied into PostgreSQL (`cthulhu server --data DIR --migrate-to postgresql://...`).

The records are copied row by row, as they are (both stores have the same columns, JSON as text:
`server.postgres`), archived tables, seat links and link codes included; each table's save file
becomes its `steps` (the file's bytes as one row: format 3's body and records as they are). Then,
before anything is committed, every save is read back from the new database and replayed from its
set-up, every hash checked, and its last hash compared with the file's: one table that does not
replay to its hashes, and nothing is copied. The target must hold no server yet (a new database
or one only migrated); the SQLite folder is only read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cthulhu.savegame import SaveError, decode, load, verify

from .postgres import PostgresStore

# In an order the foreign keys allow (an identity's `merged_into` is set once all are in).
COPIED = ("settings", "identities", "tables", "seats", "seen", "link_codes", "results", "challenge_entries")


@dataclass(frozen=True, slots=True)
class Copied:
    """What one migration copied: rows by table, and the saves checked (their steps in all)."""

    rows: dict[str, int]
    saves: int
    steps: int
    unsaved: list[str]  # tables with no save file (a table whose save was never written)


class MigrationFailed(Exception):
    """The copy was refused or did not check out; nothing was committed (one line)."""


def _rows(db: sqlite3.Connection, name: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    cursor = db.execute(f"SELECT * FROM {name}")  # (our own table names)
    return [d[0] for d in cursor.description], cursor.fetchall()


def migrate(source: Path, folder: Path, target: PostgresStore, say: Callable[[str], None] = lambda line: None) -> Copied:
    """Copy the SQLite database `source` and the saves in `folder` into `target` (empty), in one
    transaction committed only once every save replays from the database to its hashes."""
    db = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version != target.version:
            raise MigrationFailed(f"{source} is at schema version {version}, not {target.version}: "
                                  "start this cthulhu's server on it once (it migrates it), then migrate it here")
        with target.db.transaction():
            _empty(target)
            rows = {name: _copy(db, target, name) for name in COPIED}
            saves = steps = 0
            unsaved = []
            for table_id, save_name in db.execute("SELECT id, save FROM tables ORDER BY id"):
                path = folder / save_name
                if not path.is_file():
                    unsaved.append(table_id)
                    continue
                steps += _copy_save(target, table_id, path)
                saves += 1
                say(f"checked {table_id}: its save replays from the database to its hashes")
    except sqlite3.Error as exc:
        raise MigrationFailed(f"the server's database {source} cannot be read ({exc}); nothing was copied") from None
    finally:
        db.close()
    return Copied(rows, saves, steps, unsaved)


def _empty(target: PostgresStore) -> None:
    for name in (*COPIED, "steps"):
        row = target.db.execute(f"SELECT EXISTS (SELECT 1 FROM {name})").fetchone()
        if row is not None and row[0]:
            raise MigrationFailed(f"{target.where} holds a server already (its {name} has rows); nothing was copied "
                                  "(migrate into a new database)")


def _copy(db: sqlite3.Connection, target: PostgresStore, name: str) -> int:
    columns, rows = _rows(db, name)
    merged = columns.index("merged_into") if name == "identities" and "merged_into" in columns else None
    insert = f"INSERT INTO {name} ({', '.join(columns)}) VALUES ({', '.join('%s' for _ in columns)})"
    with target.db.cursor() as cursor:
        cursor.executemany(insert, [_without(row, merged) for row in rows])
        if merged is not None:
            cursor.executemany("UPDATE identities SET merged_into = %s WHERE id = %s",
                               [(row[merged], row[columns.index("id")]) for row in rows if row[merged] is not None])
    return len(rows)


def _without(row: tuple[Any, ...], at: int | None) -> tuple[Any, ...]:
    """The row with column `at` left empty (set once every row it may name is in)."""
    return row if at is None else (*row[:at], None, *row[at + 1 :])


def _copy_save(target: PostgresStore, table_id: str, path: Path) -> int:
    """Table `table_id`'s save file as its steps, read back and replayed to its hashes: its steps."""
    data = path.read_bytes()
    try:
        on_disk = load(path)
    except SaveError as exc:
        raise MigrationFailed(f"table {table_id}'s save does not load ({exc}); nothing was copied") from None
    target.db.execute("INSERT INTO steps (table_id, at, data) VALUES (%s, 0, %s)", (table_id, data))
    kept = b"".join(bytes(row[0]) for row in target.db.execute("SELECT data FROM steps WHERE table_id = %s ORDER BY at", (table_id,)))
    try:
        save = decode(kept)
        game = verify(save)
    except SaveError as exc:
        raise MigrationFailed(f"table {table_id}'s save does not replay to its hashes from the database ({exc.message}); "
                              "nothing was copied") from None
    if save.last_step != on_disk.last_step or game.state_hash() != on_disk.hash_at(on_disk.last_step):
        raise MigrationFailed(f"table {table_id}'s save in the database ends elsewhere than its file; nothing was copied")
    return save.last_step

