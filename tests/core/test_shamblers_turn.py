"""The game around the banish step (RULES.md Part B): Wheel, actions, feed, win and loss, views."""

from __future__ import annotations

import json

import pytest

from cthulhu.core import Command, ContentError, Game, Setup, script_dice


@pytest.fixture
def game(content) -> Game:
    return Game.new(Setup(mode="shamblers", seed=5), content)


def clear_board(game: Game) -> None:
    """Empty every Town Card (tests that need a known board); conservation is not checked here."""
    for t in game.state.towns:
        for k in t.tentacles:
            t.tentacles[k] = 0
        for k in t.shamblers:
            t.shamblers[k] = 0


def end_actions(game: Game, seat: int = 0):
    return game.apply(seat, Command.of("end_actions"))


def test_setup_starts_turn_one_with_the_wheel(game, content):
    cfg = content.shamblers
    types = [e.type for e in game.start_events]
    assert types[:4] == ["game_started", "turn_started", "wheel_turned", "tentacles_drawn"]
    assert types[-1] == "shambler_placed"
    wheel = next(e for e in game.start_events if e.type == "wheel_turned")["town"]
    drawn = next(e for e in game.start_events if e.type == "tentacles_drawn")
    placed = next(e for e in game.start_events if e.type == "shambler_placed")
    assert drawn["town"] == wheel and len(drawn["tentacles"]) == cfg.wheel_draw
    assert placed["town"] == (wheel + cfg.shambler_offset) % len(cfg.towns)
    s = game.state
    assert len(s.track) == sum(c.shamblers for c in cfg.colors) - 1
    assert s.actions_left == cfg.actions_per_turn
    assert game.prompt.kind == "action" and game.prompt.seat == 0
    assert len(s.mats) == 1 and s.mats[0].name == "Player 1"


def test_three_actions_then_the_next_turn(game):
    clear_board(game)
    for _ in range(3):
        assert game.prompt.kind == "action"
        game.apply(0, Command.of("move", town=(game.state.mats[0].town + 1) % 5))
    assert game.state.turn == 2 and game.state.actions_left == 3


def test_move_only_to_neighbouring_cards(game):
    moves = {c["town"] for c in game.legal(0) if c.kind == "move"}
    assert moves == {1, 4}


def test_gather_takes_a_tentacle_onto_its_track(game):
    clear_board(game)
    s = game.state
    s.towns[0].tentacles["blue"] = 1
    s.towns[0].tentacles["chaos"] = 1
    assert Command.of("gather", color="blue") in game.legal(0)
    events = game.apply(0, Command.of("gather", color="blue"))
    assert events[0].type == "gathered" and events[0]["to"] == "track"
    assert s.mats[0].tracks["blue"] == 1 and s.towns[0].tentacles["blue"] == 0
    game.apply(0, Command.of("gather", color="chaos"))
    assert s.mats[0].chaos == 1


def test_gather_onto_a_full_track_adds_delirium(game):
    clear_board(game)
    s = game.state
    s.mats[0].tracks["red"] = 2
    s.towns[0].tentacles["red"] = 1
    discard = s.discard["red"]
    events = game.apply(0, Command.of("gather", color="red"))
    assert [e.type for e in events] == ["gathered", "delirium"]
    assert s.mats[0].tracks["red"] == 2 and s.mats[0].delirium == 1 and s.discard["red"] == discard + 1


def test_a_chaos_tentacle_gathered_onto_a_full_chaos_track_goes_to_the_discard_mat(game, content):
    """RULES.md Part B, Gather onto a full track: whatever its color, the tentacle goes to the Discard
    Mat (not the general supply, which takes only spent Chaos) and returns to the bag with it."""
    clear_board(game)
    s = game.state
    s.mats[0].chaos = content.shamblers.chaos_capacity
    s.towns[0].tentacles["chaos"] = 1
    events = game.apply(0, Command.of("gather", color="chaos"))
    assert events[0]["to"] == "discard" and events[1].type == "delirium"
    assert s.discard["chaos"] == 1 and s.supply_chaos == 0 and s.mats[0].delirium == 1
    s.bag.clear()
    s.discard.update({"red": 1, "blue": 0, "green": 0})
    events = end_actions(game)  # the Wheel draws from an empty bag: the Discard Mat, Chaos included, refills it
    assert [e["count"] for e in events if e.type == "bag_refilled"] == [2]
    assert sorted(next(e for e in events if e.type == "tentacles_drawn")["tentacles"]) == ["chaos", "red"]
    assert s.discard == {"red": 0, "blue": 0, "green": 0, "chaos": 0}


