"""The server's records, and its tables' saves, in a PostgreSQL database (psycopg 3, synchronous).

`cthulhu server --store postgresql://...` (or `CTHULHU_STORE`): the same `Store` calls as
`SqliteStore`, from the same worker thread, with the same numbered migrations (`MIGRATIONS`
here is SQLite's list in PostgreSQL's words; a test holds the two lists to the same numbers) and
the same rows (JSON as text, as SQLite keeps it), so records move between the two unchanged
(`server.migrate`). What SQLite keeps in files is a table here too: each table's save is its
`steps` rows (`PostgresShelf`), so the machines that serve a database share no file system.

The version is a one-row table of its own (`cthulhu_schema`). Nothing is written before the
database is known to be ours and not newer than this program: another program's tables, or a
schema a newer cthulhu migrated, are refused in one line. Migrations take an advisory lock, so
two processes starting on a new database at once do not both migrate it.

Ready for processes that share the database (issue 38's fleet): every table row has a lease
(`owner`, `owner_until` on the database's clock, `epoch` raised on each takeover), unused by a
lone server. A save's rows are written in one transaction (`PostgresShelf.put`), where a fence
(`owner = me AND epoch = mine`) belongs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from cthulhu.savegame import SaveIOError

from .sqlite import _JSON, _TABLE_COLUMNS, SqliteStore
from .store import (
    ChallengeEntry, Changes, GameResult, Identity, LinkCode, Loaded, SeatLink, Seen, StoreError, StoreTooNew, TableRecord, stored,
)

if TYPE_CHECKING:
    import psycopg

    from .lease import Leases

    from cthulhu.savegame import Chunk

SCHEMES = ("postgresql://", "postgres://")

# Each migration takes the schema from the version before it to its own number (SQLite's, in
# PostgreSQL's words). Version 1 also makes what only this store has: the saves' `steps` and the
# tables' leases (no PostgreSQL database predates them).
MIGRATIONS: list[tuple[int, str]] = [
    (1, """
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE tables (
            id TEXT PRIMARY KEY, mode TEXT NOT NULL, setup TEXT NOT NULL, settings TEXT NOT NULL,
            created TEXT NOT NULL, save TEXT NOT NULL, created_by TEXT, private INTEGER NOT NULL,
            code TEXT, about TEXT NOT NULL, seats TEXT NOT NULL, step INTEGER NOT NULL,
            to_move TEXT NOT NULL, finished INTEGER NOT NULL, outcome TEXT, last_move TEXT,
            updated TEXT NOT NULL, archived TEXT,
            owner TEXT, owner_until TIMESTAMPTZ, epoch BIGINT NOT NULL DEFAULT 0);
        CREATE INDEX tables_live ON tables (archived);
        CREATE TABLE identities (
            id TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
            created TEXT NOT NULL, last_seen TEXT NOT NULL);
        CREATE TABLE seats (
            table_id TEXT NOT NULL REFERENCES tables (id), seat INTEGER NOT NULL,
            identity_id TEXT NOT NULL REFERENCES identities (id), since TEXT NOT NULL,
            PRIMARY KEY (table_id, seat));
        CREATE INDEX seats_by_identity ON seats (identity_id);
        CREATE TABLE steps (table_id TEXT NOT NULL, at BIGINT NOT NULL, data BYTEA NOT NULL, PRIMARY KEY (table_id, at));
    """),
    (2, """
        CREATE TABLE seen (
            identity_id TEXT NOT NULL REFERENCES identities (id), table_id TEXT NOT NULL REFERENCES tables (id),
            step INTEGER NOT NULL, at TEXT NOT NULL, PRIMARY KEY (identity_id, table_id));
    """),
    (3, "ALTER TABLE tables ADD COLUMN clock TEXT;"),
    (4, "ALTER TABLE tables ADD COLUMN notify TEXT;"),
    (5, """
        ALTER TABLE tables ADD COLUMN notify_format TEXT NOT NULL DEFAULT 'json';
        ALTER TABLE tables ADD COLUMN notified TEXT;
    """),
    (6, """
        ALTER TABLE identities ADD COLUMN merged_into TEXT REFERENCES identities (id);
        CREATE TABLE link_codes (
            code_hash TEXT PRIMARY KEY, identity_id TEXT NOT NULL REFERENCES identities (id), expires TEXT NOT NULL);
    """),
    (7, """
        ALTER TABLE tables ADD COLUMN turns TEXT;
        UPDATE tables SET settings = jsonb_set(settings::jsonb, '{pace,away_after}', '3')::text
            WHERE settings::jsonb #>> '{pace,kind}' = 'turn-based';
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
    (9, "ALTER TABLE challenge_entries ADD COLUMN save BYTEA;"),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
