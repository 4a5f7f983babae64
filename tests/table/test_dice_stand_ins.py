"""Every roll verified at turn-based tables where stand-ins decide: each timeout policy, both modes,
a client connected throughout, one that leaves and comes back with its token, a watcher who comes
late; and a forged step still caught.

A stand-in's step is a line no take-back crosses, and every view's prompt says how many decisions
may be taken back (`prompt.undo`); a peer's replay must draw the same lines (`delta.stand_in`,
`history.sealed`) or an honest table fails its own check (issue 34). On in-memory streams and
virtual time (pytest-trio's `autojump_clock`): a turn clock running out costs no real time."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import trio

from cthulhu.core import Command, Game, Setup
from cthulhu.core.bots import RandomBot, make_bot
from cthulhu.net.client import PeerSession, TrioPeer
from cthulhu.net.commitment import GameRecord, public_setup, verify
from cthulhu.net.delta import view_hash
from cthulhu.net.frames import FrameDecoder
from cthulhu.table.history import HISTORY_BYTES, Record
from cthulhu.table import Host
from cthulhu.table.log import MemoryLog
from cthulhu.table import Pace, StandIns, TableSpec
from cthulhu.table.resolve import resolve
from cthulhu.savegame import STAND_IN_LINE
from cthulhu.savegame.dice import Dice

from support.memory import MemoryTable, memory_table, play_to_the_end, welcomed

SAFETY = 24 * 3600  # virtual seconds
TURN = 60  # seconds a person has for a decision (virtual)
MODES = ["main", "shamblers"]
POLICIES = ["stand-in", "skip", "pause"]
BOT_DELAY = 1.0  # (virtual) seconds before each bot move: the test's steps fall between them


async def _silent(peer: TrioPeer, policy: str, paused: list[int]) -> None:
    """Bob, a connected person who presses nothing: his interface reads and answers pings. At a
    table that pauses for him he comes back to the keyboard once it has paused, and decides (the
    steps he decided so go into `paused`)."""
    session = peer.session
    bot = None
    while session.game_over is None and await peer.receive():
        clock = session.table.clock if session.table else None
        prompt = session.my_prompt
        if (policy == "pause" and prompt is not None and clock is not None and clock.paused and clock.seat == session.seat
                and prompt["version"] not in paused):
            bot = bot or make_bot("random", session.table.mode, 7)
            session.send_command(bot.choose_view(session.mirror.view), prompt["version"])
            paused.append(prompt["version"])
        await peer.flush()


async def _play_while(peer: TrioPeer, more) -> None:
    """This peer's seat played by a random bot from its view while `more()` and the game goes on."""
    session, bot, answered = peer.session, None, None
    while session.game_over is None and more():
        prompt = session.my_prompt
        if prompt is not None and prompt["version"] != answered and session.table and session.table.started:
            bot = bot or make_bot("random", session.table.mode, 5)
            answered = prompt["version"]
            session.send_command(bot.choose_view(session.mirror.view), answered)
            await peer.flush()
        assert await peer.receive(), "the host closed the connection"


async def _to_the_end(peer: TrioPeer) -> None:
    while peer.session.game_over is None:
        assert await peer.receive(), "the host closed the connection"


async def _until(done) -> None:
    """Wait (on virtual time) until the host's state makes `done()` true."""
    while not done():
        await trio.sleep(0.1)


def _stood_in(host: Host, seat: int) -> list[int]:
    """The steps a stand-in (or a clock's skip) decided for `seat`."""
    commands = host.log.commands()
    return [k for k in host.log.sealed if commands[k - 1][0] == seat]


