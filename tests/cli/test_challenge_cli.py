"""The challenge and the records from the command line, as real processes at a real `cthulhu
server`: `challenge --show`, `challenge HOST --submit FILE` (once; a forged save refused in one
line), `challenge HOST --board --json` and `challenge HOST --json`; `records HOST --json` after a
game played to its end at a table; `challenge` without a terminal says so."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timezone

from cthulhu.savegame.challenge import challenge

from support.challenge_saves import edited, save_bytes, wait_counted
from support.server_proc import CLI, ServerProcess, player_env, tables
from test_cli_headless import assert_headless, run as run_timed


def _run(home, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=player_env(home))


def test_a_try_from_the_command_line_and_the_board_and_the_records(tmp_path):
    today = challenge("daily", datetime.now(timezone.utc).date())
    shown = _run(tmp_path / "ada", "challenge", "--show", "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["id"] == today.id and json.loads(shown.stdout)["seed"] == today.setup.seed
    headless = _run(tmp_path / "ada", "challenge")
    assert headless.returncode == 2 and headless.stderr == "cthulhu challenge: playing needs a terminal; --show prints the challenge\n"
    for args in (("challenge", "--show"), ("challenge",)):  # what needs no interface imports none
        assert_headless(run_timed(*args, timeout=300))
    save = tmp_path / "mine.save"
    save.write_bytes(save_bytes(today, None, tmp_path, name="Ada"))  # today's game, won or lost
    forged = tmp_path / "forged.save"

    def cut(fields):
        fields["steps"] = fields["steps"][:3]
        fields["snapshots"] = {k: v for k, v in fields["snapshots"].items() if k <= 3}
        fields["header"].update(step=3, outcome="won")

    forged.write_bytes(edited(save.read_bytes(), cut))
    server = ServerProcess(tmp_path / "data").start()
    try:
        address = server.address
        refused = _run(tmp_path / "bob", "challenge", address, "--submit", str(forged), "--name", "Bob")
        assert refused.returncode == 2 and refused.stderr == (
            "cthulhu challenge: the server refused your try: refused: the game is not over at its last step (3), "
            "though the save says it was won (forged)\n"), refused.stderr
        sent = _run(tmp_path / "ada", "challenge", address, "--submit", str(save), "--name", "Ada")
        assert sent.returncode == 0, sent.stderr
        assert sent.stdout.startswith(f"Your try at {today.id} is verified and ranked 1: "), sent.stdout
        again = _run(tmp_path / "ada", "challenge", address, "--submit", str(save))
        assert again.returncode == 2 and "you have had your try" in again.stderr and again.stderr.count("\n") == 1
        board = _run(tmp_path / "bob", "challenge", address, "--board", "--json")
        assert board.returncode == 0, board.stderr
        assert [(r["rank"], r["name"]) for r in json.loads(board.stdout)["rows"]] == [(1, "Ada")]
        listed = json.loads(_run(tmp_path / "ada", "challenge", address, "--json").stdout)
        mine = next(row for row in listed if row["id"] == today.id)
        assert mine["entries"] == 1 and mine["mine"]["name"] == "Ada" and mine["seed"] == today.setup.seed
        assert json.loads(_run(tmp_path / "ada", "records", address, "--json").stdout) == {"rows": [], "refused": 0}
        assert_headless(run_timed("records", address, timeout=300))
        assert_headless(run_timed("challenge", address, "--board", timeout=300))
        made = tables(address, "--create", "--mode", "shamblers", "--difficulty", "easy", "--seats", "1", home=tmp_path / "cy")
        played = _run(tmp_path / "cy", "join", address, "--table", made["id"], "--headless", "--bot", "random", "--name", "cy")
        assert played.returncode == 0, played.stderr
        wait_counted(server.port)
        records = json.loads(_run(tmp_path / "cy", "records", address, "--json").stdout)
        [row] = records["rows"]
        assert (row["mode"], row["setup"], row["players"], row["bots"], row["games"]) == ("shamblers", {"difficulty": "easy"}, 1, False, 1)
        assert row["wins"] in (0, 1) and (row["fastest"] is None) == (row["wins"] == 0) and row["teams"] in ([], [["cy"]])
        text = _run(tmp_path / "cy", "records", address)
        assert text.stdout.startswith("Shamblers: Easy (1 player): 1 game, "), text.stdout
    finally:
        server.stop()
