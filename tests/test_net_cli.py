"""`cthulhu host --headless` and `cthulhu join --headless` as separate processes, as two terminals would run them."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

CLI = [sys.executable, "-m", "cthulhu.cli"]


def _host(*args: str) -> tuple[subprocess.Popen, str, str]:
    proc = subprocess.Popen([*CLI, "host", "--headless", "--port", "0", "--no-save", "--bot-delay", "0", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    code_line = proc.stdout.readline()
    join_line = proc.stdout.readline()
    m = re.match(r"Join with:\s+cthulhu join (\S+) --code (\S+)", join_line)
    assert code_line.startswith("Table code: ") and m, (code_line, join_line, proc.stderr.read() if proc.poll() else "")
    return proc, m.group(1), m.group(2)


@pytest.mark.parametrize("mode", ["shamblers", "main"])
def test_host_and_two_bot_peers_play_a_game_by_the_printed_command(mode):
    proc, address, code = _host("--mode", mode, "--seats", "3", "--bots", "1", "--seed", "77", "--bot", "random")
    try:
        joins = [
            subprocess.Popen([*CLI, "join", address, "--code", code, "--bot", bot, "--headless", "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for bot in ("random", "heuristic")
        ]
        outs = [j.communicate(timeout=120) for j in joins]
        assert [j.returncode for j in joins] == [0, 0], [e for _, e in outs]
        summaries = [json.loads(out) for out, _ in outs]
        host_out, host_err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, host_err
    assert sorted(s["seat"] for s in summaries) == [0, 1]
    for s in summaries:
        assert {"seat", "commands", "deltas", "resyncs", "final_hash", "outcome"} <= s.keys()
        assert s["resyncs"] == 0 and s["commands"] > 0 and s["outcome"] in ("won", "lost")
        assert s["dice"] == "verified", s["dice_detail"]
    assert summaries[0]["final_hash"] == summaries[1]["final_hash"]
    assert f"state_hash={summaries[0]['final_hash']}" in host_out and "seed=77" in host_out


def test_wrong_code_is_refused_by_the_join_command():
    proc, address, code = _host("--mode", "shamblers", "--seats", "1")
    try:
        j = subprocess.run([*CLI, "join", address, "--code", "nope", "--bot", "random", "--headless"],
                           capture_output=True, text=True, timeout=60)
    finally:
        proc.kill()
        proc.communicate()
    assert j.returncode == 1 and "bad_code" in j.stderr