_MIGRATION_LOCK = 0x637468756C6875  # pg_advisory_xact_lock's key: "cthulhu"
_COLUMNS = ", ".join(_TABLE_COLUMNS)
_UPSERT_TABLE = (f"INSERT INTO tables ({_COLUMNS}) VALUES ({', '.join('%s' for _ in _TABLE_COLUMNS)}) ON CONFLICT (id) DO UPDATE SET "
                 + ", ".join(f"{name} = excluded.{name}" for name in _TABLE_COLUMNS if name != "id"))

_FENCED_UPSERT = _UPSERT_TABLE + " WHERE tables.owner IS NOT DISTINCT FROM %s AND (%s::bigint IS NULL OR tables.epoch = %s)"


def is_url(store: str | None) -> bool:
    return store is not None and store.startswith(SCHEMES)


def describe(url: str) -> str:
    """The database a URL names, for messages: its name and host, never its password."""
    from urllib.parse import parse_qs, unquote, urlsplit

    try:
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        name = unquote(parts.path.lstrip("/")) or (query.get("dbname") or [""])[0] or parts.username or "?"
        host = parts.hostname or (query.get("host") or ["localhost"])[0]
    except ValueError:  # (a port that is no number...): said without the URL
        return "the PostgreSQL database given"
    return f"the PostgreSQL database {name} on {host}"


def _connect(url: str, what: str) -> psycopg.Connection[tuple[Any, ...]]:
    try:
        import psycopg
    except ImportError:
        raise StoreError("a PostgreSQL store needs psycopg: pip install 'cthulhu[postgres]'") from None
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise StoreError(f"cannot reach {what} ({_first(exc)}); nothing was changed") from None


