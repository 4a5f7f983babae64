"""`kill -9` a real `cthulhu host` mid-game, restart it with `--load`, and nobody notices.

The host runs as its own process on 127.0.0.1 and autosaves to a file in
tmp_path; the peers are in-test trio clients built from `net.client`, playing
their seats with seeded random `ViewBot`s in lockstep: the deciding peer sends
one command and every peer waits for that step's delta. Between commands the
host is idle, so when it is killed after a seeded number of commands the save
must hold exactly the last step every peer received, and the view hash each
peer holds must be the one the replayed save gives for its seat and the one the
restarted host welcomes it with. Each peer then reclaims its seat with its
token and plays on to the end.

With no host-side bots the whole run is a function of the seeds, so a game
with crashes must end in the very state of the same game played without any.
"""

from __future__ import annotations

import random
import signal
from pathlib import Path
from typing import Any

import pytest
import trio

from cthulhu.net.delta import view_hash
from cthulhu.savegame import load, replay, seek

from support.host_proc import HostProcess, MODE, play, Player, SAFETY, seat_players, send_one, uninterrupted


def check_save_holds(path: str, players: list[Player], content, *, inflight: bool) -> Any:
    """The save holds every step a peer saw (one more at most if a command was in flight)."""
    save = load(path)
    step = {p.last[0] for p in players}
    assert len(step) == 1
    (seen,) = step
    if inflight:
        assert save.last_step in (seen, seen + 1), (save.last_step, seen)
    else:
        assert save.last_step == seen, f"peers saw step {seen}, the save ends at {save.last_step}"
    replay(save, content, verify=True)  # the whole log replays, every hash checked
    at_seen = seek(save, seen, content)
    for p in players:
        assert view_hash(at_seen.view(p.session.seat)) == p.last[1], f"{p.name}: view at step {seen} differs"
    return save


async def crash_and_resume(
    tmp_path: Path,
    content,
    *,
    seats: int,
    seed: int,
    kills: list[tuple[int, bool]],
) -> tuple[list[Player], str]:
    """Play, SIGKILL the host after each (commands, in_flight) in `kills`, restart with --load,
    reconnect by token; finally play to the end. Returns the players and the save path."""
    save_path = str(tmp_path / "table.save")
    bot_seed = seed * 10
    hosts: list[HostProcess] = []
    players: list[Player] = []
    try:
        with trio.fail_after(SAFETY):
            host = HostProcess(tmp_path, "--mode", MODE, "--seats", str(seats), "--seed", str(seed), "--save", save_path)
            hosts.append(host)
            port, autosave = await host.start()
            assert autosave == save_path
            players = await seat_players(port, seats, bot_seed)
            for commands, in_flight in kills:
                await play(players, commands)
                if players[0].session.mirror.view.get("outcome") is not None:
                    break
                if in_flight:
                    await send_one(players)  # killed before, while or after the host applies it
                host.sigkill()
                for p in players:
                    await p.close()
                check_save_holds(save_path, players, content, inflight=in_flight)

                host = HostProcess(tmp_path, "--load", save_path)
                hosts.append(host)
                port, autosave = await host.start()
                assert autosave == save_path
                for p in players:
                    before = p.last
                    await p.reconnect(port)
                    step, digest = p.last
                    if step == before[0]:
                        assert digest == before[1], f"{p.name}: the restarted host shows another view at step {step}"
                    else:  # the command in flight was saved before the kill
                        assert in_flight and step == before[0] + 1, (before, step)
                        assert digest == view_hash(seek(load(save_path), step, content).view(p.session.seat))
                    assert p.session.table.started
                assert len({p.last for p in players}) == 1, "peers were welcomed at different steps"
            await play(players)
            for p in players:
                await p.close()
            code, out = await host.wait()
        assert code == 0, host.stderr()
        over = players[0].session.game_over
        assert {p.session.game_over.state_hash for p in players} == {over.state_hash}
        assert f"state_hash={over.state_hash}" in out and f"seed={seed}" in out
        save = load(save_path)
        assert save.last_step == over.step and save.header.outcome == over.outcome
        assert replay(save, content, verify=True).state_hash() == over.state_hash
        return players, over.state_hash
    finally:
        for p in players:
            await p.close()
        for h in hosts:
            h.close()


