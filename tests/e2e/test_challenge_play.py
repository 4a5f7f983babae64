"""`cthulhu challenge` plays the day's challenge in the game interface, in a real terminal: the
title screen skipped, the game the challenge's (its seed on screen), saved under the challenge's
name, and the line that says how to send it as a try printed once the app is gone."""

from __future__ import annotations

import os
import time

from support.pty_term import CLI, SAFETY, PtyTerm

from cthulhu.savegame import load

from support.challenge_saves import DAY, today


def test_the_challenge_is_played_and_saved_under_its_name(tmp_path):
    saves = tmp_path / "saves"
    wanted = today()
    with PtyTerm([*CLI, "challenge", "--date", DAY.isoformat(), "--saves", str(saves)], cols=100, rows=30) as term:
        term.wait_for(f"seed {wanted.setup.seed}".encode())
        term.wait_for(b"Shamblers (Hard)")
        term.settle()
        term.send("1")  # a first decision (a game nobody has moved in is not saved: the same choices make it again)
        term.settle()
        mark = term.send("q")
        term.wait_for(b"Quit the game?", since=mark)
        term.send("y")  # save and quit
        end = time.monotonic() + SAFETY
        while term.status is None:
            assert time.monotonic() < end, bytes(term.data[-300:])
            pid, status = os.waitpid(term.pid, os.WNOHANG)
            if pid:
                term.status = os.waitstatus_to_exitcode(status)
            term._read(0.05)
        while term._read(0.1):
            pass
    assert term.status == 0
    path = saves / f"challenge-{wanted.id}.save"
    assert load(path).setup == wanted.setup
    said = " ".join(bytes(term.data).decode(errors="replace").split())
    assert f"Your game of {wanted.id} is saved in {path}; send it as your try with: cthulhu challenge HOST --submit {path}" in said
