"""The server's stores, SQLite and PostgreSQL, held to one contract (every test taking `kind` runs
on both, with the same results): one transaction per batch, the same numbered migrations, and
databases they must not touch."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import psycopg
import pytest

from cthulhu.server import postgres
from cthulhu.server.postgres import PostgresStore
from cthulhu.server.sqlite import MIGRATIONS, SCHEMA_VERSION, SqliteStore
from cthulhu.server.store import Changes, Identity, SeatLink, Seen, StoreError, StoreTooNew, TableRecord
from cthulhu.table import Pace, TableSpec


class Kind:
    """One of the stores, opened again and again on the same database (`upto`: an old schema)."""

    def __init__(self, name: str, where) -> None:
        self.name = name
        self.where = where  # a path or a URL

    def open(self, upto: int = SCHEMA_VERSION):
        return SqliteStore(self.where, upto=upto) if self.name == "sqlite" else PostgresStore(self.where, upto=upto)

    def tables(self, store) -> set[str]:
        sql = ("SELECT name FROM sqlite_master WHERE type = 'table'" if self.name == "sqlite"
               else "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        return {row[0] for row in store.db.execute(sql)}


@pytest.fixture(params=["sqlite", "postgres"])
def kind(request, tmp_path) -> Kind:
    return Kind("sqlite", tmp_path / "server.db") if request.param == "sqlite" else Kind("postgres", request.getfixturevalue("pg_url"))


def table(id: str = "t1", **kw) -> TableRecord:
    base = dict(id=id, mode="main", spec=TableSpec.of_kept({"mode": "main", "seed": 5, "players": 2}, {"bots": {"1": "random"}}),
                created="2025-01-01T00:00:00Z", save=f"{id}.save", seats=[{"seat": 0, "name": None, "status": "open"}])
    base.update(kw)
    return TableRecord(**base)


def identity(id: str = "i1", name: str = "Ada") -> Identity:
    return Identity(id=id, key_hash=f"hash-{id}", name=name, created="2025-01-01T00:00:00Z", last_seen="2025-01-01T00:00:00Z")


def test_a_new_database_is_private_in_wal_mode_at_the_newest_schema(tmp_path):
    path = tmp_path / "data" / "server.db"
    store = SqliteStore(path)
    assert store.version == SCHEMA_VERSION
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert path.stat().st_mode & 0o777 == 0o600
    store.close()


def test_what_is_committed_comes_back(kind):
    store = kind.open()
    changes = Changes()
    changes.tables["t1"] = table("t1", private=True, code="abc", to_move=[1], step=3)
    changes.tables["t2"] = table("t2")
    changes.identities["i1"] = identity()
    changes.link(SeatLink("t1", 0, "i1", "2025-01-01T00:00:01Z"))
    changes.link(SeatLink("t2", 1, "i1", "2025-01-01T00:00:02Z"))
    changes.seen[("i1", "t1")] = Seen("i1", "t1", 3, "2025-01-01T00:00:03Z")
    changes.settings["name"] = "club"
    store.commit(changes)
    store.close()

    again = kind.open()
    loaded = again.load()
    assert [t.id for t in loaded.tables] == ["t1", "t2"]
    first = loaded.tables[0]
    assert (first.private, first.code, first.to_move, first.step, first.spec.bots) == (True, "abc", [1], 3, {1: "random"})
    assert loaded.identities == [identity()]
    assert sorted(loaded.links, key=lambda link: link.table) == [SeatLink("t1", 0, "i1", "2025-01-01T00:00:01Z"),
                                                                 SeatLink("t2", 1, "i1", "2025-01-01T00:00:02Z")]
    assert loaded.seen == [Seen("i1", "t1", 3, "2025-01-01T00:00:03Z")]
    assert loaded.settings == {"name": "club"}

    later = Changes()
    later.unlink("t2", 1)
    later.tables["t1"] = table("t1", archived="2025-02-01T00:00:00Z")
    again.commit(later)
    loaded = again.load()
    assert [t.id for t in loaded.tables] == ["t2"]  # archived: kept, not listed
    assert [t.id for t in again.archived()] == ["t1"]
    assert loaded.links == []  # t1's link goes with the archived table; t2's was unlinked
    again.close()


def test_a_batch_that_fails_writes_nothing(kind):
    store = kind.open()
    changes = Changes()
    changes.tables["t1"] = table("t1")
    changes.link(SeatLink("t1", 0, "nobody", "2025-01-01T00:00:00Z"))  # no such identity: a foreign key fails
    with pytest.raises((sqlite3.IntegrityError, psycopg.IntegrityError)):
        store.commit(changes)
    assert store.load().tables == []
    store.close()


def test_an_older_database_is_migrated_and_keeps_its_records(kind):
    old = kind.open(upto=1)
    assert old.version == 1
    assert "seen" not in kind.tables(old)
    changes = Changes()
    changes.tables["t1"] = table("t1")
    changes.identities["i1"] = identity()
    old.db.execute("BEGIN")
    old.db.execute("INSERT INTO identities VALUES ('i1', 'hash-i1', 'Ada', 'x', 'y')")
    old.db.execute("COMMIT")
    old.close()

    new = kind.open()
    assert new.version == SCHEMA_VERSION >= 6
    assert [i.name for i in new.load().identities] == ["Ada"]
    changes = Changes()
    changes.tables["t1"] = table("t1")
    changes.seen[("i1", "t1")] = Seen("i1", "t1", 0, "z")
    new.commit(changes)
    assert new.load().seen == [Seen("i1", "t1", 0, "z")]
    new.close()


def test_a_version_2_database_gains_the_turn_clock_and_keeps_its_tables(kind):
    """Migration 3: a table written before turn clocks existed loads as live, with no clock; a
    turn-based table's running clock (its deadline in UTC) is kept and read back."""
    old = kind.open(upto=2)
    old.db.execute("BEGIN")
    old.db.execute("INSERT INTO tables (id, mode, setup, settings, created, save, private, about, seats, step, to_move, finished, updated) "
                   "VALUES ('t0', 'main', '{}', '{\"pace\": {\"kind\": \"live\"}}', 'c', 't0.save', 0, '', '[]', 4, '[1]', 0, 'u')")
    old.db.execute("COMMIT")
    old.close()
    new = kind.open()
    assert new.version == SCHEMA_VERSION >= 3
    [kept] = new.load().tables
    assert (kept.id, kept.step, kept.to_move, kept.clock, kept.spec.pace) == ("t0", 4, [1], None, Pace())
    changes = Changes()
    clock = {"seat": 1, "step": 4, "deadline": "2026-12-01T12:00:00+00:00", "paused": False}
    changes.tables["t0"] = table("t0", clock=clock, spec=TableSpec.of_kept({}, {"pace": {"kind": "turn-based", "turn_time": 90, "on_timeout": "skip"}}))
    new.commit(changes)
    new.close()
    [back] = kind.open().load().tables
    assert back.clock == clock and back.spec.pace.turn_time == 90


