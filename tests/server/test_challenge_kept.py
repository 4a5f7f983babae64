"""A challenge try's save is kept by the server (SQLite and PostgreSQL alike), so a record can be
replayed later: `cthulhu replay --store WHERE CHALLENGE:PLACE` (or `:NAME`) reads it back as it
was sent, verifies it and exports it; a try entered before the server kept them is said so in one
line."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone

import pytest
import trio

from cthulhu.net.lobbyclient import open_lobby
from cthulhu.net.messages import Entered
from cthulhu.savegame import decode, load, release
from cthulhu.server import open_server
from cthulhu.server.sqlite import SqliteStore

from support.challenge_saves import save_bytes, today

NOON = datetime(2026, 12, 5, 12, 0, tzinfo=timezone.utc)
CLI = [sys.executable, "-m", "cthulhu.cli"]


def _replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "replay", *args], capture_output=True, text=True, timeout=300, env={"COLUMNS": "400", "PATH": ""})


def _submit(data, store_url, tries) -> None:
    async def main() -> None:
        server = open_server(data, wall=lambda: NOON, store_url=store_url)
        try:
            async with trio.open_nursery() as nursery:
                port = await nursery.start(server.serve, 0, "127.0.0.1")
                for name, save in tries:
                    async with open_lobby("127.0.0.1", port, name, ident=f"key-{name}") as lobby:
                        assert isinstance(await lobby.submit(today().id, save), Entered)
                nursery.cancel_scope.cancel()
        finally:
            server.store.close()
            release(data / "server.db")

    trio.run(main)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_try_s_save_is_kept_and_replay_store_reads_it_back(tmp_path, kind, request):
    day = today()
    won = save_bytes(day, "won", tmp_path, name="Ada")
    lost = save_bytes(day, "lost", tmp_path, name="Bob")
    data = tmp_path / "data"
    url = request.getfixturevalue("pg_url") if kind == "postgres" else None
    _submit(data, url, [("Bob", lost), ("Ada", won)])
    where = url or str(data)

    first = _replay("--store", where, f"{day.id}:1", "--verify", "--json", "--export", str(tmp_path / "first.save"))
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert doc["verified"] and doc["dice"] == "verified" and doc["header"]["outcome"] == "won"
    assert (tmp_path / "first.save").read_bytes() == won  # as it was sent: the same bytes
    assert doc["hash"] == load(tmp_path / "first.save").hash_at(decode(won).last_step)

    bob = _replay("--store", where, f"{day.id}:Bob", "--stats", "--json")
    assert bob.returncode == 0, bob.stderr
    assert json.loads(bob.stdout)["luck"]["steps"] == decode(lost).last_step

    told = _replay("--store", where, f"{day.id}:2")
    assert told.returncode == 0 and "Lost" in told.stdout, told

    for name, why in ((f"{day.id}:3", f"{day.id}'s board has places 1 to 2"), (f"{day.id}:Cy", f"no tries at {day.id} were sent by Cy"),
                      ("daily-2026-12-04:1", "the server keeps no try at daily-2026-12-04")):
        refused = _replay("--store", where, name)
        assert refused.returncode == 2 and refused.stderr == f"cthulhu replay: error: {name}: {why}\n", refused.stderr


def test_a_try_entered_before_the_saves_were_kept_is_said_so(tmp_path):
    day = today()
    data = tmp_path / "data"
    old = SqliteStore(data / "server.db", upto=8)  # a server from before schema 9
    old.db.execute("INSERT INTO identities (id, key_hash, name, created, last_seen) VALUES ('i1', 'h1', 'Ada', 'x', 'x')")
    old.db.execute("INSERT INTO challenge_entries (challenge, identity_id, name, outcome, won, turns, rerolls, steps, bots, at) "
                   "VALUES (?, 'i1', 'Ada', 'won', 1, 5, 0, 40, 0, 'x')", (day.id,))
    old.close()
    SqliteStore(data / "server.db").close()  # the server started once since: migrated, the entry kept
    with sqlite3.connect(data / "server.db") as db:
        assert db.execute("SELECT name, save FROM challenge_entries").fetchall() == [("Ada", None)]
    refused = _replay("--store", str(data), f"{day.id}:Ada")
    assert refused.returncode == 2
    assert refused.stderr == f"cthulhu replay: error: {day.id}:Ada: that try was entered before the server kept the tries' saves\n"
    table = _replay("--store", str(data), "t001")
    assert table.returncode == 2 and f"cthulhu replay {data}/tables/t001.save" in table.stderr