@pytest.mark.trio
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.trio
@pytest.mark.parametrize("mode", MODES)
async def test_every_policy_every_mode_ends_with_every_roll_verified_for_everyone(mode, policy, autojump_clock):
    """Ann plays throughout; Bob is connected and silent (his clock runs out: the policy); Cy leaves
    mid-game, the host hands his seat to a stand-in, and he comes back with his token; Wes starts
    watching after stand-ins have decided. Each of them verifies every roll at the end."""
    game = Game.new(Setup(mode=mode, seed=3, players=3))
    spec = TableSpec(start=game, pace=Pace(turn_time=TURN, on_timeout=policy), stand_ins=StandIns(kind="random"), bot_delay=BOT_DELAY)
    with trio.fail_after(SAFETY):
        async with memory_table(spec) as table:
            host = table.host
            ann, bob, cy = [await table.connect(name) for name in ("Ann", "Bob", "Cy")]
            sessions: dict[str, PeerSession] = {}

            async def ann_plays() -> None:
                sessions["Ann"] = await play_to_the_end(ann, seed=2)

            table.nursery.start_soon(ann_plays)
            paused: list[int] = []
            table.nursery.start_soon(_silent, bob, policy, paused)
            await _play_while(cy, lambda: sum(1 for seat, _ in host.log.commands() if seat == 2) < 1)  # Cy decides once, then his connection drops
            assert host.game.outcome is None
            await cy.aclose()
            await _until(lambda: host.seats[2].away)
            host.hand_to_bot(2)  # the host's player: a bot plays Cy's seat until he is back
            await _until(lambda: _stood_in(host, 2) or host.game.outcome is not None)
            assert host.game.outcome is None

            wes = await table.connect("Wes", watch=True)  # a watcher who comes late
            table.nursery.start_soon(_to_the_end, wes)
            cy.session.restart()  # Cy comes back with his seat token
            cy = await welcomed(TrioPeer(table.pair(), cy.session))
            assert cy.session.seat == 2 and host.seats[2].stand_in is None
            await _play_while(cy, lambda: True)
            await _until(lambda: "Ann" in sessions and all(p.session.game_over for p in (bob, wes)))

            lines = set(host.log.sealed)
            assert lines and _stood_in(host, 2)  # Cy's stand-in decided while he was away
            if policy == "pause":
                assert paused  # Bob's clock ran out and the table waited for him
            else:
                assert _stood_in(host, 1)  # Bob's clock ran out: a stand-in (or a skip) decided
            peers = {"Ann": sessions["Ann"], "Bob": bob.session, "Cy": cy.session, "Wes": wes.session}
            verdicts = {who: session.verify_dice() for who, session in peers.items()}
            assert {who: v.status for who, v in verdicts.items()} == dict.fromkeys(peers, "verified"), verdicts
            assert all("every roll verified" in v.message and v.steps == host.game.step for v in verdicts.values())
            assert {who: session.record.sealed == lines for who, session in peers.items()} == dict.fromkeys(peers, True)


def _first_line_that_shows(mode: str, seed: int) -> tuple[Game, MemoryLog]:
    """A game played by a bot up to the first step after which the prompt offers a take-back: a
    stand-in's line there changes the view (`prompt.undo` 0, not 1 or more). That step is sealed, as
    a host does after its stand-in's step, in the game and in its command log."""
    game, log, bot = Game.new(Setup(mode=mode, seed=seed, players=2)), MemoryLog(), RandomBot(seed)
    while game.outcome is None:
        seat = game.prompt.seat
        command = bot.choose(game, seat)
        game.apply(seat, command)
        log.append(seat, command.wire(), game.state_hash())
        if game.prompt is not None and game.view(None)["prompt"]["undo"] > 0:
            game.seal_undo(STAND_IN_LINE)
            log.seal(game.step)
            assert game.view(None)["prompt"]["undo"] == 0
            return game, log
    raise AssertionError("no step of that game offered a take-back")


@pytest.mark.trio
@pytest.mark.parametrize("mode", MODES)
async def test_a_watcher_of_a_loaded_game_is_sent_the_lines_its_stand_ins_drew(mode, autojump_clock):
    """A table carried on from its save (a server restarted) sends a joiner the stand-ins' steps in
    its `history` (`sealed`), so the view it joins at replays to what it shows."""
    game, log = _first_line_that_shows(mode, seed=4)
    step = game.step
    spec = TableSpec(start=game, bots={0: "random", 1: "random"}, bot_delay=BOT_DELAY)
    host = Host(spec, replace(resolve(spec), log=log))
    with trio.fail_after(SAFETY):
        async with trio.open_nursery() as nursery:
            await nursery.start(host.run)
            table = MemoryTable(host, nursery)
            wes = await table.connect("Wes", watch=True)
            assert wes.session.mirror.view["step"] == step and wes.session.mirror.view["prompt"]["undo"] == 0
            await _to_the_end(wes)
            nursery.cancel_scope.cancel()
    assert wes.session.record.sealed == {step}
    dice = wes.session.verify_dice()
    assert dice.verified, dice


def test_a_history_frame_names_the_sealed_steps_it_carries_and_a_take_back_cuts_them():
    entries = [(n % 2, {"kind": "move", "to": "x" * 300, "n": n}) for n in range(300)]
    lines = {3, 150, 151, 299}
    record = Record(entries, sealed=lines)
    frames = FrameDecoder().feed(b"".join(record.frames()))
    assert len(frames) > 1 and sum(len(f["entries"]) for f in frames) == 300
    for f in frames:  # each frame names the lines among its own steps, `start + 1 ...`
        assert f["sealed"] == sorted(k for k in lines if f["start"] < k <= f["start"] + len(f["entries"]))
    assert sorted(k for f in frames for k in f["sealed"]) == sorted(lines)
    assert all(len(b) <= HISTORY_BYTES + 1024 for b in record.frames()[:-1])
    record.cut(150)
    assert record.sealed == {3, 150} and record.frames() == Record(entries[:150], sealed={3, 150}).frames()
    record.append(*entries[150], sealed=True)
    assert record.frames() == Record(entries[:151], sealed={3, 150, 151}).frames()


