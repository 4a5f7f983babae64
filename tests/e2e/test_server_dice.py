"""Issue 34's repro end to end: a real `cthulhu server` (port 0, a SQLite data folder), a turn-based
table of two made by `cthulhu tables --create --turn-time 1s --bot-delay 0`, one player who plays
(`cthulhu join --headless --bot random --json`) and one who sits down in the interface (a real
terminal, tmux) and presses nothing. His clock runs out, stand-ins decide for him while both are
connected, and both are told at the end that every roll was verified."""

from __future__ import annotations

import json
import subprocess

from cthulhu.savegame import load

from support.server_proc import CLI, ServerProcess, player_env, tables
from support.tmux_term import Terminal

SAFETY = 240.0  # seconds of real time before a wait counts as a failure (never a measurement)


def test_a_table_where_stand_ins_decided_is_verified_by_the_joiner_and_by_the_interface(tmp_path):
    server = ServerProcess(tmp_path / "data").start()
    ann, bob = tmp_path / "ann", tmp_path / "bob"
    joiner = None
    try:
        made = tables(server.address, "--create", "--seats", "2", "--turn-time", "1s", "--bot-delay", "0", home=ann)
        joiner = subprocess.Popen([*CLI, "join", server.address, "--table", made["id"], "--headless", "--bot", "random", "--json", "--name", "Ann"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=player_env(ann))
        with Terminal([*CLI, "join", server.address, "--table", made["id"], "--name", "Bob"], env=player_env(bob)) as term:
            out, err = joiner.communicate(timeout=SAFETY)
            assert joiner.returncode == 0, err
            summary = json.loads(out)
            assert summary["dice"] == "verified", summary
            assert summary["outcome"] is not None and "every roll verified" in summary["dice_detail"]
            term.wait_for("every roll verified", timeout=SAFETY)  # the interface's game-over dialog (and its Log)
            assert "NOT verified" not in term.output()
        save = load(server.data / "tables" / f"{made['id']}.save")
        bob_seat = 1 - (summary["seat"] - 1)  # (join --json numbers seats from 1)
        stood_in = [k for k in save.header.sealed if save.steps[k - 1].seat == bob_seat]
        assert stood_in, "no stand-in ever decided for the silent seat"
    finally:
        if joiner is not None and joiner.poll() is None:
            joiner.terminate()
            joiner.wait(10)
        code, _out, err = server.stop()
        assert code == 0, err