def test_full_delirium_loses_at_once(game):
    """RULES.md Part B, Timing: the gather that fills Delirium loses then and there."""
    clear_board(game)
    s = game.state
    s.mats[0].tracks["red"] = 2
    s.mats[0].delirium = 4
    s.towns[0].tentacles["red"] = 1
    s.towns[0].shamblers["green"] = 1  # a banish would still be possible: it is not offered
    events = game.apply(0, Command.of("gather", color="red"))
    assert game.outcome == "lost" and events[-1].type == "game_lost" and events[-1]["cause"] == "delirium"
    assert s.actions_left == 0 and game.prompt is None and game.legal(0) == []


def test_feed_moves_one_tentacle_per_shambler_and_leaves_chaos(game):
    clear_board(game)
    s = game.state
    s.towns[2].shamblers["red"] = 2
    s.towns[2].tentacles.update({"green": 3, "chaos": 2})
    events = end_actions(game)
    fed = [e for e in events if e.type == "fed"]
    assert [(e["town"], e["color"]) for e in fed] == [(2, "green"), (2, "green")]
    assert s.mat_tentacles["green"] == 2 and s.towns[2].tentacles["chaos"] == 2


def test_feed_asks_the_active_player_when_there_is_a_choice(game):
    clear_board(game)
    s = game.state
    s.towns[3].shamblers["blue"] = 1
    s.towns[3].tentacles.update({"red": 1, "blue": 1})
    end_actions(game)
    p = game.prompt
    assert p.kind == "feed" and p.seat == 0
    assert set(game.legal(0)) == {Command.of("feed", color="red"), Command.of("feed", color="blue")}
    assert "Shambler Mat" in p.text
    events = game.apply(0, Command.of("feed", color="red"))
    assert (events[0].type, events[0]["color"]) == ("fed", "red") and s.mat_tentacles == {"red": 1, "blue": 0, "green": 0}
    assert events[1].type == "turn_started"  # the blue one is left on the card


def test_no_choice_when_every_tentacle_is_eaten(game):
    clear_board(game)
    s = game.state
    s.towns[1].shamblers.update({"red": 1, "green": 1})
    s.towns[1].tentacles.update({"red": 1, "blue": 1})
    end_actions(game)
    assert game.prompt.kind == "action" and s.mat_tentacles["red"] == 1 and s.mat_tentacles["blue"] == 1


def test_a_full_shambler_mat_loses(game, content):
    clear_board(game)
    s = game.state
    s.mat_tentacles["green"] = content.shamblers.loss_mat_tentacles - 1
    s.towns[4].shamblers["red"] = 1
    s.towns[4].tentacles["green"] = 1
    events = end_actions(game)
    assert game.outcome == "lost"
    assert events[-1].wire() == {
        "type": "game_lost", "cause": "shambler_mat_full", "turn": 1, "color": "green",
        "count": content.shamblers.loss_mat_tentacles,
    }


def test_a_full_shambler_mat_loses_the_moment_it_fills(game, content):
    """The feed stops at the tentacle that fills the Mat; no further feeding is asked for."""
    clear_board(game)
    s = game.state
    s.mat_tentacles["green"] = content.shamblers.loss_mat_tentacles - 1
    s.towns[1].shamblers["red"] = 1
    s.towns[1].tentacles["green"] = 1
    s.towns[3].shamblers["blue"] = 1
    s.towns[3].tentacles.update({"red": 1, "blue": 1})  # would ask which one feeds
    events = end_actions(game)
    assert game.outcome == "lost" and events[-1]["cause"] == "shambler_mat_full"
    assert [e["town"] for e in events if e.type == "fed"] == [1]
    assert game.prompt is None and s.towns[3].tentacles == {"red": 1, "blue": 1, "green": 0, "chaos": 0}


def test_an_empty_shambler_track_loses_when_the_wheel_needs_one(game):
    game.state.track.clear()
    events = end_actions(game)
    assert game.outcome == "lost" and events[-1]["cause"] == "shambler_track_empty"
    assert any(e.type == "wheel_turned" for e in events)


def test_the_banish_that_completes_the_mat_wins_at_once(game):
    """RULES.md Part B, Timing: no further action is asked once enough of every color are banished."""
    clear_board(game)
    s = game.state
    win = s.cfg.win_per_color
    s.mat_shamblers.update({"red": win, "blue": win, "green": win - 1})
    s.towns[0].shamblers["green"] = 1
    script_dice(game, 0)
    game.apply(0, Command.of("banish"))
    events = game.apply(0, Command.of("pay", color="green", madness=0, chaos=0))
    assert game.outcome == "won" and [e.type for e in events] == ["banished", "game_won"]
    assert events[-1]["cause"] == "banished" and s.actions_left == 0
    assert game.prompt is None and game.legal(0) == []
    assert s.turn == 1 and s.mat_tentacles == {"red": 0, "blue": 0, "green": 0}  # no feed after the win


