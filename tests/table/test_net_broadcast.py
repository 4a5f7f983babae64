"""The host builds one view per projection, not per seat, and a mode's declared projection is
true: seats it puts together see byte-identical views; a mode that declares none (the toy mode,
whose hands are private) gives every seat its own view."""

from __future__ import annotations

import random

import pytest
import trio

from support import net_toy  # noqa: F401  (registers the toy mode)
from cthulhu.core import Game, Setup
from cthulhu.core.canon import canonical_bytes
from cthulhu.table import TableSpec
from support.memory import memory_table, play_to_the_end
from support.net_games import make_game


@pytest.mark.parametrize("mode", ["main", "shamblers"])
def test_seats_a_mode_projects_together_see_the_same_view_at_every_step(mode):
    rng = random.Random(5)
    for seed in (3, 4):
        game = make_game(mode, seed=seed, players=4)
        while game.outcome is None:
            seats = [None, *range(game.setup.players)]
            keys = {seat: game.projection(seat) for seat in seats}
            views = {seat: canonical_bytes(game.view(seat)) for seat in seats}
            for a in seats:
                for b in seats:
                    if keys[a] == keys[b]:
                        assert views[a] == views[b], f"step {game.step}: seats {a} and {b} share a projection, not a view"
            prompt = game.prompt
            assert prompt is not None
            game.apply(prompt.seat, rng.choice(prompt.options).command)


def test_a_mode_without_a_projection_gives_every_seat_its_own():
    game = Game.new(Setup(mode="toy", seed=2, players=3))
    assert [game.projection(s) for s in (None, 0, 1, 2)] == [None, 0, 1, 2]


class _Counting:
    """The game's rules, counting the views they build (every other hook passes through)."""

    def __init__(self, rules):
        self._rules = rules
        self.views = 0

    def __getattr__(self, name):
        return getattr(self._rules, name)

    def view(self, state, seat):
        self.views += 1
        return self._rules.view(state, seat)


async def _play(mode: str, players: int, spectators: int):
    """A table of `players` peers playing random commands and `spectators` watchers; the host's
    rules count the views it builds after the first welcome."""
    game = Game.new(Setup(mode=mode, seed=7, players=players))
    counting = _Counting(game.rules)
    game.rules = counting
    deltas: list[dict] = []
    async with memory_table(TableSpec(start=game)) as table:
        watchers = [await table.connect(f"w{i}", watch=True) for i in range(spectators)]
        seated = [await table.connect(f"p{i}") for i in range(players)]
        table.host.on_delta = lambda seq, seat, digest: deltas.append({"seq": seq, "seat": seat, "hash": digest})
        async with trio.open_nursery() as nursery:
            for i, peer in enumerate(seated):
                nursery.start_soon(play_to_the_end, peer, "random", i)
            for peer in watchers:
                nursery.start_soon(play_to_the_end, peer, "random", 99)
    return game, counting, deltas, [p.session for p in seated + watchers]


@pytest.mark.trio
async def test_five_seats_and_spectators_of_the_main_game_cost_one_view_per_step():
    game, counting, deltas, sessions = await _play("main", 5, 2)
    assert game.outcome is not None
    steps = max(d["seq"] for d in deltas)
    # One view per broadcast (plus the one every welcome shared), not one per seat and spectator:
    # the old host built 6 per step here.
    assert counting.views <= steps + 1
    assert all(not s.mirror.stale and s.resyncs == 0 for s in sessions)
    by_seq: dict[int, set[str]] = {}
    for d in deltas:
        by_seq.setdefault(d["seq"], set()).add(d["hash"])
    assert all(len(hashes) == 1 for hashes in by_seq.values())


@pytest.mark.trio
async def test_a_mode_with_private_hands_still_sends_each_seat_only_its_own():
    game, counting, deltas, sessions = await _play("toy", 3, 1)
    assert game.outcome is not None
    steps = max(d["seq"] for d in deltas)
    assert counting.views >= 4 * steps  # three seats and the spectators: four views a step
    for s in sessions:
        assert not s.mirror.stale and s.resyncs == 0
        hands = s.mirror.view["hands"]
        assert [("cards" in h) for h in hands] == [h["seat"] == s.seat for h in hands]


def test_history_frames_kept_as_the_game_goes_are_the_ones_made_from_scratch():
    """A joiner's `history` frames: chunks encoded once as they fill, the same bytes as encoding
    every command at the join, also after a take-back cuts the record."""
    from cthulhu.net.frames import FrameDecoder
    from cthulhu.table.history import HISTORY_BYTES, Record

    rng = random.Random(8)
    entries = [(rng.randrange(5), {"kind": "move", "to": "x" * rng.randrange(40, 400), "n": i}) for i in range(900)]
    record = Record()
    for n, (seat, wire) in enumerate(entries, start=1):
        record.append(seat, wire)
        if n in (1, 150, 600, 900):
            frames = FrameDecoder().feed(b"".join(record.frames()))
            assert [e for f in frames for e in f["entries"]] == [[s, w] for s, w in entries[:n]]
            assert [f["start"] for f in frames] == sorted({f["start"] for f in frames})
            assert all(len(b) <= HISTORY_BYTES + 1024 for b in record.frames()[:-1])
    assert len(record.frames()) > 3
    record.cut(444)
    assert record.frames() == Record(entries[:444]).frames()
    record.append(*entries[444])
    assert record.frames() == Record(entries[:445]).frames()
