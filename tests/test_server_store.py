"""The server's SQLite store: one transaction per batch, migrations, and files it must not touch."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from cthulhu.server.sqlite import SCHEMA_VERSION, SqliteStore
from cthulhu.server.store import Changes, Identity, SeatLink, Seen, StoreError, StoreTooNew, TableRecord


def table(id: str = "t1", **kw) -> TableRecord:
    base = dict(id=id, mode="main", setup={"mode": "main", "seed": 5, "players": 2}, settings={"bots": {"1": "random"}},
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


def test_what_is_committed_comes_back(tmp_path):
    store = SqliteStore(tmp_path / "server.db")
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

    again = SqliteStore(tmp_path / "server.db")
    loaded = again.load()
    assert [t.id for t in loaded.tables] == ["t1", "t2"]
    first = loaded.tables[0]
    assert (first.private, first.code, first.to_move, first.step, first.settings) == (True, "abc", [1], 3, {"bots": {"1": "random"}})
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


def test_a_batch_that_fails_writes_nothing(tmp_path):
    store = SqliteStore(tmp_path / "server.db")
    changes = Changes()
    changes.tables["t1"] = table("t1")
    changes.link(SeatLink("t1", 0, "nobody", "2025-01-01T00:00:00Z"))  # no such identity: a foreign key fails
    with pytest.raises(sqlite3.IntegrityError):
        store.commit(changes)
    assert store.load().tables == []
    store.close()


def test_an_older_database_is_migrated_and_keeps_its_records(tmp_path):
    path = tmp_path / "server.db"
    old = SqliteStore(path, upto=1)
    assert old.version == 1
    assert "seen" not in {row[0] for row in old.db.execute("SELECT name FROM sqlite_master")}
    changes = Changes()
    changes.tables["t1"] = table("t1")
    changes.identities["i1"] = identity()
    old.db.execute("BEGIN")
    old.db.execute("INSERT INTO identities VALUES ('i1', 'hash-i1', 'Ada', 'x', 'y')")
    old.db.execute("COMMIT")
    old.close()

    new = SqliteStore(path)
    assert new.version == SCHEMA_VERSION == 4
    assert [i.name for i in new.load().identities] == ["Ada"]
    changes = Changes()
    changes.tables["t1"] = table("t1")
    changes.seen[("i1", "t1")] = Seen("i1", "t1", 0, "z")
    new.commit(changes)
    assert new.load().seen == [Seen("i1", "t1", 0, "z")]
    new.close()


def test_a_version_2_database_gains_the_turn_clock_and_keeps_its_tables(tmp_path):
    """Migration 3: a table written before turn clocks existed loads as live, with no clock; a
    turn-based table's running clock (its deadline in UTC) is kept and read back."""
    path = tmp_path / "server.db"
    old = SqliteStore(path, upto=2)
    old.db.execute("BEGIN")
    old.db.execute("INSERT INTO tables (id, mode, setup, settings, created, save, private, about, seats, step, to_move, finished, updated) "
                   "VALUES ('t0', 'main', '{}', '{\"pace\": {\"kind\": \"live\"}}', 'c', 't0.save', 0, '', '[]', 4, '[1]', 0, 'u')")
    old.db.execute("COMMIT")
    old.close()
    new = SqliteStore(path)
    assert new.version == SCHEMA_VERSION >= 3
    [kept] = new.load().tables
    assert (kept.id, kept.step, kept.to_move, kept.clock, kept.settings["pace"]) == ("t0", 4, [1], None, {"kind": "live"})
    changes = Changes()
    clock = {"seat": 1, "step": 4, "deadline": "2026-12-01T12:00:00+00:00", "paused": False}
    changes.tables["t0"] = table("t0", clock=clock, settings={"pace": {"kind": "turn-based", "turn_time": 90, "on_timeout": "skip"}})
    new.commit(changes)
    new.close()
    [back] = SqliteStore(path).load().tables
    assert back.clock == clock and back.settings["pace"]["turn_time"] == 90


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


def test_a_commit_survives_kill_9(tmp_path):
    """The process is killed the moment `commit` returns: the batch is there when opened again."""
    path = tmp_path / "server.db"
    script = textwrap.dedent(f"""
        import os, signal
        from cthulhu.server.sqlite import SqliteStore
        from cthulhu.server.store import Changes, TableRecord
        store = SqliteStore({str(path)!r})
        changes = Changes()
        for n in range(50):
            changes.tables[f"t{{n}}"] = TableRecord(id=f"t{{n}}", mode="main", setup={{}}, settings={{}}, created="c", save="s")
        store.commit(changes)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert result.returncode == -signal.SIGKILL
    assert os.path.exists(str(path) + "-wal")  # not checkpointed: the records are in the journal
    assert len(SqliteStore(path).load().tables) == 50


def test_a_table_keeps_its_notification_address_from_schema_4_on(tmp_path):
    path = tmp_path / "server.db"
    old = SqliteStore(path, upto=2)  # a database from before notifications, with a table in it
    old.db.execute("INSERT INTO tables (id, mode, setup, settings, created, save, private, about, seats, step, to_move, finished, updated) "
                   "VALUES ('t1', 'main', '{}', '{}', 'x', 't1.save', 0, '', '[]', 0, '[]', 0, 'x')")
    old.close()
    new = SqliteStore(path)
    assert new.version == 4 and [(t.id, t.notify) for t in new.load().tables] == [("t1", None)]
    changes = Changes()
    changes.tables["t2"] = table("t2")
    changes.tables["t2"].notify = "https://hooks.example.org/t0ken"
    new.commit(changes)
    new.close()
    again = SqliteStore(path)
    assert {t.id: t.notify for t in again.load().tables} == {"t1": None, "t2": "https://hooks.example.org/t0ken"}
    again.close()
