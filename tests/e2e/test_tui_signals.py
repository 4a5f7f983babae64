"""A plain `kill` (SIGTERM), a hang-up (SIGHUP: an SSH window closed) or an interrupt (SIGINT) ends
the interface as ctrl+q does: the terminal's settings as they were (`stty -a` before and after the
same), the game's screen left, and the save holding the last step. In a real pseudo-terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from support.pty_term import CLI, SAFETY, PtyTerm

from support.tui_drive import SEED

from cthulhu.savegame import load

SIGNALS = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT]


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def shell(tmp: Path, program: list[str]) -> list[str]:
    """`program` run by a shell in the terminal, with `stty -a` written before and after it."""
    quoted = " ".join("'" + part.replace("'", "'\\''") + "'" for part in program)
    return ["sh", "-c", f"stty -a > {tmp}/before; {quoted}; echo $? > {tmp}/status; stty -a > {tmp}/after"]


def wait_for_file(path: Path, term: PtyTerm) -> str:
    end = time.monotonic() + SAFETY
    while not path.exists() or not path.read_text():
        assert time.monotonic() < end, f"{path.name} never written; last output: {bytes(term.data[-300:])!r}"
        term._read(0.05)
    return path.read_text()


def play_a_step(term: PtyTerm) -> None:
    """The first option (Run), then wait for the table to answer."""
    term.wait_for(b"End actions")
    mark = term.send("1")
    term.wait_for(b"runs:", since=mark)
    term.settle()


def interface(tmp: Path, kind: str) -> tuple[list[str], Path | None]:
    saves = tmp / "saves"
    if kind == "play":
        return [*CLI, "play", "--start", "--seed", str(SEED), "--saves", str(saves)], saves
    if kind == "host":
        return [*CLI, "host", "--port", "0", "--seats", "1", "--seed", str(SEED), "--saves", str(saves), "--name", "Ann"], saves
    example = Path(__file__).resolve().parents[2] / "saves" / "example-midgame-main.save"
    return [*CLI, "replay", str(example), "--tui"], None


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("kind", ["play", "host"])
def test_a_signal_ends_the_game_like_ctrl_q(tmp_path, kind, signum):
    program, saves = interface(tmp_path, kind)
    with PtyTerm(shell(tmp_path, program), cols=80, rows=24) as term:
        play_a_step(term)
        (app,) = children(term.pid)
        mark = len(term.data)
        os.kill(app, signum)
        after = wait_for_file(tmp_path / "after", term)
        before = (tmp_path / "before").read_text()
        assert after == before  # raw mode, echo and the rest: all given back
        left = bytes(term.data[mark:])
        assert b"\x1b[?1049l" in left, left[-300:]  # out of the game's screen
        assert b"Traceback" not in term.data
        assert (tmp_path / "status").read_text().strip() == "0"
    (save,) = saves.glob("*.save")
    assert load(save).last_step == 1  # the step played is in the save


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: signal.Signals(s).name)
def test_a_signal_ends_a_joiner_like_ctrl_q(tmp_path, signum):
    save = tmp_path / "table.save"
    host = subprocess.Popen([*CLI, "host", "--headless", "--port", "0", "--seats", "1", "--seed", str(SEED), "--save", str(save)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        join = next(line.split()[4:] for line in iter(host.stdout.readline, "") if line.startswith("Join with:"))  # ADDRESS --code CODE
        with PtyTerm(shell(tmp_path, [*CLI, "join", *join, "--name", "Bob"]), cols=80, rows=24) as term:
            play_a_step(term)
            (app,) = children(term.pid)
            os.kill(app, signum)
            assert wait_for_file(tmp_path / "after", term) == (tmp_path / "before").read_text()
            assert b"Traceback" not in term.data and (tmp_path / "status").read_text().strip() == "0"
            assert b"Your seat waits for you; come back with: cthulhu join" in term.data  # as after ctrl+q
        assert load(save).last_step == 1  # the host saved the step played
    finally:
        host.kill()
        host.communicate()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: signal.Signals(s).name)
def test_a_signal_ends_the_replay_viewer_like_q(tmp_path, signum):
    program, _ = interface(tmp_path, "replay")
    with PtyTerm(shell(tmp_path, program), cols=80, rows=24) as term:
        term.wait_for(b"Replay: step")
        term.settle()
        (app,) = children(term.pid)
        os.kill(app, signum)
        assert wait_for_file(tmp_path / "after", term) == (tmp_path / "before").read_text()
        assert b"Traceback" not in term.data


def test_a_closed_terminal_ends_the_game_and_keeps_the_last_step(tmp_path):
    """The window closes (the terminal's master side goes away: a real hang-up): the game is saved
    and the process ends by itself."""
    program, saves = interface(tmp_path, "play")
    term = PtyTerm(program, cols=80, rows=24)
    play_a_step(term)
    os.close(term.fd)
    end = time.monotonic() + SAFETY
    while True:
        pid, status = os.waitpid(term.pid, os.WNOHANG)
        if pid:
            break
        assert time.monotonic() < end, "the game went on with nobody at its terminal"
        time.sleep(0.05)
    term.status = 0
    (save,) = saves.glob("*.save")
    assert load(save).last_step == 1


TYPED_AHEAD = "127.0.0.1:17802 --name Idle\r"  # the next shell command, typed while the app is still leaving


def test_keys_typed_ahead_of_a_quitting_joiner_are_ignored(tmp_path):
    """The host closes the table; the joiner presses q and at once types their next command. The app
    quits (the QuitScreen's n) and the keys after it (':' the palette, 'a' the odds) open nothing: no
    dialog mounted on an app being taken down, no traceback, the terminal given back."""
    save = tmp_path / "table.save"
    host = subprocess.Popen([*CLI, "host", "--headless", "--port", "0", "--seats", "1", "--seed", str(SEED), "--save", str(save)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        join = next(line.split()[4:] for line in iter(host.stdout.readline, "") if line.startswith("Join with:"))  # ADDRESS --code CODE
        with PtyTerm(shell(tmp_path, [*CLI, "join", *join, "--name", "Bob"]), cols=80, rows=24) as term:
            term.wait_for(b"End actions")
            host.send_signal(signal.SIGTERM)
            term.wait_for(b"(q quits)")
            term.settle()
            term.send("q" + TYPED_AHEAD)
            assert wait_for_file(tmp_path / "after", term) == (tmp_path / "before").read_text()
            assert b"Traceback" not in term.data and b"NoMatches" not in term.data, bytes(term.data[-600:])
            assert (tmp_path / "status").read_text().strip() == "0"
    finally:
        host.kill()
        host.communicate()


def test_keys_typed_ahead_of_a_quitting_game_are_ignored(tmp_path):
    """`cthulhu play`: q, then y (save and quit) and the next command typed at once: its '1' plays
    no option, its ':' opens no command palette."""
    program, saves = interface(tmp_path, "play")
    with PtyTerm(shell(tmp_path, program), cols=80, rows=24) as term:
        play_a_step(term)
        term.wait_for(b"Quit the game?", since=term.send("q"))
        term.send("y" + TYPED_AHEAD)
        assert wait_for_file(tmp_path / "after", term) == (tmp_path / "before").read_text()
        assert b"Traceback" not in term.data and b"NoMatches" not in term.data, bytes(term.data[-600:])
        assert (tmp_path / "status").read_text().strip() == "0"
    (save,) = saves.glob("*.save")
    assert load(save).last_step == 1
