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
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from cthulhu.core import Command, Game, Setup
from cthulhu.net.client import PeerSession, TrioPeer, ViewBot
from cthulhu.net.delta import view_hash
from cthulhu.savegame import load, replay, seek

CLI = [sys.executable, "-m", "cthulhu.cli"]
CODE = "crash-code"
MODE = "main"
SAFETY = 60  # seconds: only ever a net against hangs, never an assertion about speed


class HostGone(Exception):
    """The connection closed while a peer waited for something."""


# ---- the host process ---------------------------------------------------------------------------


class HostProcess:
    """`cthulhu host --headless` in a child process; `await start()` returns its port."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.err_path = tmp_path / f"host-{id(self)}.err"
        self._err = open(self.err_path, "w")
        cmd = [*CLI, "host", "--headless", "--port", "0", "--code", CODE, *args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self._err, text=True)
        self.lines: list[str] = []

    async def _line(self) -> str:
        line = await trio.to_thread.run_sync(self.proc.stdout.readline, abandon_on_cancel=True)
        if not line:
            raise AssertionError(f"the host exited early: {self.stderr()}")
        self.lines.append(line)
        return line

    async def start(self) -> tuple[int, str]:
        """(port, autosave path) from the lines the host prints on start."""
        port = None
        while True:
            line = await self._line()
            if line.startswith("Join with:"):
                port = int(line.split()[-3].rsplit(":", 1)[1])
            elif line.startswith("Autosave:"):
                assert port is not None, self.lines
                return port, line.split(None, 1)[1].strip()

    async def wait(self) -> tuple[int, str]:
        """Exit code and the rest of stdout."""
        rest = await trio.to_thread.run_sync(self.proc.stdout.read, abandon_on_cancel=True)
        code = await trio.to_thread.run_sync(self.proc.wait, abandon_on_cancel=True)
        return code, rest

    def sigkill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stderr(self) -> str:
        if not self._err.closed:
            self._err.flush()
        return self.err_path.read_text()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self._err.close()


# ---- in-test peers --------------------------------------------------------------------------------


@dataclass
class Player:
    """One seat: its protocol session, its connection, and its bot (kept across reconnects)."""

    name: str
    bot: ViewBot
    session: PeerSession
    link: TrioPeer | None = None

    @property
    def step(self) -> int:
        return self.session.mirror.view["step"]

    @property
    def last(self) -> tuple[int, str]:
        """(step, view hash) of the last view this peer received and checked."""
        mirror = self.session.mirror
        assert not mirror.stale and self.session.resyncs == 0, f"{self.name}: mirror out of step"
        return mirror.view["step"], mirror.hash

    async def until(self, done) -> None:
        while not done():
            assert not self.session.rejections, f"{self.name}: {self.session.rejections}"
            assert self.session.closed is None, f"{self.name}: {self.session.closed}"
            if not await self.link.receive():
                raise HostGone(self.name)

    async def connect(self, port: int, *, seat: int | None = None, token: str | None = None) -> None:
        self.session = PeerSession(self.name, code=CODE, seat=seat, token=token)
        self.link = await TrioPeer.connect("127.0.0.1", port, self.session)
        await self.until(lambda: self.session.welcomed)

    async def reconnect(self, port: int) -> None:
        seat, token = self.session.seat, self.session.token
        await self.connect(port, seat=seat, token=token)
        assert (self.session.seat, self.session.token) == (seat, token), f"{self.name} did not get its seat back"

    async def close(self) -> None:
        if self.link is not None:
            with trio.CancelScope(shield=True):
                await self.link.aclose()
            self.link = None


async def seat_players(port: int, seats: int, bot_seed: int) -> list[Player]:
    players = []
    for n in range(seats):
        p = Player(f"p{n}", ViewBot("random", bot_seed + n), PeerSession("unused"))
        await p.connect(port)
        assert p.session.seat == n and p.session.token
        players.append(p)
    for p in players:  # the headless host starts once every seat is taken
        await p.until(lambda p=p: p.session.table is not None and p.session.table.started)
    return players


def deciding(players: list[Player]) -> Player:
    ready = [p for p in players if p.session.my_prompt is not None]
    assert len(ready) == 1, [(p.name, p.session.mirror.prompt) for p in players]
    return ready[0]


async def send_one(players: list[Player]) -> int:
    """The deciding peer sends its bot's command; returns the step it should lead to."""
    p = deciding(players)
    p.session.send_command(p.bot.choose(p.session.mirror.view, MODE))
    await p.link.flush()
    return p.step + 1


async def play(players: list[Player], commands: int | None = None) -> None:
    """Lockstep: one command, then every peer holds its delta. `None`: to the game's end."""
    sent = 0
    while players[0].session.mirror.view.get("outcome") is None and (commands is None or sent < commands):
        target = await send_one(players)
        sent += 1
        for q in players:
            await q.until(lambda q=q: q.step >= target)
        assert len({q.step for q in players}) == 1
    if commands is None:
        for q in players:
            await q.until(lambda q=q: q.session.game_over is not None)


def uninterrupted(seed: int, seats: int, bot_seed: int) -> str:
    """The final state hash of the same game played in-process with the same bots, no crash."""
    game = Game.new(Setup(mode=MODE, seed=seed, players=seats))
    bots = [ViewBot("random", bot_seed + n) for n in range(seats)]
    while game.outcome is None:
        seat = game.prompt.seat
        game.apply(seat, Command.from_wire(bots[seat].choose(game.view(seat), MODE)))
    return game.state_hash()


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