def _unchanged(path, make) -> None:
    before = path.read_bytes()
    with pytest.raises(StoreError) as caught:
        make()
    assert path.read_bytes() == before
    assert not (path.parent / (path.name + "-wal")).exists() and not (path.parent / (path.name + "-journal")).exists()
    assert "\n" not in str(caught.value) and "left as it is" in str(caught.value)


def test_a_damaged_file_is_refused_and_left_as_it_is(tmp_path):
    path = tmp_path / "server.db"
    path.write_bytes(b"this is no database at all, only words" * 100)
    _unchanged(path, lambda: SqliteStore(path))


def test_a_database_from_a_newer_cthulhu_is_refused_and_left_as_it_is(tmp_path):
    path = tmp_path / "server.db"
    SqliteStore(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreTooNew):
        SqliteStore(path)
    _unchanged(path, lambda: SqliteStore(path))


def test_another_programs_database_is_refused(tmp_path):
    path = tmp_path / "server.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE accounts (id INTEGER)")
    db.commit()
    db.close()
    _unchanged(path, lambda: SqliteStore(path))


def test_a_commit_survives_kill_9(kind):
    """The process is killed the moment `commit` returns: the batch is there when opened again."""
    script = textwrap.dedent(f"""
        import os, signal
        from cthulhu.server.postgres import PostgresStore
        from cthulhu.server.sqlite import SqliteStore
        from cthulhu.core import Setup
        from cthulhu.server.store import Changes, TableRecord
        from cthulhu.table import TableSpec
        store = {"SqliteStore" if kind.name == "sqlite" else "PostgresStore"}({str(kind.where)!r})
        changes = Changes()
        for n in range(50):
            changes.tables[f"t{{n}}"] = TableRecord(id=f"t{{n}}", mode="main", spec=TableSpec(start=Setup()), created="c", save="s")
        store.commit(changes)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert result.returncode == -signal.SIGKILL, result.stderr
    if kind.name == "sqlite":
        assert os.path.exists(str(kind.where) + "-wal")  # not checkpointed: the records are in the journal
    assert len(kind.open().load().tables) == 50


def test_a_table_keeps_its_notification_address_from_schema_4_on(kind):
    old = kind.open(upto=2)  # a database from before notifications, with a table in it
    old.db.execute("INSERT INTO tables (id, mode, setup, settings, created, save, private, about, seats, step, to_move, finished, updated) "
                   "VALUES ('t1', 'main', '{}', '{}', 'x', 't1.save', 0, '', '[]', 0, '[]', 0, 'x')")
    old.close()
    new = kind.open()
    assert new.version >= 4 and [(t.id, t.notify) for t in new.load().tables] == [("t1", None)]
    changes = Changes()
    changes.tables["t2"] = table("t2")
    changes.tables["t2"].notify = "https://hooks.example.org/t0ken"
    new.commit(changes)
    new.close()
    again = kind.open()
    assert {t.id: t.notify for t in again.load().tables} == {"t1": None, "t2": "https://hooks.example.org/t0ken"}
    again.close()


def test_a_table_keeps_its_notification_format_and_what_it_told_from_schema_5_on(kind):
    """Migration 5: a table with an address from before formats is told in JSON and was told
    nothing yet; what a webhook was told this turn is kept and read back (a restart repeats none)."""
    old = kind.open(upto=4)
    old.db.execute("INSERT INTO tables (id, mode, setup, settings, created, save, private, about, seats, step, to_move, finished, updated, notify) "
                   "VALUES ('t1', 'main', '{}', '{}', 'x', 't1.save', 0, '', '[]', 0, '[]', 0, 'x', 'https://hooks.example.org/a')")
    old.close()
    new = kind.open()
    assert new.version == SCHEMA_VERSION >= 5
    assert [(t.id, t.notify, t.notify_format, t.notified) for t in new.load().tables] == [("t1", "https://hooks.example.org/a", "json", None)]
    changes = Changes()
    changes.tables["t2"] = table("t2")
    changes.tables["t2"].notify, changes.tables["t2"].notify_format = "https://hooks.example.org/b", "matrix"
    changes.tables["t2"].notified = {"turn": 7, "seats": [0, 2], "reminded": [0]}
    new.commit(changes)
    new.close()
    again = kind.open()
    kept = {t.id: (t.notify_format, t.notified) for t in again.load().tables}
    assert kept == {"t1": ("json", None), "t2": ("matrix", {"turn": 7, "seats": [0, 2], "reminded": [0]})}
    again.close()


def test_schema_7_keeps_the_stand_in_policys_memory_and_gives_old_turn_based_tables_away_after(kind):
    """Migration 7: a turn-based table made before `--away-after` gets its default (3) in its
    pace; a live one is left as it was; the new `turns` column keeps what `StandInPolicy.saved` gives."""
    old = kind.open(upto=6)
    for tid, pace in (("t1", '{"kind": "turn-based", "turn_time": 60, "on_timeout": "stand-in"}'), ("t2", '{"kind": "live"}')):
        old.db.execute("INSERT INTO tables (id, mode, setup, settings, created, save, private, about, seats, step, to_move, finished, updated) "
                       f"VALUES ('{tid}', 'main', '{{}}', '{{\"pace\": {pace}}}', 'x', '{tid}.save', 0, '', '[]', 0, '[]', 0, 'x')")
    old.close()
    new = kind.open()
    assert new.version == SCHEMA_VERSION >= 7
    kept = {t.id: t for t in new.load().tables}
    assert kept["t1"].spec.pace.away_after == 3 and kept["t2"].spec.pace == Pace()
    assert kept["t1"].turns is None
    changes = Changes()
    turns = {"missed": {"1": 2}, "kept": [], "turn": [4, 1], "person": False, "had_turn": [0], "idle": False}
    changes.tables["t1"] = table("t1", turns=turns)
    new.commit(changes)
    new.close()
    again = kind.open()
    assert {t.id: t.turns for t in again.load().tables}["t1"] == turns
    again.close()


# -- PostgreSQL's own -----------------------------------------------------------------------------


def test_both_stores_have_the_same_numbered_migrations():
    """A migration added to SQLite's list needs its PostgreSQL twin (same number), and the other way."""
    assert [n for n, _ in postgres.MIGRATIONS] == [n for n, _ in MIGRATIONS]
    assert postgres.SCHEMA_VERSION == SCHEMA_VERSION


def _schema(url: str) -> list[tuple]:
    with psycopg.connect(url) as db:
        return db.execute("SELECT table_name, column_name, data_type FROM information_schema.columns "
                          "WHERE table_schema = current_schema() ORDER BY 1, 2").fetchall()


def test_a_postgres_database_from_a_newer_cthulhu_is_refused_in_one_line_and_left_as_it_is(pg_url):
    PostgresStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("UPDATE cthulhu_schema SET version = %s", (SCHEMA_VERSION + 1,))
    before = _schema(pg_url)
    with pytest.raises(StoreTooNew) as caught:
        PostgresStore(pg_url)
    assert "\n" not in str(caught.value) and "left as it is" in str(caught.value) and "newer cthulhu" in str(caught.value)
    assert _schema(pg_url) == before


def test_another_programs_postgres_database_is_refused_and_left_as_it_is(pg_url):
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("CREATE TABLE accounts (id INTEGER)")
    with pytest.raises(StoreError) as caught:
        PostgresStore(pg_url)
    assert "\n" not in str(caught.value) and "not a cthulhu server's database" in str(caught.value)
    assert _schema(pg_url) == [("accounts", "id", "integer")]


def test_a_database_that_cannot_be_reached_is_one_line_without_its_password(pg_cluster):
    url = pg_cluster.url("nosuchdb").replace("postgres@", "postgres:s3cret@")
    with pytest.raises(StoreError) as caught:
        PostgresStore(url)
    assert "\n" not in str(caught.value) and "nosuchdb" in str(caught.value) and "s3cret" not in str(caught.value)


def test_two_stores_opening_a_new_database_at_once_migrate_it_once(pg_url):
    import threading

    stores, errors = [], []

    def open_one():
        try:
            stores.append(PostgresStore(pg_url))
        except Exception as exc:  # (collected: the test says which)
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and [s.version for s in stores] == [SCHEMA_VERSION] * 4
    for store in stores:
        store.close()


def test_a_saves_rows_are_its_file_and_a_write_at_an_offset_cuts_what_followed(pg_url):
    """`PostgresShelf.put` is `writer.put`: the whole save, or a record at its offset (what was
    kept from there on is cut first, so the same chunk twice is harmless)."""
    from cthulhu.savegame import Chunk

    store = PostgresStore(pg_url)
    shelf = store.shelf("t1")
    assert shelf.read() is None
    shelf.put(Chunk(1, 0, None, b"body", 0, 0, 4))
    shelf.put(Chunk(2, 0, 4, b"-rec1", 0, 0, 4))
    shelf.put(Chunk(3, 0, 9, b"-rec2", 0, 0, 4))
    shelf.put(Chunk(3, 0, 9, b"-rec2", 0, 0, 4))
    assert shelf.read() == b"body-rec1-rec2"
    shelf.put(Chunk(4, 0, 4, b"-again", 0, 0, 4))
    assert shelf.read() == b"body-again"
    shelf.put(Chunk(5, 1, None, b"whole", 0, 0, 5), fsync=False)
    assert shelf.read() == b"whole" and store.shelf("t2").read() is None
    dropped = Changes()
    dropped.tables["t1"] = table("t1")
    store.commit(dropped)
    dropped = Changes()
    dropped.drop("t1")
    store.commit(dropped)
    assert shelf.read() is None  # a dropped table's save goes with it
    store.close()


def test_a_lost_connection_fails_one_batch_and_one_save_and_the_next_ones_are_written(pg_url):
    """The database restarted or the network was cut: the batch (and the save) on the lost
    connection fail, as a full disk's would (the server keeps them and tries again), and the
    next ones go through on a new connection."""
    from cthulhu.savegame import Chunk, SaveIOError

    store = PostgresStore(pg_url)
    shelf = store.shelf("t1")
    shelf.put(Chunk(1, 0, None, b"body", 0, 0, 4))
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
    changes = Changes()
    changes.tables["t1"] = table("t1")
    with pytest.raises(psycopg.OperationalError):
        store.commit(changes)
    store.commit(changes)
    with pytest.raises(SaveIOError):
        shelf.put(Chunk(2, 0, 4, b"-rec", 0, 0, 4))
    shelf.put(Chunk(2, 0, 4, b"-rec", 0, 0, 4))
    assert [t.id for t in store.load().tables] == ["t1"] and shelf.read() == b"body-rec"
    store.close()
