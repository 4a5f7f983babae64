"""Playing together through real life, with real processes in real terminals (tmux):
a hosted game saved and carried on by name, a joiner whose terminal is killed and who runs the
same command again, and a host killed with SIGKILL and restarted while its joiners wait."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

from support.tmux_term import CLI, SAFETY, Terminal
from support.tui_drive import SEED

from cthulhu.net.delta import view_hash
from cthulhu.savegame import load, replay, seek

VIEW = re.compile(r"Your view: step (\d+), hash ([0-9a-f]{12})")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def table_dialog(term: Terminal) -> str:
    """What the table dialog (L) shows; it is closed again."""
    term.keys("L")
    shown = term.wait_for("Your view: step")
    term.keys("Escape")
    term.wait_for("Your view", gone=True)
    return shown


def seen_view(term: Terminal) -> tuple[int, str]:
    """(step, short view hash) from the table dialog."""
    m = VIEW.search(table_dialog(term))
    return int(m.group(1)), m.group(2)


def my_seat(term: Terminal) -> int:
    """The seat the table dialog marks "(you)", counted from 0 as the protocol does."""
    return int(re.search(r"(\d)  [^\n]*\(you\)", table_dialog(term)).group(1)) - 1


def view_at(save: Path, step: int, seat: int) -> str:
    return view_hash(seek(load(save), step).view(seat))[:12]


def step_of(term: Terminal) -> int:
    """The step the table is at, from the table dialog (the status line leaves steps out: they mean little to players)."""
    return seen_view(term)[0]


def press_first_option(term: Terminal, times: int) -> None:
    """Our seat's first option, `times` times (each press waits for the step it makes)."""
    for _ in range(times):
        step = step_of(term)
        term.wait_for(" 1  ")
        term.keys("1")
        deadline = time.monotonic() + SAFETY
        while step_of(term) <= step and time.monotonic() < deadline:
            time.sleep(0.05)


class HeadlessHost:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([*CLI, "host", "--headless", "--code", "owl", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = [self.proc.stdout.readline() for _ in range(3)]
        assert lines[1].startswith("Join with:"), (lines, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.address = lines[1].split()[4]
        self.listening = time.monotonic()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.communicate()


def test_a_hosted_game_saves_quits_and_carries_on_by_its_name(tmp_path):
    saves = tmp_path / "saves"
    host = [*CLI, "host", "--port", "0", "--seats", "1", "--seed", str(SEED), "--saves", str(saves), "--name", "Ann"]
    with Terminal(host) as term:
        term.wait_for("hosting on port")
        press_first_option(term, 2)
        term.keys("s")
        term.wait_for("Saved to")
        before = seen_view(term)
        term.keys("q")
        term.wait_for("Quit the game?", "cthulhu host --load")
        term.keys("y")
        assert term.exit_status() == 0
        (save,) = saves.glob("*.save")
        assert f"Carry the game on later with: cthulhu host --load {save}" in term.output()
    assert before == (2, view_at(save, 2, 0))
    listed = subprocess.run([*CLI, "saves", "--saves", str(saves)], capture_output=True, text=True, timeout=SAFETY)
    assert save.name in listed.stdout
    with Terminal([*CLI, "host", "--port", "0", "--saves", str(saves), "--name", "Ann", "--load", save.name]) as term:
        term.wait_for("hosting on port")
        assert seen_view(term) == before
        press_first_option(term, 1)  # the game goes on from there
        term.keys("C-q")
        assert term.exit_status() == 0
    assert load(save).last_step == 3


def test_a_joiner_whose_terminal_is_killed_runs_the_same_command_and_has_the_same_seat(tmp_path):
    save = tmp_path / "table.save"
    host = HeadlessHost("--port", "0", "--seats", "2", "--bots", "1", "--bot", "random", "--seed", str(SEED), "--save", str(save))
    join = [*CLI, "join", host.address, "--code", "owl", "--name", "Bob"]
    try:
        with Terminal(join) as term:
            term.wait_for("you play Ada Whitlock")
            press_first_option(term, 1)  # Run: mid-turn, moves still to make
            before = seen_view(term)
            term.kill(signal.SIGKILL)
        with Terminal(join) as term:
            term.wait_for("you play Ada Whitlock", "(your seat, kept on this machine)")
            assert seen_view(term) == before == (before[0], view_at(save, before[0], 0))
            press_first_option(term, 1)  # and the game goes on
            assert load(save).last_step == before[0] + 1
            term.keys("C-q")
            assert term.exit_status() == 0
            assert "Your seat waits for you; come back with: cthulhu join" in term.output()
    finally:
        host.kill()


def test_a_host_killed_mid_game_and_restarted_finds_every_joiner_back(tmp_path):
    save, port = tmp_path / "table.save", free_port()
    common = ["--port", str(port), "--save", str(save), "--bot", "random", "--bot-delay", "0.02"]
    host = HeadlessHost(*common, "--seats", "2", "--seed", str(SEED))
    bot = subprocess.Popen([*CLI, "join", host.address, "--code", "owl", "--bot", "random", "--headless", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first_line = bot.stderr.readline()  # the token as soon as the bot has a seat, long before the end
        seated = re.match(r"Seat (\d) \((Ada Whitlock|Mina Castellane)\); seat token (\S+); come back with: cthulhu join ", first_line)
        assert seated, first_line
        with Terminal([*CLI, "join", host.address, "--code", "owl", "--name", "Bob"]) as term:
            term.wait_for("Story Board")
            seat = my_seat(term)
            while step_of(term) < 6:  # play our turns until the game is some way in
                if any(line.startswith("  1  ") for line in term.screen().splitlines()[-4:-1]):  # our choices are up
                    term.keys("1")
                time.sleep(0.1)
            host.kill()
            screen = term.wait_for("reconnecting to", "(attempt")
            assert "Story Board" in screen and "No map" not in screen  # the last table stays on screen
            host = HeadlessHost(*common, "--load", str(save), "--away-bot", "1")
            term.wait_for("reconnecting to", gone=True)  # welcomed back: the bar no longer says it is reconnecting
            term.keys("l")  # the whole Log: the notice comes after the story of what a stand-in played meanwhile
            term.wait_for("Back at the table (you play")
            term.keys("l")
            step, digest = seen_view(term)
            assert digest == view_at(save, step, seat)
            term.keys("C-q")  # leave: after a second away, a bot plays the seat to the end
            assert term.exit_status() == 0
        out, err = bot.communicate(timeout=SAFETY * 2)
        host_out, host_err = host.proc.communicate(timeout=SAFETY)
    finally:
        bot.kill()
        host.kill()
    assert bot.returncode == 0, err
    assert "Lost the connection" in err and re.search(r"Back at seat \d \((Ada Whitlock|Mina Castellane)\)\.", err)
    summary = json.loads(out)
    assert summary["token"] == seated.group(3) and summary["outcome"] in ("won", "lost")
    assert host.proc.returncode == 0, host_err
    assert f"state_hash={summary['final_hash']}" in host_out
    assert replay(load(save), verify=True).state_hash() == summary["final_hash"]
