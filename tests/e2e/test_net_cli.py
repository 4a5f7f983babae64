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
    assert sorted(s["seat"] for s in summaries) == [1, 2]  # counted as the table shows them (and --seat takes them)
    for s in summaries:
        assert {"seat", "commands", "deltas", "resyncs", "final_hash", "outcome"} <= s.keys()
        assert s["resyncs"] == 0 and s["commands"] > 0 and s["outcome"] in ("won", "lost")
        assert s["dice"] == "verified", s["dice_detail"]
    assert summaries[0]["final_hash"] == summaries[1]["final_hash"]
    assert f"state_hash={summaries[0]['final_hash']}" in host_out and "seed=77" in host_out


def test_search_bots_on_both_sides_of_the_wire():
    """`--bot search` with `--sims` in the host's seats and in a joiner's: the same bot kind everywhere."""
    proc, address, code = _host("--mode", "shamblers", "--seats", "2", "--bots", "1", "--seed", "5", "--bot", "search", "--sims", "3")
    try:
        j = subprocess.run([*CLI, "join", address, "--code", code, "--bot", "search", "--sims", "3", "--headless", "--json"],
                           capture_output=True, text=True, timeout=180)
        host_out, host_err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert j.returncode == 0 and proc.returncode == 0, (j.stderr, host_err)
    summary = json.loads(j.stdout)
    assert summary["outcome"] in ("won", "lost") and summary["dice"] == "verified"
    assert f"state_hash={summary['final_hash']}" in host_out


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
    end at once): it says so, how to watch it again and how to play the same table again, and
    exits 0 with the save untouched."""
    import shutil
    from pathlib import Path

    from cthulhu.net.playagain import play_again_command
    from cthulhu.savegame import load

    save = tmp_path / "won.save"
    shutil.copy(Path(__file__).resolve().parents[2] / "saves" / "example-won-main.save", save)
    before = save.read_bytes()
    header = load(save).header
    again = play_again_command(load(save).setup, header.bot_seats())
    assert again is not None
    done = subprocess.run([*CLI, "host", *(["--headless"] if headless else []), "--port", "0", "--load", str(save)],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data")))
    assert done.returncode == 0 and done.stderr == "", done
    assert done.stdout.splitlines() == [
        f"This game is over ({header.outcome} at step {header.step}): there is nothing left to play at this table.",
        f"See it again with:  cthulhu replay {save} --tui",
        f"Play it again: {again}",
    ]
    assert save.read_bytes() == before


def test_a_joiner_is_told_when_the_host_closes_the_table_on_purpose(tmp_path):
    """SIGTERM (as Ctrl+C) is the host closing on purpose: the joiner says so and stops, where a
    host that just vanished would be retried for 15 minutes."""
    import signal

    save = tmp_path / "closed.save"
    proc = subprocess.Popen([*CLI, "host", "--headless", "--port", "0", "--save", str(save), "--seats", "2", "--seed", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.stdout.readline()
        m = re.match(r"Join with:\s+cthulhu join (\S+) --code (\S+)", proc.stdout.readline())
        assert m
        join = subprocess.Popen([*CLI, "join", m.group(1), "--code", m.group(2), "--bot", "random", "--headless"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seated = join.stderr.readline()
        assert seated.startswith("Seat 1 (") and "seat token" in seated, seated  # sat down; the game waits for seat 2
        proc.send_signal(signal.SIGTERM)
        out, err = join.communicate(timeout=30)
        host_out, host_err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        for p in (proc, join):
            p.kill()
    assert join.returncode == 1 and "Traceback" not in err
    assert err.splitlines() == ["cthulhu join: the host closed the table; it is saved, and the same join command takes "
                                "your seat back when it is open again"], err
    assert "reconnecting" not in err and proc.returncode == 128 + signal.SIGTERM, host_err


@pytest.mark.trio
async def test_a_headless_host_logs_who_sits_down_and_who_leaves(tmp_path):
    """One line each on stderr, names cleaned; spectators and the closing of the table are not seat news."""
    import signal

    import trio

    from cthulhu.net.client import PeerSession, TrioPeer
    from support.host_proc import CODE, HostProcess

    host = HostProcess(tmp_path, "--seats", "3", "--seed", "2", "--save", str(tmp_path / "news.save"))
    try:
        with trio.fail_after(60):
            port, _ = await host.start()

            async def sit(name: str, **kw) -> tuple[PeerSession, TrioPeer]:
                session = PeerSession(name, code=CODE, **kw)
                peer = await TrioPeer.connect("127.0.0.1", port, session)
                while not session.welcomed:
                    assert await peer.receive()
                return session, peer

            ann, ann_link = await sit("Ann")
            eve, eve_link = await sit("Eve\x1b]0;owned\x07\u202e")
            _, watcher = await sit("Wat", watch=True)
            await eve_link.aclose()
            while "left seat 2" not in host.stderr():  # the host has seen her go (however loaded the machine)
                await trio.sleep(0.05)
            eve, eve_link = await sit("Eve", token=eve.token)
            await watcher.aclose()
            await trio.sleep(0.3)
            host.proc.send_signal(signal.SIGTERM)
            await host.wait()
            for link in (ann_link, eve_link):
                await link.aclose()
    finally:
        host.close()
    news = [line for line in host.stderr().splitlines() if line.startswith("cthulhu host: ")]
    assert news == [
        "cthulhu host: Ann sat down at seat 1 (from 127.0.0.1)",
        "cthulhu host: Eve]0;owned sat down at seat 2 (from 127.0.0.1)",
        "cthulhu host: Eve]0;owned left seat 2; it waits for them",
        "cthulhu host: Eve is back at seat 2 (from 127.0.0.1)",
    ], host.stderr()
    assert "\x1b" not in host.stderr() and "\u202e" not in host.stderr()
