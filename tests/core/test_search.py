"""The search bot decides from its seat's view only, the same way every time for a seed.

Its worlds are dealt from the view by each mode's `Searchable.sample`: a world looks exactly
like the view to the seat (the prompt and its options too), and nothing in it can depend on
the real deck order, bag or seed, which the conformance suite's scramble changes.
"""

from __future__ import annotations

import json

import pytest

from cthulhu import cli
from cthulhu.content import builtin
from cthulhu.core import Game, Setup, modes
from cthulhu.core.bots import make_bot
from cthulhu.core.main.sample import SAMPLED
from cthulhu.core.rng import Rng
from cthulhu.core.search import Search, SearchBot
from cthulhu.core.undo import Untracked

CONTENT = builtin()


def without_undo(view: dict) -> dict:
    if view.get("prompt"):
        view["prompt"].pop("undo", None)
    return view


def decisions(mode: str, games: int, **setup):
    """(game, seat) at every decision of a few heuristic games (the game is played on after each)."""
    for n in range(games):
        game = Game.new(Setup(mode=mode, seed=31 + n, players=1 + n % 2, **setup), CONTENT)
        bot = make_bot("heuristic", mode, n)
        while game.outcome is None:
            prompt = game.prompt
            yield game, prompt.seat
            game.apply(prompt.seat, bot.choose(game, prompt.seat))


@pytest.mark.parametrize("mode", ["main", "shamblers"])
def test_a_world_looks_exactly_like_the_view_it_was_dealt_from(mode):
    sample = modes.get(mode).search.sample
    dealt = 0
    for game, seat in decisions(mode, 4):
        view = game.view(seat)
        world = sample(view, CONTENT, Rng(dealt))
        if mode == "main" and game.prompt.kind not in SAMPLED:
            assert world is None  # mid-card, mid-fight: the view does not show the engine's agenda
            continue
        assert world is not None
        dealt += 1
        assert without_undo(world.view(seat)) == without_undo(view)
        assert world.legal(seat) == game.legal(seat)
        assert world.state_hash() != game.state_hash()  # the secrets are its own
    assert dealt > 50


@pytest.mark.parametrize("mode", ["main", "shamblers"])
def test_the_hidden_zones_do_not_change_a_decision(mode):
    """Scrambled decks, bag and seed (as the conformance suite scrambles them): the same estimates and
    the same choice, to the last digit, while the scrambled game itself plays on differently."""
    scramble = modes.get(mode).scramble
    checked = 0
    for game, seat in decisions(mode, 2):
        if game.step % 9 or len(game.prompt.options) < 2:
            continue
        other = Game.from_canonical(game.canonical(), CONTENT)
        scramble(other.state)
        assert other.state_hash() != game.state_hash()
        searches = [SearchBot(5).begin(g.view(seat), CONTENT).run(12) for g in (game, other)]
        if not searches[0].searchable:
            continue
        assert searches[0].estimates() == searches[1].estimates() and searches[0].sims == 12
        assert SearchBot(5, sims=12).choose(game, seat) == SearchBot(5, sims=12).choose(other, seat)
        checked += 1
    assert checked >= 5
    # A bot that looked at the state would see the difference: the same commands draw differently.
    game = Game.new(Setup(mode=mode, seed=3), CONTENT)
    other = Game.from_canonical(game.canonical(), CONTENT)
    scramble(other.state)
    bot = make_bot("heuristic", mode, 1)
    shown = [], []
    for _ in range(40):
        if game.outcome is not None or other.outcome is not None or game.legal(game.prompt.seat) != other.legal(other.prompt.seat):
            break
        command = bot.choose(game, game.prompt.seat)
        shown[0].append([e.wire() for e in game.apply(game.prompt.seat, command)])
        shown[1].append([e.wire() for e in other.apply(other.prompt.seat, command)])
    assert shown[0] != shown[1]


@pytest.mark.parametrize("mode", ["main", "shamblers"])
def test_a_search_is_the_same_for_the_same_seed(mode):
    for game, seat in decisions(mode, 1):
        if game.prompt.kind in ("action", "banish") and len(game.prompt.options) > 2 and game.step > 10:
            break
    view = game.view(seat)
    one, two = (SearchBot(9).begin(view, CONTENT).run(30) for _ in range(2))
    assert one.estimates() == two.estimates() and one.best() == two.best()
    assert one.worlds == 30 // len(view["prompt"]["options"])
    # Thinking in batches (as a time budget does) reaches the same place.
    batches = SearchBot(9).begin(view, CONTENT)
    for _ in range(6):
        batches.run(5)
    assert batches.estimates() == one.estimates()
    other = SearchBot(10).begin(view, CONTENT).run(30)
    assert [e.win for e in other.estimates()] != [e.win for e in one.estimates()]
    best = one.estimates()
    assert best[0].command == one.best() and all(e.sims == one.worlds for e in best)
    assert {e.label for e in best} == {o["label"] for o in view["prompt"]["options"]}


def test_where_a_view_cannot_be_dealt_the_policy_decides():
    for game, seat in decisions("main", 3):
        if game.prompt.kind == "reroll" and len(game.prompt.options) > 1:
            break
    view = game.view(seat)
    search = SearchBot(1).begin(view, CONTENT).run(20)
    assert not search.searchable and search.sims == 0 and search.estimates() == []
    policy = modes.get("main").search.policy(1, CONTENT)
    assert search.best() == policy.choose_view(view)
    assert Search(view, CONTENT, 1).best() == search.best()


def test_a_rollout_keeps_no_history():
    game = Game.new(Setup(mode="shamblers", seed=2), CONTENT)
    game.history = Untracked()
    for _ in range(5):
        game.apply(game.prompt.seat, game.legal(game.prompt.seat)[0])
    assert game.undo_horizon(game.prompt.seat) == 0 and game.history.entries == []


def test_the_search_bot_is_a_bot_kind_of_both_modes():
    for mode in ("main", "shamblers"):
        assert "search" in modes.get(mode).bot_kinds
        assert isinstance(make_bot("search", mode, 1), SearchBot)


def test_sim_with_search_bots_is_reproducible(capsys):
    argv = ["sim", "--mode", "shamblers", "--games", "2", "--seed", "4", "--bot", "search", "--sims", "6", "--json"]
    runs = []
    for _ in range(2):
        assert cli.main(argv) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert runs[0]["digest"] == runs[1]["digest"] and runs[0]["bot"] == "search" and runs[0]["sims"] == 6
    assert cli.main([*argv[:-3], "--sims", "24", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["digest"] != runs[0]["digest"]


def test_a_search_bot_plays_a_whole_game_by_the_facade():
    from cthulhu.core.sim import play

    played = play(Setup(mode="main", seed=12), bot="search", sims=4)
    again = play(Setup(mode="main", seed=12), bot="search", sims=4)
    assert played.outcome in ("won", "lost") and played.final_hash == again.final_hash
