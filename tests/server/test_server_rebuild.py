"""A server whose `server.db` was lost (issue 36 item 4): refused in one line, and `--rebuild`
lists its tables again from their saves. Real `cthulhu server` processes on a data folder on disk."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from cthulhu.server import SqliteStore

from support.server_proc import CLI, ServerProcess, tables


def _server(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "server", "--data", str(data), "--port", "0", *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def _records(data: Path) -> dict[str, object]:
    store = SqliteStore(data / "server.db")
    try:
        return {r.id: r for r in store.load().tables}
    finally:
        store.close()


def _lose_database(data: Path, how: str) -> None:
    for side in ("server.db-wal", "server.db-shm"):
        (data / side).unlink(missing_ok=True)
    if how == "empty":
        (data / "server.db").write_bytes(b"")
    else:
        (data / "server.db").unlink()


def _played_tables(data: Path, home: Path) -> dict[str, object]:
    """Two tables of a real server, one played a few steps by its bots; their records as stored."""
    server = ServerProcess(data).start()
    try:
        played = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--bots", "2", "--bot-delay", "0", home=home)
        tables(server.address, "--create", "--mode", "shamblers", "--seats", "3", "--bots", "1", home=home)
        deadline = time.monotonic() + 60
        while next(r for r in tables(server.address, home=home) if r["id"] == played["id"])["step"] < 3:
            assert time.monotonic() < deadline, "the bots made no moves"
            time.sleep(0.2)
    finally:
        code, _, err = server.stop()
    assert code == 0, err
    return _records(data)


def test_an_empty_or_missing_database_beside_saves_is_refused_and_rebuild_lists_the_tables_again(tmp_path):
    data = tmp_path / "server"
    before = _played_tables(data, tmp_path / "ann")
    assert len(before) == 2

    for how in ("empty", "missing"):
        _lose_database(data, how)
        refused = _server(data)
        assert refused.returncode == 2, refused
        [line] = refused.stderr.splitlines()
        assert f"is {how}" in line and "holds 2 table saves" in line and "--rebuild" in line, line
        assert "Server:" not in refused.stdout
        assert sorted(p.name for p in (data / "tables").iterdir() if p.suffix == ".save") == sorted(f"{i}.save" for i in before)

    (data / "tables" / "zzz-junk.save").write_bytes(b"not a save at all")
    _lose_database(data, "empty")
    rebuilt = _server(data, "--rebuild")
    assert rebuilt.returncode == 0, rebuilt
    lines = rebuilt.stdout.splitlines()
    assert sum(line.startswith("listed  ") for line in lines) == 2, lines
    assert [line for line in lines if line.startswith("skipped ")] == [lines[2]] and "zzz-junk.save" in lines[2], lines
    assert "2 tables listed, 1 skipped" in lines[-1], lines

    after = _records(data)
    assert set(after) == set(before)
    for table_id, old in before.items():
        new = after[table_id]
        for name in ("mode", "setup", "save", "step", "finished", "outcome", "to_move", "created", "about"):
            assert getattr(new, name) == getattr(old, name), (name, getattr(new, name), getattr(old, name))
        assert new.spec.bots == old.spec.bots
        assert [(s["seat"], s["status"]) for s in new.seats] == [(s["seat"], "away" if s["status"] == "person" else s["status"]) for s in old.seats]
        assert new.private and new.code and new.code in rebuilt.stdout  # its old code is not in its save: a new one, printed

    again = _server(data, "--rebuild")  # a database that lists tables is never overwritten
    assert again.returncode == 2 and "lists 2 tables already" in again.stderr and len(again.stderr.splitlines()) == 1, again
    assert _records(data).keys() == before.keys()

    server = ServerProcess(data).start()
    try:
        assert server.lines[0].startswith("Server:     cthulhu, 2 tables"), server.lines
    finally:
        code, _, err = server.stop()
    assert code == 0, err


def test_an_empty_database_with_no_saves_is_a_new_server(tmp_path):
    data = tmp_path / "server"
    (data / "tables").mkdir(parents=True)
    (data / "server.db").write_bytes(b"")
    server = ServerProcess(data).start()
    try:
        assert server.lines[0].startswith("Server:     cthulhu, 0 tables"), server.lines
    finally:
        code, _, err = server.stop()
    assert code == 0, err
