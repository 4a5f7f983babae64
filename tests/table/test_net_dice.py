"""Verifiable dice over real sockets: the host commits to the seed at the welcome and opens it at
the end; every peer replays what it was sent and names the first step a dishonest host gave away."""

from __future__ import annotations

from dataclasses import replace

import pytest
import trio

from cthulhu.core import Command, Game, Setup
from cthulhu.core.bots import RandomBot
from cthulhu.net.client import PeerSession, TrioPeer, play_bot
from cthulhu.net.delta import view_hash
from cthulhu.table import Host
from cthulhu.table.log import MemoryLog
from cthulhu.table import TableSpec, open_table
from cthulhu.table.resolve import resolve
from cthulhu.savegame.dice import Dice, commit, opens

pytestmark = pytest.mark.trio

REAL_MODES = ["main", "shamblers"]


def real_game(mode: str, seed: int, players: int = 2) -> Game:
    return Game.new(Setup(mode=mode, seed=seed, players=players))


async def watch(port: int) -> PeerSession:
    """A spectator that stays to the end, then verifies like every peer."""
    session = PeerSession("watcher", watch=True)
    peer = await TrioPeer.connect("127.0.0.1", port, session)
    try:
        while session.game_over is None and await peer.receive():
            pass
    finally:
        await peer.aclose()
    await trio.to_thread.run_sync(session.verify_dice)
    return session


async def table(host: Host, players: int, bots: tuple[str, ...] = ("random", "heuristic")) -> list[PeerSession]:
    """Serve `host` to `players` bot peers and one spectator until the game ends; their sessions."""
    sessions: list[PeerSession] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(host.serve)
        sessions.append(await _first_watcher(nursery, host.port))

        async def one(i: int) -> None:
            sessions.append(await play_bot("127.0.0.1", host.port, bot=bots[i % len(bots)], seed=i, name=f"p{i}"))

        async with trio.open_nursery() as peers:
            for i in range(players):
                peers.start_soon(one, i)
        await host.finished.wait()
        with trio.fail_after(30):
            while len(sessions) < players + 1 or sessions[0].dice is None:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    return sessions


async def _first_watcher(nursery, port: int) -> PeerSession:
    holder: list[PeerSession] = []
    session = PeerSession("watcher", watch=True)
    holder.append(session)

    async def run() -> None:
        peer = await TrioPeer.connect("127.0.0.1", port, session)
        try:
            while session.game_over is None and await peer.receive():
                pass
        finally:
            await peer.aclose()
        await trio.to_thread.run_sync(session.verify_dice)

    nursery.start_soon(run)
    return session


async def test_the_commitment_is_blake2b_of_the_seed_bytes_and_the_salt():
    import hashlib

    salt = bytes(range(32))
    expected = hashlib.blake2b((7).to_bytes(8, "big") + salt, digest_size=32, person=b"cthulhu-dice").hexdigest()
    assert commit(7, salt) == expected
    assert opens(expected, 7, salt) and not opens(expected, 8, salt) and not opens(expected, 7, bytes(32))


@pytest.mark.parametrize("mode", REAL_MODES)
async def test_an_honest_host_is_verified_by_every_peer(mode):
    game = real_game(mode, seed=11)
    host = open_table(TableSpec(start=game))
    sessions = await table(host, players=2)
    assert game.outcome is not None and len(sessions) == 3
    for s in sessions:
        assert s.record.commit == host.dice.commit
        assert s.dice is not None and s.dice.verified, s.dice
        assert s.dice.steps == game.step and "every roll verified" in s.dice.message
        assert s.summary()["dice"] == "verified"


