"""Every end of a game that prints a summary gives the luck report, the one the save gives.

A real `cthulhu host --headless` and a real `cthulhu join --headless` (text, not --json) play one
game; each prints "How the dice fell:" and the report's lines, which are `luck_of(save)`'s.
"""

from __future__ import annotations

import re
import subprocess
import sys

from cthulhu.savegame import load, luck_of

CLI = [sys.executable, "-m", "cthulhu.cli"]


def _report(lines: list[str]) -> list[str]:
    """The lines under "How the dice fell:", their indent taken off."""
    at = lines.index("How the dice fell:")
    out = []
    for line in lines[at + 1:]:
        if not line.startswith("  "):
            break
        out.append(line[2:])
    return out


def test_a_headless_host_and_a_headless_joiner_print_the_luck_report_at_the_end(tmp_path):
    save = tmp_path / "table.save"
    host = subprocess.Popen([*CLI, "host", "--headless", "--port", "0", "--save", str(save), "--bot-delay", "0", "--mode", "main",
                             "--seats", "2", "--bots", "1", "--seed", "21", "--bot", "heuristic"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None
        host.stdout.readline()
        join_line = host.stdout.readline()
        found = re.match(r"Join with:\s+cthulhu join (\S+) --code (\S+)", join_line)
        assert found is not None, join_line
        address, code = found.groups()
        joined = subprocess.run([*CLI, "join", address, "--code", code, "--bot", "heuristic", "--headless"],
                                capture_output=True, text=True, timeout=300)
        out, err = host.communicate(timeout=120)
    finally:
        host.kill()
    assert host.returncode == 0, err
    assert joined.returncode == 0, joined.stderr
    want = luck_of(load(save))
    assert want is not None and want.people
    lines = out.splitlines()
    assert any(line.startswith("Game over at step ") for line in lines), out
    assert _report(lines) == want.lines(), out
    assert lines.index("How the dice fell:") < next(n for n, line in enumerate(lines) if line.startswith("Play it again: "))
    assert _report(joined.stderr.splitlines()) == want.lines(), joined.stderr


def test_replay_s_summary_of_a_finished_game_gives_its_luck_report_and_of_a_game_in_play_none():
    from pathlib import Path

    saves = Path(__file__).resolve().parents[2] / "saves"
    for name, over in (("example-won-main.save", True), ("example-midgame-main.save", False)):
        done = subprocess.run([*CLI, "replay", str(saves / name)], capture_output=True, text=True, timeout=120,
                              env={"COLUMNS": "400", "PATH": ""})
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        if not over:
            assert "How the dice fell:" not in lines
            continue
        want = luck_of(load(saves / name))
        assert want is not None
        assert _report(lines) == want.lines()
        assert lines.index("How the dice fell:") < lines.index("What happened:")
