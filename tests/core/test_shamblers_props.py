"""Property tests over many seeded bot games: conservation, capacities, banish cost, replay."""

from __future__ import annotations

import json

import pytest

from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.core.shamblers.content import CHAOS


def check_invariants(game: Game) -> None:
    s = game.state
    cfg = s.cfg
    for c in cfg.colors:
        held = sum(m.tracks[c.id] for m in s.mats)
        on_towns = sum(t.tentacles[c.id] for t in s.towns)
        total = s.bag.count(c.id) + on_towns + held + s.mat_tentacles[c.id] + s.discard[c.id]
        assert total == c.in_bag, f"{c.id} tentacles not conserved"
        shamblers = s.track.count(c.id) + sum(t.shamblers[c.id] for t in s.towns) + s.mat_shamblers[c.id]
        assert shamblers == c.shamblers, f"{c.id} Shamblers not conserved"
        for m in s.mats:
            assert 0 <= m.tracks[c.id] <= c.track_capacity
        for t in s.towns:
            assert t.tentacles[c.id] >= 0 and t.shamblers[c.id] >= 0
        assert s.mat_tentacles[c.id] >= 0 and s.discard[c.id] >= 0
    chaos = s.bag.count(CHAOS) + sum(t.tentacles[CHAOS] for t in s.towns) + sum(m.chaos for m in s.mats)
    assert chaos + s.discard[CHAOS] + s.supply_chaos == cfg.chaos_in_bag
    for m in s.mats:
        assert 0 <= m.chaos <= cfg.chaos_capacity
        assert 0 <= m.delirium <= cfg.delirium_capacity
    # Nothing but the box's tentacles and Shamblers is ever in the bag or on the Shambler Track.
    assert set(s.bag) <= {*s.colors, CHAOS}, f"unknown tentacles in the bag: {set(s.bag) - {*s.colors, CHAOS}}"
    assert set(s.track) <= set(s.colors), f"unknown Shamblers on the track: {set(s.track) - set(s.colors)}"


def check_events(game: Game, events) -> None:
    cfg = game.state.cfg
    for e in events:
        if e.type == "dice_rolled":
            assert e["cost"] == max(e["dice"])
            assert all(d in cfg.die.faces for d in e["dice"])
        if e.type == "banished":
            assert e["cost"] == max(e["dice"])  # the highest single die, never a sum
            paid = e["payment"]
            assert paid["madness"] + paid["chaos"] == e["cost"]
            assert paid["chaos"] <= cfg.chaos_wild_max
            assert e["mat_tentacles_discarded"] <= cfg.banish_bonus[e["rage_at_start"]]
        json.dumps(e.wire())


def play(content, bot_kind: str, seed: int, players: int = 1, check: bool = True, difficulty: str | None = None):
    game = Game.new(Setup(mode="shamblers", seed=seed, players=players, difficulty=difficulty), content)
    bot = make_bot(bot_kind, "shamblers", seed)
    commands = []
    limit = (sum(c.shamblers for c in content.shamblers.colors) + 1) * (content.shamblers.actions_per_turn + 30)
    while game.outcome is None:
        p = game.prompt
        assert p is not None and p.options, "a live game always has a decision"
        cmd = bot.choose(game, p.seat)
        events = game.apply(p.seat, cmd)
        commands.append((p.seat, cmd))
        if check:
            check_invariants(game)
            check_events(game, events)
        assert game.step <= limit, "the game did not end"
    assert game.state.turn <= sum(c.shamblers for c in content.shamblers.colors) + 1
    return game, commands


@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_random_and_heuristic_games_keep_every_invariant(content, bot):
    for seed in range(150):
        game, _ = play(content, bot, seed, players=1 + seed % 3)
        assert game.outcome in ("won", "lost")


def test_replay_from_seed_and_commands_gives_the_same_hashes(content):
    for seed in range(20):
        game, commands = play(content, "random", 1000 + seed, check=False)
        again = Game.new(Setup(mode="shamblers", seed=1000 + seed), content)
        for seat, cmd in commands:
            again.apply(seat, cmd)
        assert again.state_hash() == game.state_hash()
        assert again.canonical() == game.canonical()


def _without_undo(view):
    if view.get("prompt"):
        view["prompt"].pop("undo")
    return view


def test_canonical_round_trip_continues_identically(content):
    for seed in range(20):
        full, commands = play(content, "heuristic", 2000 + seed, players=2, check=False)
        cut = (seed * 7) % len(commands)
        part = Game.new(Setup(mode="shamblers", seed=2000 + seed, players=2), content)
        for seat, cmd in commands[:cut]:
            part.apply(seat, cmd)
        data = json.loads(json.dumps(part.canonical()))
        copy = Game.from_canonical(data, content)
        assert copy.state_hash() == part.state_hash()
        # The take-back horizon comes from the history, which a snapshot does not carry.
        assert _without_undo(copy.view(0)) == _without_undo(part.view(0))
        for seat, cmd in commands[cut:]:
            assert [e.wire() for e in copy.apply(seat, cmd)] == [e.wire() for e in part.apply(seat, cmd)]
        assert copy.state_hash() == full.state_hash() == part.state_hash()


def test_views_stay_plain_json_through_a_game(content):
    game = Game.new(Setup(mode="shamblers", seed=77, players=2), content)
    bot = make_bot("random", "shamblers", 77)
    while game.outcome is None:
        for seat in (0, 1, None):
            view = game.view(seat)
            assert json.loads(json.dumps(view)) == view
            assert "bag" not in view and "track" not in view and "rng" not in view
        p = game.prompt
        game.apply(p.seat, bot.choose(game, p.seat))
    assert game.view(0)["outcome"] == game.outcome


def test_difficulty_levels_are_ordered_and_the_heuristic_beats_random(content):
    """A small sample of bench/RESULTS.md's Shamblers table (`bench/shamblers_sim.py`, 1,000 games a row)."""
    wins = {}
    for level in ("easy", "normal", "hard"):
        wins[level] = sum(play(content, "heuristic", seed, check=False, difficulty=level)[0].outcome == "won" for seed in range(100))
    random_wins = sum(play(content, "random", seed, check=False)[0].outcome == "won" for seed in range(100))
    assert wins["easy"] >= wins["normal"] + 15 and wins["normal"] >= wins["hard"] + 15
    assert 35 <= wins["normal"] <= 65 and random_wins <= 2


@pytest.mark.slow
@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_soak_thousand_games(content, bot):
    for seed in range(1000):
        game, _ = play(content, bot, 10_000 + seed, players=1 + seed % 4, difficulty=("easy", "normal", "hard")[seed % 3])
        assert game.outcome in ("won", "lost")


def test_heuristic_plays_from_the_public_view_alone(content):
    """What a network peer has: the JSON view of its seat, prompt included."""
    from cthulhu.core.shamblers.heuristic import HeuristicBot

    for seed in range(10):
        game = Game.new(Setup(mode="shamblers", seed=seed, players=2), content)
        by_view, by_game = HeuristicBot(seed), HeuristicBot(seed)
        while game.outcome is None:
            seat = game.prompt.seat
            view = json.loads(json.dumps(game.view(seat)))
            wire = by_view.choose_view(view)
            cmd = by_game.choose(game, seat)
            assert wire == cmd.wire()
            game.apply(seat, cmd)