def test_win_beats_a_simultaneous_loss(game, content):
    """A Delirium track that is full in the same moment as the winning banish: the win stands."""
    clear_board(game)
    s = game.state
    win = s.cfg.win_per_color
    s.mat_shamblers.update({"red": win, "blue": win, "green": win - 1})
    s.mats[0].delirium = content.shamblers.delirium_capacity
    s.mat_tentacles["red"] = content.shamblers.loss_mat_tentacles
    s.towns[0].shamblers["green"] = 1
    script_dice(game, 0)
    game.apply(0, Command.of("banish"))
    events = game.apply(0, Command.of("pay", color="green", madness=0, chaos=0))
    assert game.outcome == "won" and events[-1].type == "game_won"


def test_empty_bag_is_refilled_from_the_discard_mat(game):
    s = game.state
    s.bag.clear()
    draw = s.cfg.wheel_draw
    s.discard.update({"red": draw, "blue": 1, "green": 0})
    events = end_actions(game)
    refill = [e for e in events if e.type == "bag_refilled"]
    assert refill and refill[0]["count"] == draw + 1
    drawn = next(e for e in events if e.type == "tentacles_drawn")["tentacles"]
    assert len(drawn) == draw and len(s.bag) == 1 and sum(s.discard.values()) == 0


def test_bag_and_discard_both_empty_draws_nothing(game):
    s = game.state
    s.bag.clear()
    s.discard.update({c: 0 for c in s.colors})
    events = end_actions(game)
    assert any(e.type == "bag_empty" for e in events)
    assert next(e for e in events if e.type == "tentacles_drawn")["tentacles"] == []


def test_turns_rotate_over_the_players_seats(content):
    g = Game.new(Setup(mode="shamblers", seed=3, players=3), content)
    assert [m.name for m in g.state.mats] == ["Player 1", "Player 2", "Player 3"]
    seats = []
    for _ in range(4):
        seats.append(g.prompt.seat)
        clear_board(g)
        end_actions(g, g.prompt.seat)
    assert seats == [0, 1, 2, 0]


def test_view_is_plain_data_without_secrets(game):
    view = game.view(0)
    assert json.loads(json.dumps(view)) == view
    assert view["mode"] == "shamblers"
    assert view["shambler_track_count"] == len(game.state.track)
    assert view["bag_count"] == len(game.state.bag)
    text = json.dumps(view)
    assert "counters" not in text and "seed" not in text
    assert "track" not in {k for k in view} and "bag" not in view
    # The view must not depend on the secret orders.
    s = game.state
    s.bag.reverse()
    s.track.reverse()
    assert game.view(0) == view


def test_prompt_texts_are_english(game):
    labels = [o.label for o in game.prompt.options]
    assert any(label.startswith("Move clockwise to ") for label in labels)
    assert any(label.startswith("End your actions") for label in labels)
    assert game.prompt.text.startswith("Player 1, turn 1: 3 actions left on ")


def test_unknown_content_fails_clearly():
    from cthulhu.core.content import Content

    with pytest.raises(ContentError, match="no content for mode 'shamblers'"):
        Game.new(Setup(mode="shamblers"), Content(version="x", modes={}))


def test_a_game_is_played_at_the_difficulty_its_setup_names(content):
    easy = Game.new(Setup(mode="shamblers", seed=5, difficulty="easy"), content)
    hard = Game.new(Setup(mode="shamblers", seed=5, difficulty="hard"), content)
    normal = Game.new(Setup(mode="shamblers", seed=5), content)
    assert (easy.state.cfg.difficulty, hard.state.cfg.difficulty, normal.state.cfg.difficulty) == ("easy", "hard", "normal")
    assert hard.view(0)["difficulty"] == {"id": "hard", "name": "Hard"}
    assert hard.view(0)["goals"]["loss_mat_tentacles"] == content.shamblers.at("hard").loss_mat_tentacles
    assert next(e for e in hard.start_events if e.type == "game_started")["difficulty"] == "Hard"
    drawn = next(e for e in hard.start_events if e.type == "tentacles_drawn")["tentacles"]
    assert len(drawn) == content.shamblers.at("hard").wheel_draw
    # A snapshot comes back at its own level.
    again = Game.from_canonical(hard.canonical(), content)
    assert again.state.cfg.difficulty == "hard" and again.state_hash() == hard.state_hash()
    # Normal named or left out is the same game, and a setup without a level dumps as before levels existed.
    assert "difficulty" not in normal.setup.model_dump(mode="json")
    assert Game.new(Setup(mode="shamblers", seed=5, difficulty="normal"), content).state.cfg is normal.state.cfg


def test_a_difficulty_must_exist_and_is_for_shamblers_only(content):
    from pydantic import ValidationError

    with pytest.raises(ValueError, match="unknown difficulty 'nightmare'; choose from easy, normal, hard"):
        Game.new(Setup(mode="shamblers", seed=1, difficulty="nightmare"), content)
    with pytest.raises(ValidationError, match="difficulty levels are for Shamblers mode"):
        Setup(mode="main", difficulty="hard")