def _first(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class PostgresStore:
    """`Store` on a PostgreSQL database, and the shelf of its tables' saves (`shelf`). The records'
    calls come from one thread at a time (the server's store worker); saves from the host's
    writers, each on a connection of their own (`_saves`)."""

    def __init__(self, url: str, *, upto: int = SCHEMA_VERSION) -> None:
        """Connect and bring the schema up to `upto` (tests stop early to make an old database).
        `StoreTooNew` or `StoreError` (one line) before anything is written."""
        import psycopg

        self.url = url
        self.where = describe(url)
        self.db = _connect(url, self.where)
        self._idle: list[psycopg.Connection[tuple[Any, ...]]] = []  # saves' connections not in use
        self._lock = threading.Lock()
        self.leases: Leases | None = None  # one process of several (`server.fleet`): every write for a table is fenced
        try:
            self._migrate(upto)
        except psycopg.Error as exc:
            self.db.close()
            raise StoreError(f"{self.where} cannot be used ({_first(exc)}); it was left as it is") from None
        except StoreError:
            self.db.close()
            raise

    def _version(self) -> int | None:
        """The schema's version; None for a database with none of our tables (and none of anyone's)."""
        if self.db.execute("SELECT to_regclass('cthulhu_schema')").fetchone() == (None,):
            row = self.db.execute("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()").fetchone()
            if row is not None and row[0]:
                raise StoreError(f"{self.where} is not a cthulhu server's database (it has tables of another program); it was left as it is")
            return None
        row = self.db.execute("SELECT version FROM cthulhu_schema").fetchone()
        return int(row[0]) if row is not None else 0

    def _migrate(self, upto: int) -> None:
        with self.db.transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))  # one process migrates; the others wait, then see it done
            version = self._version()
            if version is not None and version > SCHEMA_VERSION:
                raise StoreTooNew(f"{self.where} was written by a newer cthulhu (schema version {version}, this one knows "
                                  f"{SCHEMA_VERSION}); it was left as it is: run the newer cthulhu")
            if version is None:
                self.db.execute("CREATE TABLE cthulhu_schema (version INTEGER NOT NULL)")
                self.db.execute("INSERT INTO cthulhu_schema VALUES (0)")
                version = 0
            for number, script in MIGRATIONS:
                if version < number <= upto:
                    for statement in script.split(";"):
                        if statement.strip():
                            self.db.execute(statement)  # (our own constant SQL)
                    self.db.execute("UPDATE cthulhu_schema SET version = %s", (number,))

    @property
    def version(self) -> int:
        row = self.db.execute("SELECT version FROM cthulhu_schema").fetchone()
        return int(row[0]) if row is not None else 0

    # -- reading --------------------------------------------------------------------------------

    def _live(self) -> psycopg.Connection[tuple[Any, ...]]:
        """The records' connection, made again if the last one was lost (the database restarted, a
        network cut): the batch that failed on it is tried again on the next."""
        if self.db.broken or self.db.closed:
            self.db.close()
            self.db = _connect(self.url, self.where)
        return self.db

    def load(self) -> Loaded:
        import psycopg

        try:
            return self._load()
        except psycopg.Error as exc:
            raise StoreError(f"{self.where} cannot be read ({_first(exc)}); it was left as it is") from None

    def _load(self) -> Loaded:
        with self._live().transaction():  # one snapshot of everything
            tables = [SqliteStore._table(row) for row in self.db.execute(
                f"SELECT {_COLUMNS} FROM tables WHERE archived IS NULL ORDER BY created, id")]
            identities = [Identity(*row) for row in self.db.execute("SELECT id, key_hash, name, created, last_seen, merged_into FROM identities")]
            links = [SeatLink(*row) for row in self.db.execute(
                "SELECT s.table_id, s.seat, s.identity_id, s.since FROM seats s JOIN tables t ON t.id = s.table_id WHERE t.archived IS NULL")]
            seen = [Seen(*row) for row in self.db.execute("SELECT identity_id, table_id, step, at FROM seen")]
            settings = {str(k): str(v) for k, v in self.db.execute("SELECT key, value FROM settings")}
            codes = [LinkCode(*row) for row in self.db.execute("SELECT code_hash, identity_id, expires FROM link_codes")]
        return Loaded(tables, identities, links, seen, settings, codes)

    def archived(self) -> list[TableRecord]:
        rows = self._live().execute(f"SELECT {_COLUMNS} FROM tables WHERE archived IS NOT NULL ORDER BY archived DESC, id")
        return [SqliteStore._table(row) for row in rows]

    # -- writing --------------------------------------------------------------------------------

    def commit(self, changes: Changes) -> None:
        if not changes:
            return
        db = self._live()
        with db.transaction():
            for key, value in changes.settings.items():
                db.execute("INSERT INTO settings (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
            for identity in changes.identities.values():
                db.execute("INSERT INTO identities (id, key_hash, name, created, last_seen, merged_into) VALUES (%s, %s, %s, %s, %s, %s) "
                           "ON CONFLICT (id) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen, merged_into = excluded.merged_into",
                           (identity.id, identity.key_hash, identity.name, identity.created, identity.last_seen, identity.merged_into))
            for table in changes.tables.values():
                columns = stored(table)
                values = [json.dumps(columns[name], sort_keys=True) if name in _JSON else int(columns[name]) if isinstance(columns[name], bool)
                          else columns[name] for name in _TABLE_COLUMNS]
                if self.leases is None:
                    db.execute(_UPSERT_TABLE, values)
                    continue
                owner, epoch = self.leases.fence(table.id)  # (the same statement: a row another process runs is not ours to write)
                if not db.execute(_FENCED_UPSERT, [*values, owner, epoch, epoch]).rowcount and owner is not None:
                    self.leases.lose(table.id)
            for table_id, seat in changes.unlinked:
                db.execute("DELETE FROM seats WHERE table_id = %s AND seat = %s", (table_id, seat))
            for link in changes.linked.values():
                db.execute("INSERT INTO seats (table_id, seat, identity_id, since) VALUES (%s, %s, %s, %s) ON CONFLICT (table_id, seat) "
                           "DO UPDATE SET identity_id = excluded.identity_id, since = excluded.since",
                           (link.table, link.seat, link.identity, link.since))
            for code_hash, code in changes.codes.items():
                if code is None:
                    db.execute("DELETE FROM link_codes WHERE code_hash = %s", (code_hash,))
                else:
                    db.execute("INSERT INTO link_codes (code_hash, identity_id, expires) VALUES (%s, %s, %s) ON CONFLICT (code_hash) "
                               "DO UPDATE SET identity_id = excluded.identity_id, expires = excluded.expires",
                               (code.code_hash, code.identity, code.expires))
            for seen in changes.seen.values():
                db.execute("INSERT INTO seen (identity_id, table_id, step, at) VALUES (%s, %s, %s, %s) ON CONFLICT (identity_id, table_id) "
                           "DO UPDATE SET step = excluded.step, at = excluded.at", (seen.identity, seen.table, seen.step, seen.at))
            for table_id in changes.dropped:  # (a dropped table's save goes with it: nobody ever sat there)
                for statement in ("DELETE FROM seen WHERE table_id = %s", "DELETE FROM seats WHERE table_id = %s",
                                  "DELETE FROM steps WHERE table_id = %s", "DELETE FROM tables WHERE id = %s"):
                    db.execute(statement, (table_id,))

    # -- games as records (the statements are SQLite's: see its store) -----------------------------

    def add_result(self, result: GameResult) -> None:
        self._live().execute(
            "INSERT INTO results (table_id, mode, scenario, players, bots, outcome, turns, team, finished, problem) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (table_id) DO NOTHING",
            (result.table, result.mode, result.scenario, result.players, int(result.bots), result.outcome, result.turns,
             json.dumps(result.team), result.finished, result.problem))

    def results(self) -> list[GameResult]:
        rows = self._live().execute("SELECT table_id, mode, scenario, players, bots, outcome, turns, team, finished, problem "
                                    "FROM results ORDER BY finished, table_id")
        return [GameResult(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], json.loads(r[7]), r[8], r[9]) for r in rows]

    def enter(self, entry: ChallengeEntry, save: bytes) -> bool:
        cursor = self._live().execute(
            f"INSERT INTO challenge_entries ({SqliteStore._ENTRY}, won, save) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (challenge, identity_id) DO NOTHING",
            (entry.challenge, entry.identity, entry.name, entry.outcome, entry.turns, entry.rerolls, entry.steps, int(entry.bots),
             entry.at, int(entry.outcome == "won"), save))
        return cursor.rowcount == 1

    def entry(self, challenge: str, identity: str) -> ChallengeEntry | None:
        row = self._live().execute(f"SELECT {SqliteStore._ENTRY} FROM challenge_entries WHERE challenge = %s AND identity_id = %s",
                                   (challenge, identity)).fetchone()
        return None if row is None else SqliteStore._entry(row)

    def board(self, challenge: str, limit: int) -> tuple[list[ChallengeEntry], int]:
        db = self._live()
        with db.transaction():  # the page and its count from one snapshot
            rows = db.execute(f"SELECT {SqliteStore._ENTRY} FROM challenge_entries WHERE challenge = %s "
                              "ORDER BY bots, won DESC, turns, rerolls, at, identity_id LIMIT %s", (challenge, limit)).fetchall()
            total = db.execute("SELECT count(*) FROM challenge_entries WHERE challenge = %s", (challenge,)).fetchone()
        return [SqliteStore._entry(row) for row in rows], int(total[0] if total else 0)

    # -- the saves ------------------------------------------------------------------------------

    def shelf(self, table_id: str) -> PostgresShelf:
        """Where table `table_id`'s save is kept: its `steps` rows."""
        return PostgresShelf(self, table_id)

    @contextmanager
    def saving(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        """A connection for one save's write or read (many tables write at once, each in its own
        worker thread: each gets a connection of its own, kept for the next)."""
        with self._lock:
            db = self._idle.pop() if self._idle else None
        if db is None or db.closed:
            db = _connect(self.url, self.where)
        try:
            yield db
        except BaseException:
            db.close()  # (its state is unknown: a new one next time)
            raise
        with self._lock:
            self._idle.append(db)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for db in idle:
            db.close()
        self.db.close()


def read_save(url: str, table_id: str) -> bytes:
    """Table `table_id`'s save as its file's bytes, read from the database `url` without changing
    it (`cthulhu replay --store`); a `SaveIOError` (one line) when it cannot be had."""
    import psycopg

    where = describe(url)
    try:
        with _connect(url, where) as db:
            if db.execute("SELECT to_regclass('cthulhu_schema')").fetchone() == (None,):
                raise SaveIOError(f"{where} is not a cthulhu server's database", path=f"{table_id}.save")
            rows = db.execute("SELECT data FROM steps WHERE table_id = %s ORDER BY at", (table_id,)).fetchall()
    except (psycopg.Error, StoreError) as exc:
        raise SaveIOError(f"cannot read it: {_first(exc)}", path=f"{table_id}.save") from None
    if not rows:
        raise SaveIOError(f"{where} keeps no save of table {table_id}", path=f"{table_id}.save")
    return b"".join(bytes(row[0]) for row in rows)


class PostgresShelf:
    """One table's save as rows of `steps` (`savegame.Shelf`): each row is what one write put in
    the file at its offset `at` (format 3's body, or a record appended after it), so the rows in
    order are the file's bytes, and `put` is `savegame.writer.put` (cut at the offset, then write)."""

    def __init__(self, store: PostgresStore, table_id: str) -> None:
        self.store = store
        self.table_id = table_id

    @property
    def where(self) -> str:
        return f"table {self.table_id}'s save in {self.store.where}"

    def read(self) -> bytes | None:
        import psycopg

        try:
            with self.store.saving() as db:
                rows = db.execute("SELECT data FROM steps WHERE table_id = %s ORDER BY at", (self.table_id,)).fetchall()
        except (psycopg.Error, StoreError) as exc:
            raise SaveIOError(f"cannot read it: {_first(exc)}", path=self.where) from None
        return b"".join(bytes(row[0]) for row in rows) if rows else None

    def put(self, chunk: Chunk, *, fsync: bool = True) -> None:
        import psycopg

        at = chunk.offset or 0
        try:
            with self.store.saving() as db, db.transaction():
                if not fsync:
                    db.execute("SET LOCAL synchronous_commit TO OFF")
                if self.store.leases is not None:
                    self.store.leases.fenced(db, self.table_id)  # `LeaseLost`: another process runs the table now
                db.execute("DELETE FROM steps WHERE table_id = %s AND at >= %s", (self.table_id, at))
                db.execute("INSERT INTO steps (table_id, at, data) VALUES (%s, %s, %s)", (self.table_id, at, chunk.data))
        except (psycopg.Error, StoreError) as exc:
            raise SaveIOError(f"cannot write the save: {_first(exc)}", path=self.where) from None
