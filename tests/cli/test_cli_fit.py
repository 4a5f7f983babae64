"""Issue 35: the command line's output fits the terminal it is given (COLUMNS), wrapped at spaces and
never inside a word, and follows the conventions: `--version`, every option's default in `--help`,
one JSON document per `--json`. Real `cthulhu` processes, as a player or a script runs them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "cthulhu.cli"]
SAVES = Path(__file__).resolve().parents[2] / "saves"


def run(*args: str, columns: int = 80) -> str:
    env = {**os.environ, "COLUMNS": str(columns)}
    result = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def assert_fits(out: str, columns: int) -> None:
    long = [line for line in out.splitlines() if len(line) > columns]
    assert not long, long


def test_version_is_the_installed_one():
    assert run("--version").strip() == f"cthulhu {metadata.version('cthulhu')}"


@pytest.mark.parametrize("command, option, default", [("host", "--port", "7777"), ("host", "--bind", "127.0.0.1"), ("host", "--seats", "4"),
                                                       ("server", "--port", "7777"), ("server", "--bind", "127.0.0.1"),
                                                       ("tables", "--seats", "4"), ("play", "--players", "1")])
def test_help_gives_every_options_default(command: str, option: str, default: str):
    lines = run(command, "--help").split("options:", 1)[1].splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"  {option} "))
    end = next((n for n in range(start + 1, len(lines)) if lines[n].startswith("  -")), len(lines))
    about = " ".join(" ".join(lines[start:end]).split())  # the option's own help, over its lines
    assert f"(default {default})" in about, about


@pytest.mark.parametrize("columns", [80, 120])
def test_saves_fit_the_terminal_with_short_dates(columns: int):
    out = run("saves", "--saves", str(SAVES), columns=columns)
    assert_fits(out, columns)
    assert "2026-01-01" in out and "00:00:00" not in out  # a date, not a timestamp to the second
    for name in ("example-won-main.save", "example-fresh-shamblers.save"):
        assert any(line.split()[:1] == [name] for line in out.splitlines()), name  # whole, at the start of its line
    assert sum("The Wexley Mill Fire / Hastur" in line for line in out.splitlines()) == 3  # never cut over two lines


def test_saves_json_is_one_document_with_ids_beside_names():
    rows = json.loads(run("saves", "--saves", str(SAVES), "--json"))
    assert isinstance(rows, list) and len(rows) == 5
    won = next(r for r in rows if r["file"] == "example-won-main.save")
    assert won["setup"]["episode"] == "The Wexley Mill Fire" and won["setup_ids"]["episode"] == "wexley_mill"


@pytest.mark.parametrize("columns", [60, 80])
def test_replay_wraps_at_spaces_to_the_terminal(columns: int):
    wide = run("replay", str(SAVES / "example-won-main.save"), "--verify", columns=1000)
    out = run("replay", str(SAVES / "example-won-main.save"), "--verify", columns=columns)
    assert_fits(out, columns)
    assert out.split() == wide.split()  # the same words, none cut: only the line breaks moved
    assert "2026-01-01 00:00:00 UTC." in " ".join(line.strip() for line in out.splitlines())  # a date and its time kept together
    assert max(len(line) for line in wide.splitlines()) > columns  # there was something to wrap


def test_tables_create_says_back_the_pace_and_the_notify_address(tmp_path):
    from support.server_proc import ServerProcess, player_env

    server = ServerProcess(tmp_path / "server", args=("--notify-allow", "http://127.0.0.1:9/*")).start()
    try:
        env = {**player_env(tmp_path / "ann"), "COLUMNS": "80"}
        made = subprocess.run([*CLI, "tables", server.address, "--create", "--turn-time", "12h", "--on-timeout", "pause",
                               "--notify", "http://127.0.0.1:9/ann"], capture_output=True, text=True, timeout=60, env=env)
        assert made.returncode == 0, made.stderr
        assert "Pace: turn-based, 12h a move; out of time: pause." in made.stdout
        assert "Notify: http://127.0.0.1:9/ann when a player's move begins." in made.stdout
        assert_fits(made.stdout, 80)
        live = subprocess.run([*CLI, "tables", server.address, "--create", "--json"], capture_output=True, text=True, timeout=60, env=env)
        assert live.returncode == 0, live.stderr
        doc = json.loads(live.stdout)
        assert doc["pace"] == "live" and "notify" not in doc and doc["id"] in doc["join"]
        listed = json.loads(subprocess.run([*CLI, "tables", server.address, "--json"], capture_output=True, text=True, timeout=60,
                                           env=env, check=True).stdout)
        row = next(r for r in listed if r["id"] == doc["id"])  # ids where ids belong, the words beside them
        assert row["setup"]["episode"] == "wexley_mill" and row["about"].startswith("The Wexley Mill Fire")
    finally:
        assert server.stop()[0] == 0


def test_the_server_says_on_stop_how_many_tables_it_saved(tmp_path):
    from support.server_proc import LobbyPoll, ServerProcess, player_env

    server = ServerProcess(tmp_path / "server").start()
    joiner = None
    try:
        home = tmp_path / "ann"
        env = player_env(home)
        made = json.loads(subprocess.run([*CLI, "tables", server.address, "--create", "--mode", "shamblers", "--seats", "2", "--json"],
                                         capture_output=True, text=True, timeout=60, env=env, check=True).stdout)
        joiner = subprocess.Popen([*CLI, "join", server.address, "--table", made["id"], "--bot", "heuristic", "--headless"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        poll = LobbyPoll(server.address, home)
        try:
            for _ in range(3000):  # until the table is open: the bot sat down (the game waits for the second seat)
                if poll.rows()[made["id"]].seats[0].status == "person":
                    break
                time.sleep(0.02)
            else:
                raise AssertionError("the table never opened")
        finally:
            poll.close()
    finally:
        code, out, err = server.stop()
        if joiner is not None:
            joiner.kill()
            joiner.communicate()
    assert code == 0, err
    assert f"Stopped: 1 open table saved; every table's save is in {tmp_path / 'server'}" in out, out
