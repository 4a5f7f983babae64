"""A real `cthulhu server` with its SQLite database on disk (or its PostgreSQL database, saves
included): tables made with `cthulhu tables --create`, real `cthulhu join` bots playing several
tables at once to their ends, a `kill -9` in the middle of play and a restart, after which every
table, seat, name and "my tables" is back, every joiner is back by itself, and every save
verifies. A damaged or newer database: one line, exit 2, nothing overwritten."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
from pathlib import Path

from cthulhu.savegame import verify

from support.memory import kept_save
from support.server_proc import CLI, LobbyPoll, ServerProcess, player_env, tables


def _wait(predicate, timeout: float = 60.0, every: float = 0.2):
    """Poll a real process's state (not a timing assertion: the deadline only stops a hung test)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("gave up waiting")


def test_tables_played_to_their_ends_through_a_kill_9_and_a_restart(tmp_path, store_url):
    data = tmp_path / "server"
    server = ServerProcess(data, args=("--store", store_url) if store_url else ()).start()
    joins: list[subprocess.Popen[str]] = []
    try:
        homes = {name: tmp_path / name for name in ("ada", "bea", "cy")}
        made = {
            "ada": tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--bots", "1", "--bot", "random",
                          "--bot-delay", "0.3", "--name", "Ada", home=homes["ada"]),
            "bea": tables(server.address, "--create", "--mode", "main", "--episode", "kettle_moor", "--seats", "3", "--bots", "1",
                          "--bot", "random", "--bot-delay", "0.1", "--private", "--name", "Bea", home=homes["bea"]),
        }
        assert set(made["ada"]) == {"id", "join", "pace"} and set(made["bea"]) == {"id", "code", "join", "pace"}
        assert made["bea"]["join"] == f"cthulhu join {server.address} --table {made['bea']['id']} --code {made['bea']['code']}"

        def join(name: str, table: str, code: str | None) -> None:
            argv = [*CLI, "join", server.address, "--table", table, "--headless", "--bot", "random", "--name", name.title(), "--json"]
            joins.append(subprocess.Popen(argv + (["--code", code] if code else []), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True, env=player_env(homes[name])))

        poll = LobbyPoll(server.address, homes["bea"])

        def under_way(*tables: str):
            rows = poll.rows()
            return rows if all(3 <= rows[t].step and not rows[t].finished for t in tables) else None

        join("bea", made["bea"]["id"], made["bea"]["code"])
        join("cy", made["bea"]["id"], made["bea"]["code"])
        _wait(lambda: under_way(made["bea"]["id"]), every=0.02)  # the long game first, then the short one
        join("ada", made["ada"]["id"], None)
        before = _wait(lambda: under_way(made["ada"]["id"], made["bea"]["id"]), every=0.02)  # both going: everyone is seated
        poll.close()
        server.kill()  # mid-play: no goodbye, no last save
        saved = {t: kept_save(data, t, store_url).last_step for t in before}  # what survived it
        server.start()  # the same data, the same port

        after = {t["id"]: t for t in tables(server.address, home=homes["bea"])}
        assert set(after) == set(before)
        for table_id, row in after.items():  # every table and seat, and who holds it, by name
            assert (row["mode"], row["setup"]) == (before[table_id].mode, before[table_id].setup)
            assert [(s["seat"], s["name"]) for s in row["seats"]] == [(s.seat + 1, s.name) for s in before[table_id].seats]
            assert saved[table_id] >= before[table_id].step  # a step listed was told, so saved (the joiners,
            # back by themselves at once, may have played on since: the listing after the restart can be ahead of it)
        expected = {"ada": [made["ada"]["id"]], "bea": [made["bea"]["id"]], "cy": [made["bea"]["id"]]}
        for name, home in homes.items():
            assert [t["id"] for t in tables(server.address, "--mine", home=home)] == expected[name], name
        bea = after[made["bea"]["id"]]["seats"]
        assert sorted(s["name"] for s in bea[:2]) == ["Bea", "Cy"] and bea[2]["name"] == "random bot"  # whoever sat first

        outs = [j.communicate(timeout=300) for j in joins]  # each joiner came back by itself and played to the end
        assert [j.returncode for j in joins] == [0, 0, 0], [err for _, err in outs]
        summaries = [json.loads(out) for out, _ in outs]
        assert all(s["dice"] == "verified" for s in summaries), [s["dice_detail"] for s in summaries]
        assert all("Lost the connection" in err for _, err in outs), [err for _, err in outs]  # they did lose it, and did come back
        finished = {t["id"]: t for t in tables(server.address, home=homes["ada"])}
        assert all(finished[t]["finished"] for t in (made["ada"]["id"],))
        assert made["bea"]["id"] not in finished  # private: listed to its players only
        assert finished_for(server, homes["bea"], made["bea"]["id"])["finished"]
    finally:
        for j in joins:
            j.kill()
        code, out, err = server.stop()
    assert code == 0, err
    assert re.search(r"Stopped: \d+ open tables? saved; every table's save is in ", out), out
    for table_id in (made["ada"]["id"], made["bea"]["id"]):
        save = kept_save(data, table_id, store_url)
        verify(save)
        assert save.header.outcome in ("won", "lost") and save.header.table == table_id
    assert {s["final_hash"] for s in summaries[:2]} == {kept_save(data, made["bea"]["id"], store_url).steps[-1].hash}
    assert store_url is None or list((data / "tables").iterdir()) == []  # (in PostgreSQL: no file at all)


def finished_for(server: ServerProcess, home: Path, table_id: str) -> dict:
    return next(t for t in tables(server.address, "--mine", home=home) if t["id"] == table_id)


def _refused(data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "server", "--data", str(data), "--port", "0"], capture_output=True, text=True, timeout=60)


def test_a_damaged_database_is_one_line_and_exit_2_and_nothing_is_overwritten(tmp_path):
    data = tmp_path / "server"
    data.mkdir()
    (data / "server.db").write_bytes(b"\x00garbage, not SQLite" * 500)
    before = sorted((p.name, p.read_bytes()) for p in data.iterdir() if p.is_file())
    result = _refused(data)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("cthulhu server: the server's database")
    assert "left as it is" in result.stderr
    assert sorted((p.name, p.read_bytes()) for p in data.iterdir() if p.is_file() and not p.name.startswith(".")) == before


def test_a_database_of_a_newer_cthulhu_is_one_line_and_exit_2(tmp_path):
    data = tmp_path / "server"
    server = ServerProcess(data).start()
    tables(server.address, "--create", "--seats", "2", home=tmp_path / "ada")
    assert server.stop()[0] == 0
    db = sqlite3.connect(data / "server.db")
    db.execute("PRAGMA user_version=99")
    db.commit()
    db.close()
    before = (data / "server.db").read_bytes()
    result = _refused(data)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "newer cthulhu (schema version 99" in result.stderr
    assert (data / "server.db").read_bytes() == before


def test_one_server_per_data_folder(tmp_path):
    data = tmp_path / "server"
    server = ServerProcess(data).start()
    try:
        result = _refused(data)
    finally:
        server.stop()
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "is served already" in result.stderr