# ---- the tests ---------------------------------------------------------------------------------------


@pytest.mark.trio
@pytest.mark.parametrize("seats,seed", [(1, 13), (2, 11)])
async def test_sigkill_between_commands_loses_nothing_any_peer_saw(tmp_path, content, seats, seed):
    kill_after = random.Random(seed).randint(1, 25)
    _, final = await crash_and_resume(tmp_path, content, seats=seats, seed=seed, kills=[(kill_after, False)])
    assert final == uninterrupted(seed, seats, seed * 10), "the crash changed the course of the game"


@pytest.mark.trio
async def test_sigkill_with_a_command_in_flight_resumes_at_the_last_step_seen_or_one_after(tmp_path, content):
    kill_after = random.Random(5).randint(1, 20)
    await crash_and_resume(tmp_path, content, seats=2, seed=12, kills=[(kill_after, True)])


@pytest.mark.trio
async def test_sigkill_before_the_first_command_keeps_the_seats(tmp_path, content):
    """Peers hold their tokens from the welcome on; a crash before any command must not forget them."""
    _, final = await crash_and_resume(tmp_path, content, seats=2, seed=11, kills=[(0, False)])
    assert final == uninterrupted(11, 2, 110)


@pytest.mark.slow
@pytest.mark.trio
@pytest.mark.parametrize("seed", [21, 22, 23, 24])
async def test_many_sigkills_in_one_game(tmp_path, content, seed):
    rng = random.Random(seed)
    kills = [(rng.randint(0, 12), rng.random() < 0.5) for _ in range(6)]
    await crash_and_resume(tmp_path, content, seats=rng.choice([1, 2]), seed=seed, kills=kills)


# ---- Ctrl+C and SIGTERM --------------------------------------------------------------------------------


@pytest.mark.trio
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
async def test_host_interrupted_mid_game_writes_its_save_and_exits_cleanly(tmp_path, content, signum):
    save_path = str(tmp_path / "stopped.save")
    host = HostProcess(tmp_path, "--mode", MODE, "--seats", "2", "--seed", "11", "--save", save_path)
    players: list[Player] = []
    try:
        with trio.fail_after(SAFETY):
            port, _ = await host.start()
            players = await seat_players(port, 2, 110)
            await play(players, random.Random(int(signum)).randint(1, 15))
            host.proc.send_signal(signum)
            for p in players:  # the host tells everyone it closes the table on purpose, then closes the connections
                while p.session.closed is None and await p.link.receive():
                    pass
                assert p.session.closed is not None and p.session.closed.code == "host_closed", p.session.closed
            code, out = await host.wait()
    finally:
        for p in players:
            await p.close()
        host.close()
    assert code == 128 + signum, host.stderr()  # 130 for Ctrl+C, 143 for SIGTERM
    assert "Traceback" not in host.stderr()
    step, _ = players[0].last
    assert f"Interrupted at step {step}:" in out
    save = load(save_path)
    assert save.last_step == step
    game = replay(save, content, verify=True)
    for p in players:
        assert view_hash(game.view(p.session.seat)) == p.last[1]
    assert sorted(r.seat for r in save.header.players) == [0, 1]


@pytest.mark.trio
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
async def test_host_interrupted_right_after_start_exits_cleanly(tmp_path, content, signum):
    """The signal comes the instant the host has printed where it saves: no traceback, and no save
    (nothing was played: the same options make the same game again)."""
    save_path = str(tmp_path / "early.save")
    host = HostProcess(tmp_path, "--mode", MODE, "--seats", "1", "--seed", "3", "--save", save_path)
    try:
        with trio.fail_after(SAFETY):
            await host.start()
            host.proc.send_signal(signum)
            code, out = await host.wait()
    finally:
        host.close()
    assert code == 128 + signum, host.stderr()  # 130 for Ctrl+C, 143 for SIGTERM
    assert "Traceback" not in host.stderr()
    assert "Interrupted at step 0:" in out
    assert sorted(p.name for p in Path(save_path).parent.iterdir() if p.suffix in (".save", ".lock", ".tmp")) == []
