"""One code holder's traffic cannot cost anyone else their seat, and spectators never write the save.

A real `cthulhu host --headless` on 127.0.0.1; two seated peers play a whole game
in lockstep with seeded bots while hostile spectators flood the table with chat
(hundreds of frames in single writes) or join and leave over and over from many
loopback addresses. Every seated peer must stay connected and in step (no
eviction, no resync) and the game must end in the very state of an undisturbed
run. `-m slow` runs the join/leave flood at the issue's 5,000.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import pytest
import trio

from cthulhu.core import Command, Game, Setup
from cthulhu.net.client import PeerSession, TrioPeer, ViewBot
from cthulhu.net.frames import encode_frame
from cthulhu.net.messages import PROTOCOL_VERSION

from support.host_proc import CODE, MODE, HostProcess, seat_players, send_one

pytestmark = pytest.mark.trio

SEED, SEATS = 11, 2


async def _spectator(port: int, name: str, local: str = "127.0.0.1") -> TrioPeer | None:
    """A watcher joined (None if the host would not have it: joining too often, table full...)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=local)
    peer = TrioPeer(stream, PeerSession(name, code=CODE, watch=True))
    try:
        await peer.flush()
        while not peer.session.welcomed:
            if not await peer.receive() or peer.session.closed is not None:
                break
    except trio.BrokenResourceError:
        pass
    if peer.session.welcomed:
        return peer
    await peer.aclose()
    return None


@dataclass
class Flood:
    """A flood's progress. The seated game is paced by it, so all of it lands mid-game."""

    total: int  # frames or hellos it will send
    sent: int = 0
    welcomed: int = 0  # spectators the host let in (join floods)


async def chat_bursts(port: int, flood: Flood) -> None:
    """~260 small chat frames in one 4 KB write, until `flood.total` are out."""
    spammer = await _spectator(port, "spammer")
    assert spammer is not None
    burst = b"".join(encode_frame({"t": "chat", "text": f"spam {n}"}) for n in range(260))
    try:
        while flood.sent < flood.total:
            await spammer.stream.send_all(burst)
            flood.sent += 260
    finally:
        await spammer.aclose()


async def join_leave_flood(port: int, flood: Flood, workers: int = 8) -> None:
    """Spectators that join and leave at once, `workers` at a time, from 100 loopback addresses."""

    async def worker(w: int) -> None:
        for n in range(w, flood.total, workers):
            peer = await _spectator(port, f"j{n}", local=f"127.0.0.{2 + n % 100}")
            flood.sent += 1
            if peer is not None:
                flood.welcomed += 1
                await peer.aclose()

    async with trio.open_nursery() as nursery:
        for w in range(workers):
            nursery.start_soon(worker, w)


def undisturbed(seed: int = SEED, seats: int = SEATS) -> tuple[str, int]:
    """(final state hash, steps) of the same game played in-process with the same bots."""
    game = Game.new(Setup(mode=MODE, seed=seed, players=seats))
    bots = [ViewBot("random", seed * 10 + n) for n in range(seats)]
    while game.outcome is None:
        seat = game.prompt.seat
        game.apply(seat, Command.from_wire(bots[seat].choose(game.view(seat), MODE)))
    return game.state_hash(), game.step


async def play_paced(players: list, flood: Flood, steps: int) -> list[float]:
    """Lockstep to the end; step k first waits until k/steps of the flood is out (the last step
    for all of it). Returns each step's time from command sent to every seat holding it (ms)."""
    times = []
    k = 0
    while players[0].session.mirror.view.get("outcome") is None:
        k += 1
        wanted = flood.total if k >= steps else flood.total * (k - 1) // steps
        while flood.sent < wanted:
            await trio.sleep(0.005)
        t0 = time.perf_counter()
        target = await send_one(players)
        for q in players:
            await q.until(lambda q=q, target=target: q.step >= target)
        times.append((time.perf_counter() - t0) * 1e3)
    for q in players:
        await q.until(lambda q=q: q.session.game_over is not None)
    return times


@dataclass
class Outcome:
    final: str
    stderr: str
    step_ms: list[float]


async def game_under(tmp_path, flood: Flood, run_flood) -> Outcome:
    """A whole seated game at a real host process while `run_flood(port, flood)` runs.
    Raises if a seated peer is closed, refused or falls out of step (no eviction, no resync)."""
    host = HostProcess(tmp_path, "--mode", MODE, "--seats", str(SEATS), "--seed", str(SEED),
                       "--save", str(tmp_path / f"flood-{time.time_ns()}.save"))
    players = []
    try:
        with trio.fail_after(300):
            port, _ = await host.start()
            players = await seat_players(port, SEATS, SEED * 10)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_flood, port, flood)
                step_ms = await play_paced(players, flood, undisturbed()[1])
            for p in players:
                p.last  # noqa: B018 - asserts the mirror is in step and never resynced
                await p.close()
            code, out = await host.wait()
            assert code == 0, host.stderr()
    finally:
        for p in players:
            await p.close()
        host.close()
    return Outcome(players[0].session.game_over.state_hash, host.stderr(), step_ms)


