"""Random legal playouts of the main game with invariants checked after every command."""

from __future__ import annotations

import pytest

from cthulhu.core import Game, Setup
from cthulhu.core.bots import RandomBot
from cthulhu.core.sim import play


def check_invariants(game: Game) -> None:
    s = game.state
    c = game.content.main
    on_boards = sum(i.fire for i in s.investigators)
    assert s.fire_reserve + sum(s.fire.values()) + on_boards == c.rules.fire_tokens
    assert s.wound_tokens + sum(i.fire_wounds for i in s.investigators) == c.rules.wound_tokens
    for kind, left in s.reserve.items():
        assert left + sum(1 for f in s.figures if f.kind == kind) == c.enemies[kind].figures
    assert {f.kind for f in s.figures} <= set(s.reserve) | {"elder_one"}
    for f in s.figures:
        if f.kind == "elder_one":
            assert s.summoned and 0 <= f.wounds < c.elder_ones[s.elder_one].stages[s.stage].health
        else:
            assert 0 <= f.wounds < c.enemies[f.kind].health
    assert s.summoned == any(f.kind == "elder_one" for f in s.figures) or game.outcome == "won"
    assert 1 <= s.track <= c.elder_ones[s.elder_one].track
    n_mythos = len(c.elder_ones[s.elder_one].mythos) + len(c.episodes[s.episode].mythos)
    in_play = sum(1 for t in s.stack if t["k"] == "mythos_discard")  # drawn, still resolving
    assert len(s.mythos_deck) + len(s.mythos_discard) + sum(len(i.kept) for i in s.investigators) + in_play == n_mythos
    claimed = sum(len(i.cards) for i in s.investigators)
    held = {h["card"] for i in s.investigators for h in i.cards}
    drawn = sum(1 for t in s.stack if t["k"] == "discovery_done" and t["card"] not in held and t["card"] not in s.discovery_discard)
    assert len(s.discovery_deck) + len(s.discovery_discard) + claimed + drawn == len(c.episodes[s.episode].discovery)
    for inv in s.investigators:
        ref = c.investigators[inv.id]
        assert 0 <= inv.wounds <= ref.health
        assert 0 <= inv.stress <= ref.stress
        assert 0 <= inv.sanity <= ref.sanity
        assert all(1 <= lv <= 4 for lv in inv.levels.values())
        assert inv.alive == (inv.cause is None)
        if not inv.alive:
            assert inv.fire == inv.fire_wounds == 0
    if game.outcome is None:
        prompt = game.prompt
        assert prompt is not None and prompt.options
        assert game.legal(prompt.seat)


@pytest.mark.parametrize("seed", range(40))
def test_random_playouts_keep_every_invariant(seed):
    game = Game.new(Setup(seed=seed))
    bot = RandomBot(seed)
    check_invariants(game)
    while game.outcome is None and game.state.turn < 80:
        seat = game.prompt.seat
        game.apply(seat, bot.choose(game, seat))
        check_invariants(game)


@pytest.mark.parametrize("seed", [3, 11])
def test_same_seed_and_commands_give_the_same_hash(seed):
    a = play(Setup(seed=seed), turn_limit=40)
    b = play(Setup(seed=seed), turn_limit=40)
    assert a.final_hash == b.final_hash and a.commands == b.commands
    c = play(Setup(seed=seed + 1), turn_limit=40)
    assert c.final_hash != a.final_hash


def test_canonical_round_trip_mid_game_continues_identically(content):
    game = Game.new(Setup(seed=5))
    bot = RandomBot(5)
    for _ in range(25):
        game.apply(game.prompt.seat, bot.choose(game, game.prompt.seat))
    copy = Game.from_canonical(game.canonical(), content)
    assert copy.state_hash() == game.state_hash()
    # The take-back horizon comes from the history, which a snapshot does not carry.
    assert copy.undo_horizon(0) == 0
    assert _without_undo(copy.view(0)) == _without_undo(game.view(0))
    bot_a, bot_b = RandomBot(9), RandomBot(9)
    while game.outcome is None and game.state.turn < 60:
        ca = bot_a.choose(game, game.prompt.seat)
        cb = bot_b.choose(copy, copy.prompt.seat)
        assert ca == cb
        game.apply(game.prompt.seat, ca)
        copy.apply(copy.prompt.seat, cb)
        assert copy.state_hash() == game.state_hash()


def _without_undo(view):
    if view.get("prompt"):
        view["prompt"].pop("undo")
    return view


def test_views_are_plain_data_and_hide_the_rng():
    import json

    game = Game.new(Setup(seed=77))
    text = json.dumps(game.view(0))
    assert "rng" not in text and "counters" not in text and "stack" not in text


@pytest.mark.slow
def test_thousands_of_random_playouts():
    for seed in range(2000):
        game = Game.new(Setup(seed=seed))
        bot = RandomBot(seed)
        while game.outcome is None and game.state.turn < 200:
            game.apply(game.prompt.seat, bot.choose(game, game.prompt.seat))
            check_invariants(game)