def _watched(mode: str, seed: int, seal_every: int) -> tuple[GameRecord, Game]:
    """A game a bot plays to the end with a stand-in's line every `seal_every`-th step, and the
    record a spectator connected throughout keeps of it (deltas with `stand_in` on those steps)."""
    game, bot = Game.new(Setup(mode=mode, seed=seed, players=2)), RandomBot(seed)
    record = GameRecord()
    record.joined(None, 0, view_hash(game.view(None)), Dice.new(seed).commit, public_setup(game.setup))
    while game.outcome is None:
        seat = game.prompt.seat
        command = bot.choose(game, seat)
        game.apply(seat, command)
        stand_in = game.step % seal_every == 0
        if stand_in:
            game.seal_undo(STAND_IN_LINE)
        record.stepped(game.step, [seat, command.wire()], view_hash(game.view(None)), stand_in)
    return record, game


def _lines_that_show(record: GameRecord, game: Game) -> tuple[list[int], list[int]]:
    """(steps of `record` whose line changes the view after them, steps without a line where one
    would): where a line makes `prompt.undo` 0 instead of more."""
    replayed, drawn, would = Game.new(game.setup), [], []
    for k, (seat, wire) in enumerate(record.commands, start=1):
        replayed.apply(seat, Command.from_wire(wire))
        offered = replayed.prompt is not None and replayed.view(None)["prompt"]["undo"] > 0  # were there no line at k
        if k in record.sealed:
            replayed.seal_undo(STAND_IN_LINE)
        if offered:
            (drawn if k in record.sealed else would).append(k)
    return drawn, would


@pytest.mark.parametrize("mode", MODES)
def test_a_forged_step_at_a_table_of_stand_ins_still_fails_the_check(mode):
    """The lines change only how many decisions may be taken back: a table the revealed seed does
    not give at a stand-in's step, a line claimed where the host drew none, or one drawn and not
    told, is still caught at its step."""
    record, game = _watched(mode, seed=6, seal_every=3)
    dice = Dice.new(game.setup.seed)
    record.commit = dice.commit

    def check(rec: GameRecord) -> Any:
        return verify(rec, seed=game.setup.seed, salt=dice.salt, final_hash=game.state_hash())

    honest = check(record)
    assert honest.verified and honest.steps == game.step, honest
    drawn, would = _lines_that_show(record, game)
    assert drawn and would
    at = sorted(record.sealed)[1]
    forged = check(replace(record, hashes={**record.hashes, at: view_hash({"forged": at})}))  # a stand-in's step shown otherwise
    assert (forged.status, forged.step) == ("mismatch", at), forged
    claimed = check(replace(record, sealed=record.sealed | {would[0]}))
    assert (claimed.status, claimed.step) == ("mismatch", would[0]), claimed
    untold = check(replace(record, sealed=record.sealed - {drawn[0]}))
    assert (untold.status, untold.step) == ("mismatch", drawn[0]), untold


class _LoadedAtAStandIn(Host):
    """Rolls from further along the dice stream than the seed says from its first stand-in's step on."""

    loaded_at: int | None = None

    async def _apply(self, seat: int, command: Command, version: int | None, *, stand_in: Any = None) -> None:
        if stand_in is not None and self.loaded_at is None:
            self.loaded_at = self.game.step + 1
            self.game.state.rng.counters["dice"] = self.game.state.rng.counters.get("dice", 0) + 1
        await super()._apply(seat, command, version, stand_in=stand_in)


@pytest.mark.trio
@pytest.mark.parametrize("mode", MODES)
async def test_a_host_whose_stand_in_rolls_what_the_seed_does_not_give_is_caught(mode, autojump_clock):
    spec = TableSpec(start=Game.new(Setup(mode=mode, seed=3, players=2)), pace=Pace(turn_time=TURN, on_timeout="stand-in"))
    host = _LoadedAtAStandIn(spec, resolve(spec))
    with trio.fail_after(SAFETY):
        async with trio.open_nursery() as nursery:
            await nursery.start(host.run)
            table = MemoryTable(host, nursery)
            ann, bob = await table.connect("Ann"), await table.connect("Bob")
            nursery.start_soon(_silent, bob, "stand-in", [])
            session = await play_to_the_end(ann, seed=2)
            nursery.cancel_scope.cancel()
    assert host.loaded_at is not None
    dice = session.verify_dice()
    # Named: the first step an honest replay of the same commands, with the same lines, shows otherwise.
    honest, first = Game.new(host.game.setup), None
    for k, (seat, wire) in enumerate(session.record.commands, start=1):
        honest.apply(seat, Command.from_wire(wire))
        if k in session.record.sealed:
            honest.seal_undo(STAND_IN_LINE)
        if k in session.record.hashes and view_hash(honest.view(session.seat)) != session.record.hashes[k]:
            first = k
            break
    assert first is not None and first >= host.loaded_at
    assert (dice.status, dice.step) == ("mismatch", first), dice
