"""A real `cthulhu host` process on 127.0.0.1 and in-test trio peers playing its seats in lockstep
with seeded random `ViewBot`s: the deciding peer sends one command and every peer waits for that
step's delta (tests/e2e/test_host_crash.py and the other tests of a host as its own process)."""

from __future__ import annotations

import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import trio

from cthulhu.core import Command, Game, Setup
from cthulhu.net.client import PeerSession, TrioPeer, ViewBot

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