@pytest.mark.parametrize("mode", REAL_MODES)
async def test_a_peer_that_joins_mid_game_verifies_from_the_history_it_is_sent(mode):
    game = real_game(mode, seed=12, players=1)
    log = MemoryLog()
    bot = RandomBot(3)
    while game.step < 30 and game.outcome is None:
        seat = game.prompt.seat
        cmd = bot.choose(game, seat)
        game.apply(seat, cmd)
        log.append(seat, cmd.wire(), game.state_hash())
    spec = TableSpec(start=game, bots={0: "random"})
    host = Host(spec, replace(resolve(spec), log=log))  # a game in progress, with the log of how it got here
    async with trio.open_nursery() as nursery:
        await nursery.start(host.serve)
        late = await watch(host.port)
        nursery.cancel_scope.cancel()
    assert late.record.commands[0] is not None and len(late.record.commands) == game.step
    assert late.dice.verified, late.dice


class LyingHost(Host):
    """A host that breaks its word in one way or another (the subclasses say how)."""

    @classmethod
    def of(cls, game: Game) -> "LyingHost":
        spec = TableSpec(start=game)
        return cls(spec, resolve(spec))


class SeedSwapHost(LyingHost):
    """Commits to one seed, then reveals another at the end."""

    def _game_over_frame(self) -> bytes:
        self.game.setup = self.game.setup.model_copy(update={"seed": self.game.setup.seed + 1})
        try:
            return super()._game_over_frame()
        finally:
            self.game.setup = self.game.setup.model_copy(update={"seed": self.game.setup.seed - 1})


class LoadedDiceHost(LyingHost):
    """Rolls from further along the dice stream than the seed says, from step `at` on."""

    at = 6

    async def _apply(self, seat: int, command: Command, version: int | None) -> None:
        if self.game.step + 1 == self.at:
            self.game.state.rng.counters["dice"] = self.game.state.rng.counters.get("dice", 0) + 1
        await super()._apply(seat, command, version)


@pytest.mark.parametrize("mode", REAL_MODES)
async def test_a_host_that_reveals_another_seed_is_caught_by_every_peer(mode):
    game = real_game(mode, seed=13)
    sessions = await table(SeedSwapHost.of(game), players=2)
    for s in sessions:
        assert s.dice.status == "mismatch" and "not the one the host committed to" in s.dice.message


@pytest.mark.parametrize("mode", REAL_MODES)
async def test_a_host_that_commits_to_one_seed_and_plays_another_is_caught_at_the_setup(mode):
    game = real_game(mode, seed=14)
    other = Dice(15, bytes(32))  # the committed seed; the game runs on 14 and reveals 15

    class Liar(Host):
        def _game_over_frame(self) -> bytes:
            real = self.game.setup
            self.game.setup = real.model_copy(update={"seed": 15})
            try:
                return super()._game_over_frame()
            finally:
                self.game.setup = real

    spec = TableSpec(start=game)
    sessions = await table(Liar(spec, replace(resolve(spec), dice=other)), players=2)
    for s in sessions:
        assert s.dice.status == "mismatch" and s.dice.step == 0, s.dice


@pytest.mark.parametrize("mode", REAL_MODES)
async def test_a_host_that_rolls_what_the_seed_does_not_give_is_caught_at_that_step(mode):
    game = real_game(mode, seed=16)
    host = LoadedDiceHost.of(game)
    shown: dict[int, dict[int, str]] = {}  # seat -> step -> the view hash the host sent
    host.on_delta = lambda seq, key, h: shown.setdefault(key, {}).__setitem__(host.game.step, h)
    sessions = await table(host, players=2)
    steps = {s.dice.step for s in sessions}
    assert all(s.dice.status == "mismatch" for s in sessions), [s.dice for s in sessions]
    # The step named is the first one an honest replay of the same commands shows differently.
    honest = real_game(mode, seed=16)
    first_diff = None
    for k, (seat, wire) in enumerate(sessions[0].record.commands, start=1):
        honest.apply(seat, Command.from_wire(wire))
        if view_hash(honest.view(None)) != shown[None][k]:
            first_diff = k
            break
    assert first_diff is not None and first_diff >= LoadedDiceHost.at
    assert sessions[0].dice.step == first_diff
    assert all(step >= LoadedDiceHost.at for step in steps)
