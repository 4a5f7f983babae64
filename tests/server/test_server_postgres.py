"""`cthulhu server --store postgresql://...` as a real process on a real PostgreSQL (started by the
tests: tests/support/pgcluster.py): its games are in the database, not in files; `replay --store` reads,
verifies and exports them; a newer schema is one line and exit 2; and `--migrate-to` copies a
SQLite server of 100 tables, records and saves, into PostgreSQL, every table replayed there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import psycopg
import pytest
import trio
import trio.testing

from cthulhu.core import Game, Setup
from cthulhu.savegame import SaveWriter, load, verify
from cthulhu.table import TableSpec
from cthulhu.server.postgres import SCHEMA_VERSION, PostgresStore
from cthulhu.server.sqlite import SqliteStore
from cthulhu.server.store import Changes, Identity, SeatLink, Seen, TableRecord

from support.saveplay import any_mode, play
from support.memory import memory_server
from support.server_proc import CLI, ServerProcess, player_env, tables


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=env)


def test_a_postgres_server_keeps_its_games_in_the_database_and_replay_reads_them(tmp_path, pg_url, monkeypatch):
    data = tmp_path / "server"
    server = ServerProcess(data, args=("--store", pg_url)).start()
    try:
        assert "the PostgreSQL database" in server.lines[0] and str(data) not in server.lines[0]
        made = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--bots", "1", "--bot", "random",
                      "--bot-delay", "0", home=tmp_path / "ada")
        joined = _cli("join", server.address, "--table", made["id"], "--headless", "--bot", "random", "--name", "Ada", "--json",
                      env=player_env(tmp_path / "ada"))
        assert joined.returncode == 0, joined.stderr
        summary = json.loads(joined.stdout)
    finally:
        code, out, err = server.stop()
    assert code == 0, err
    assert list((data / "tables").iterdir()) == []  # no save file: the machines of a database share no folder
    replayed = _cli("replay", "--store", pg_url, made["id"], "--verify", "--json", "--export", str(tmp_path / "out.save"))
    assert replayed.returncode == 0, replayed.stderr
    doc = json.loads(replayed.stdout)
    assert doc["verified"] and doc["dice"] == "verified" and doc["hash"] == summary["final_hash"]
    assert doc["header"]["table"] == made["id"] and doc["header"]["outcome"] in ("won", "lost")
    exported = load(tmp_path / "out.save")  # the export is a save like any other
    assert verify(exported).state_hash() == summary["final_hash"]

    monkeypatch.setenv("CTHULHU_STORE", pg_url)  # the store named by the environment only, this time
    again = ServerProcess(tmp_path / "elsewhere").start()
    try:
        assert [t["id"] for t in tables(again.address, home=tmp_path / "cy")] == [made["id"]]
    finally:
        assert again.stop()[0] == 0


def test_a_postgres_store_of_a_newer_cthulhu_is_one_line_and_exit_2(tmp_path, pg_url):
    PostgresStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("UPDATE cthulhu_schema SET version = 99")
    result = _cli("server", "--data", str(tmp_path / "server"), "--port", "0", "--store", pg_url)
    assert result.returncode == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert f"newer cthulhu (schema version 99, this one knows {SCHEMA_VERSION})" in result.stderr
    refused = _cli("server", "--data", str(tmp_path / "server"), "--port", "0", "--store", "mysql://somewhere/db")
    assert refused.returncode == 2 and "postgresql:// URL" in refused.stderr and refused.stderr.count("\n") == 1


# -- migrating a SQLite server --------------------------------------------------------------------


def _sqlite_server(data: Path, tables: int) -> None:
    """A SQLite server's folder made by the store's own calls: `tables` tables, each with a real
    game's save (random bots, a few to a few dozen steps), a few archived, seats, identities (one
    merged into another), what each saw, a link code and a setting."""
    folder = data / "tables"
    folder.mkdir(parents=True)
    store = SqliteStore(data / "server.db")
    changes = Changes()
    changes.settings["name"] = "club"
    changes.identities["i1"] = Identity("i1", "hash-1", "Ada", "2025-01-01T00:00:00+00:00", "2025-01-02T00:00:00+00:00")
    changes.identities["i2"] = Identity("i2", "hash-2", "Bea", "2025-01-01T00:00:00+00:00", "2025-01-02T00:00:00+00:00", merged_into="i1")
    for n in range(tables):
        table_id = f"t{n:03d}"
        setup = Setup(mode=any_mode(), seed=1000 + n, players=2)
        game = Game.new(setup)
        writer = SaveWriter(folder / f"{table_id}.save", game, autosave=False, fsync=False)
        writer.table = table_id
        play(game, writer.append, steps=3 + n % 30, bot_seed=n)
        writer.write()
        writer.close()
        changes.tables[table_id] = TableRecord(
            id=table_id, mode=setup.mode, spec=TableSpec.of_kept(setup.model_dump(mode="json"), {"bots": {"1": "random"}, "pace": {"kind": "live"}}),
            created=f"2025-01-01T00:{n // 60:02d}:{n % 60:02d}+00:00", save=f"{table_id}.save", created_by="i1", private=n % 7 == 0,
            code="c0de" if n % 7 == 0 else None, seats=[{"seat": 0, "name": "Ada", "status": "away"}, {"seat": 1, "name": "random bot", "status": "bot"}],
            step=game.step, finished=game.outcome is not None, outcome=game.outcome, updated="2025-01-03T00:00:00+00:00",
            archived="2025-02-01T00:00:00+00:00" if n % 25 == 0 else None)
        changes.link(SeatLink(table_id, 0, "i1", "2025-01-01T00:00:00+00:00"))
        changes.seen[("i1", table_id)] = Seen("i1", table_id, game.step, "2025-01-03T00:00:00+00:00")
    store.commit(changes)
    store.close()


def _everything(store) -> tuple:
    loaded = store.load()
    return (loaded.tables, sorted(loaded.identities, key=lambda i: i.id), sorted(loaded.links, key=lambda link: link.table),
            sorted(loaded.seen, key=lambda s: s.table), loaded.settings, loaded.codes, store.archived())


def test_a_sqlite_server_of_100_tables_migrates_into_postgres_and_every_table_replays_there(tmp_path, pg_url):
    data = tmp_path / "server"
    _sqlite_server(data, 100)
    files = {p.name: p.read_bytes() for p in (data / "tables").iterdir()}
    result = _cli("server", "--data", str(data), "--migrate-to", pg_url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("replays from the database to its hashes") == 100
    assert "Migrated" in result.stdout and "100 tables (100 saves" in result.stdout
    source, target = SqliteStore(data / "server.db"), PostgresStore(pg_url)
    try:
        assert _everything(target) == _everything(source)  # every record as it was, archived ones included
        assert len(target.archived()) == 4
        for name, kept in files.items():
            assert target.shelf(name.removesuffix(".save")).read() == kept
    finally:
        source.close()
        target.close()
    assert {p.name: p.read_bytes() for p in (data / "tables").iterdir()} == files  # the SQLite folder is only read

    again = _cli("server", "--data", str(data), "--migrate-to", pg_url)  # a database that holds a server is not merged into
    assert again.returncode == 2 and "holds a server already" in again.stderr and again.stderr.count("\n") == 1

    async def carry_on() -> None:
        async with memory_server(tmp_path / "elsewhere", store_url=pg_url) as ms:  # another machine: no folder in common
            table = next(t for t in ms.server.tables.values() if not t.record.finished and not t.record.private)
            peer = await ms.peer(table.id, "Cy")
            assert peer.session.closed is None and peer.session.seat == 0
            assert table.host is not None and table.host.game.step == table.record.step > 0  # opened from its steps in the database
    trio.run(carry_on, clock=trio.testing.MockClock(autojump_threshold=0.05))


def test_a_save_that_does_not_replay_stops_the_migration_and_nothing_is_copied(tmp_path, pg_url):
    data = tmp_path / "server"
    _sqlite_server(data, 3)
    damaged = data / "tables" / "t001.save"
    damaged.write_bytes(damaged.read_bytes()[:-40] + bytes(40))
    result = _cli("server", "--data", str(data), "--migrate-to", pg_url)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "t001" in result.stderr and "nothing was copied" in result.stderr
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT count(*) FROM tables").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM steps").fetchone() == (0,)


@pytest.mark.parametrize("option", ["--store", "--migrate-to"])
def test_a_store_that_is_no_postgresql_url_is_refused_in_one_line(tmp_path, option):
    result = _cli("server", "--data", str(tmp_path / "server"), "--port", "0", option, str(tmp_path / "server.db"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "postgresql://" in result.stderr


def test_rebuild_is_for_the_save_files_of_a_sqlite_folder(tmp_path, pg_url):
    (tmp_path / "server" / "tables").mkdir(parents=True)
    result = _cli("server", "--data", str(tmp_path / "server"), "--store", pg_url, "--rebuild")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "a PostgreSQL store keeps its saves itself" in result.stderr