async def test_a_chat_burst_costs_no_seated_player_its_place(tmp_path):
    flood = Flood(total=20 * 260)
    result = await game_under(tmp_path, flood, chat_bursts)
    assert flood.sent >= flood.total
    assert result.final == undisturbed()[0]
    assert "not reading" not in result.stderr and "Traceback" not in result.stderr, result.stderr


async def test_a_join_and_leave_flood_costs_no_seated_player_its_place(tmp_path):
    flood = Flood(total=400)
    result = await game_under(tmp_path, flood, join_leave_flood)
    assert flood.sent == 400 and flood.welcomed >= 100
    assert result.final == undisturbed()[0]
    assert "not reading" not in result.stderr and "Traceback" not in result.stderr, result.stderr


@pytest.mark.slow
async def test_five_thousand_joins_and_leaves_cost_no_seated_player_its_place(tmp_path):
    flood = Flood(total=5000)
    result = await game_under(tmp_path, flood, lambda port, f: join_leave_flood(port, f, workers=16))
    assert flood.sent == 5000 and flood.welcomed >= 1000  # the rest were told to slow down
    assert result.final == undisturbed()[0]
    assert "not reading" not in result.stderr and "Traceback" not in result.stderr, result.stderr


async def test_spectators_never_write_the_save(tmp_path):
    save = tmp_path / "quiet.save"
    host = HostProcess(tmp_path, "--mode", MODE, "--seats", "2", "--seed", "3", "--save", str(save))
    peers = []
    try:
        with trio.fail_after(60):
            port, _ = await host.start()
            assert not save.exists()  # nothing worth keeping yet: no command, no seat
            for n in range(30):
                peer = await _spectator(port, f"w{n}", local=f"127.0.0.{2 + n}")
                assert peer is not None
                peers.append(peer)
            for peer in peers:
                await peer.aclose()
            watched = save.exists()
            seated = await TrioPeer.connect("127.0.0.1", port, PeerSession("sitter", code=CODE))
            peers.append(seated)
            while not seated.session.welcomed:  # the welcome (with its token) leaves once the seat is saved
                assert await seated.receive()
            after_seat = save.exists()
    finally:
        for peer in peers:
            await peer.aclose()
        host.close()
    assert not watched, "a spectator caused a write"
    assert after_seat, "taking a seat must be saved (the peer holds a token)"
    assert seated.session.seat == 0


@pytest.mark.slow
async def test_a_thousand_silent_or_dribbling_connections_are_closed_and_a_player_still_gets_in(tmp_path):
    """The issue's soak: 1,000 connections from 250 loopback addresses go silent or dribble a frame,
    before and after a hello. A real player joins meanwhile; every one of them is closed by the
    host within its deadline (10 s before a hello, 45 + 20 s after); the host grows < 30 MB."""
    from cthulhu.net.frames import HEADER
    from cthulhu.net.limits import Limits

    limits = Limits()
    host = HostProcess(tmp_path, "--seats", "2", "--save", str(tmp_path / "soak.save"))
    hello = encode_frame({"t": "hello", "proto": PROTOCOL_VERSION, "name": "quiet", "code": CODE, "watch": True})
    closed: list[bool] = []

    def rss(pid: int) -> int:
        status = open(f"/proc/{pid}/status").read()
        return int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) * 1024

    async def attacker(port: int, n: int) -> None:
        stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=f"127.0.{1 + n // 250}.{1 + n % 250}")
        try:
            if n % 4 >= 2:
                await stream.send_all(hello)
            if n % 2:
                for byte in HEADER.pack(4000) + b"\x80" * 4000:
                    await stream.send_all(bytes([byte]))
                    with trio.move_on_after(1):
                        if await stream.receive_some(65536) == b"":
                            break
            else:
                while await stream.receive_some(65536):
                    pass
            closed.append(True)
        except (trio.BrokenResourceError, OSError):
            closed.append(True)
        finally:
            await stream.aclose()

    try:
        port, _ = await host.start()
        before = rss(host.proc.pid)
        with trio.fail_after(limits.hello_timeout + limits.idle_timeout + limits.pong_timeout + 30):
            async with trio.open_nursery() as outer:
                async with trio.open_nursery() as attackers:  # ends when the host closed every one
                    for n in range(1000):
                        attackers.start_soon(attacker, port, n)
                    await trio.sleep(2)
                    player = await TrioPeer.connect("127.0.0.1", port, PeerSession("real", code=CODE))
                    while not player.session.welcomed:
                        assert await player.receive(), player.session.closed
                    assert player.session.seat == 0
                    outer.start_soon(_keep_reading, player)  # it answers pings: it stays
                assert player.session.closed is None
                outer.cancel_scope.cancel()
        grown = rss(host.proc.pid) - before
    finally:
        host.close()
    assert len(closed) == 1000
    assert grown < 30 * 1024 * 1024, grown
    assert "Traceback" not in host.stderr()


async def _keep_reading(peer: TrioPeer) -> None:
    try:
        while await peer.receive():
            pass
    finally:
        await peer.aclose()
