"""`cthulhu host --headless` and `cthulhu join --headless` as separate processes, as two terminals would run them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from functools import partial

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


@pytest.mark.trio
async def test_a_token_without_a_seat_from_a_host_is_not_taken_for_a_seat(tmp_path):
    """A host may only give a token with a seat; one that sends a token for no seat (a hostile or
    broken host) gets no 'Seat 0' line and no traceback from `join --headless`, just its refusal."""
    import trio

    from cthulhu.core import Game, Setup
    from cthulhu.net.delta import view_hash
    from cthulhu.net.frames import encode_frame
    from cthulhu.net.messages import PROTOCOL_VERSION

    view = Game.new(Setup(seed=1)).view(None)
    table = {"mode": "main", "started": True, "seats": [{"seat": 0, "kind": "human", "name": "x", "connected": True}]}

    async def serve(stream: trio.SocketStream) -> None:
        await stream.receive_some(4096)  # the hello
        await stream.send_all(encode_frame({"t": "welcome", "proto": PROTOCOL_VERSION, "seat": None, "token": "stray-token",
                                            "table": table, "seq": 0, "view": view, "hash": view_hash(view)}))
        await stream.send_all(encode_frame({"t": "error", "code": "full", "reason": "go away", "fatal": True, "details": []}))
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, serve, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}  # the seat store, if a token were kept
        with trio.fail_after(60):
            j = await trio.run_process([*CLI, "join", f"127.0.0.1:{port}", "--name", "ann", "--bot", "random", "--headless"],
                                       capture_stdout=True, capture_stderr=True, check=False, env=env)
        nursery.cancel_scope.cancel()
    err = j.stderr.decode()
    assert "Traceback" not in err and "stray-token" not in err, err
    assert j.returncode == 1 and "refused: go away (full)" in err, err


@pytest.mark.parametrize("headless", [True, False])
def test_hosting_a_finished_game_says_it_is_over_and_how_to_see_it_again(tmp_path, headless):
    """`host --load` of a game that has ended opens no table (it used to print a join line and
    end at once): it says so, and how to watch it again, and exits 0 with the save untouched."""
    import shutil
    from pathlib import Path

    from cthulhu.net.saves import load

    save = tmp_path / "won.save"
    shutil.copy(Path(__file__).resolve().parent.parent / "saves" / "example-won-main.save", save)
    before = save.read_bytes()
    header = load(save).header
    done = subprocess.run([*CLI, "host", *(["--headless"] if headless else []), "--port", "0", "--load", str(save)],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data")))
    assert done.returncode == 0 and done.stderr == "", done
    assert done.stdout.splitlines() == [
        f"This game is over ({header.outcome} at step {header.step}): there is nothing left to play at this table.",
        f"See it again with:  cthulhu replay {save} --tui",
    ]
    assert save.read_bytes() == before
