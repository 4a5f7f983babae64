"""Seed 000's banish step, example by example, with scripted Cthulhu Dice."""

from __future__ import annotations

import pytest

from cthulhu.core import Command, Game, IllegalCommand, NotYourDecision, Setup, StalePrompt, script_dice


def arrange(game: Game, shamblers: dict[str, int], tracks: dict[str, int] | None = None, chaos: int = 0,
            mat_tentacles: dict[str, int] | None = None) -> None:
    """Put Player 1 on a card holding exactly these Shamblers, with these tentacles held."""
    s = game.state
    mat = s.mats[0]
    town = s.towns[mat.town]
    for c in s.colors:
        town.shamblers[c] = shamblers.get(c, 0)
        mat.tracks[c] = (tracks or {}).get(c, 0)
        s.mat_tentacles[c] = (mat_tentacles or {}).get(c, 0)
    mat.chaos = chaos


@pytest.fixture
def game(content) -> Game:
    return Game.new(Setup(mode="shamblers", seed=11), content)


def banish(game: Game, *faces: int):
    script_dice(game, *faces)
    return game.apply(0, Command.of("banish"))


def offered(game: Game) -> set[Command]:
    return set(game.legal(0))


def test_two_shamblers_roll_two_dice(game):
    arrange(game, {"red": 1, "blue": 1})
    events = banish(game, 0, 1)
    rolled = [e for e in events if e.type == "dice_rolled"]
    assert len(rolled) == 1 and rolled[0]["dice"] == [0, 1]


def test_one_shambler_rolls_one_die(game):
    arrange(game, {"green": 1}, tracks={"green": 2})
    events = banish(game, 2)
    assert [e["dice"] for e in events if e.type == "dice_rolled"] == [[2]]


def test_two_single_tentacles_cost_one_not_two(game):
    arrange(game, {"red": 2}, tracks={"red": 2})
    events = banish(game, 1, 1)
    assert events[0]["cost"] == 1
    assert offered(game) == {Command.of("pay", color="red", madness=1, chaos=0), Command.of("decline")}
    game.apply(0, Command.of("pay", color="red", madness=1, chaos=0))
    assert game.state.mats[0].tracks["red"] == 1


def test_two_tentacle_red_banish_offers_exactly_the_three_ways_to_pay(game):
    arrange(game, {"red": 2}, tracks={"red": 2}, chaos=2)
    events = banish(game, 2, 1)
    assert events[0]["cost"] == 2
    assert offered(game) == {
        Command.of("pay", color="red", madness=2, chaos=0),
        Command.of("pay", color="red", madness=1, chaos=1),
        Command.of("pay", color="red", madness=0, chaos=2),
        Command.of("decline"),
    }
    labels = {o.label for o in game.prompt.options}
    assert "Banish a red Shambler paying 2 Rage" in labels
    assert "Banish a red Shambler paying 1 Rage + 1 Chaos" in labels
    assert "Banish a red Shambler paying 2 Chaos" in labels


def test_payment_is_offered_per_shambler_color(game):
    arrange(game, {"red": 1, "blue": 1}, tracks={"red": 1, "blue": 2}, chaos=1)
    banish(game, 2, 0)
    assert offered(game) == {
        Command.of("pay", color="red", madness=1, chaos=1),
        Command.of("pay", color="blue", madness=2, chaos=0),
        Command.of("pay", color="blue", madness=1, chaos=1),
        Command.of("decline"),
    }


def test_other_colors_never_pay(game):
    arrange(game, {"red": 1}, tracks={"blue": 3, "green": 3})
    events = banish(game, 1)
    assert [e.type for e in events] == ["dice_rolled", "banish_failed"]


def test_one_rage_at_start_moves_two_red_tentacles_off_the_shambler_mat(game):
    arrange(game, {"red": 1}, tracks={"red": 1}, mat_tentacles={"red": 4, "blue": 3})
    banish(game, 1)
    s = game.state
    discard_before = dict(s.discard)
    events = game.apply(0, Command.of("pay", color="red", madness=1, chaos=0))
    done = next(e for e in events if e.type == "banished")
    assert done["rage_at_start"] == 1  # paying with that Rage does not lower the bonus
    assert done["mat_tentacles_discarded"] == 2
    assert s.mat_tentacles == {"red": 2, "blue": 3, "green": 0}
    assert s.mat_shamblers["red"] == 1 and s.towns[s.mats[0].town].shamblers["red"] == 0
    assert s.discard["red"] == discard_before["red"] + 2 + 1  # two off the mat, one spent
    assert s.mats[0].tracks["red"] == 0


@pytest.mark.parametrize(("rage", "moved"), [(0, 1), (1, 2), (2, 3)])
def test_bonus_follows_rage_held_when_the_banish_started(game, rage, moved):
    arrange(game, {"blue": 1}, tracks={"red": rage, "blue": 1}, mat_tentacles={"blue": 5})
    banish(game, 1)
    events = game.apply(0, Command.of("pay", color="blue", madness=1, chaos=0))
    assert next(e for e in events if e.type == "banished")["mat_tentacles_discarded"] == moved
    assert game.state.mat_tentacles["blue"] == 5 - moved


def test_bonus_moves_only_what_the_shambler_mat_holds(game):
    arrange(game, {"green": 1}, tracks={"red": 2}, mat_tentacles={"green": 1})
    banish(game, 0)
    events = game.apply(0, Command.of("pay", color="green", madness=0, chaos=0))
    assert next(e for e in events if e.type == "banished")["mat_tentacles_discarded"] == 1
    assert game.state.mat_tentacles["green"] == 0


def test_all_zeros_banish_for_free(game):
    arrange(game, {"red": 1, "green": 2}, tracks={"red": 1}, chaos=1)
    events = banish(game, 0, 0, 0)
    assert events[0]["cost"] == 0
    assert offered(game) == {
        Command.of("pay", color="red", madness=0, chaos=0),
        Command.of("pay", color="green", madness=0, chaos=0),
        Command.of("decline"),
    }
    game.apply(0, Command.of("pay", color="green", madness=0, chaos=0))
    s = game.state
    assert s.mats[0].tracks["red"] == 1 and s.mats[0].chaos == 1
    assert s.mat_shamblers["green"] == 1


def test_cannot_pay_means_no_banish_and_nothing_spent(game):
    arrange(game, {"red": 1}, tracks={"red": 1, "blue": 2}, chaos=0)
    s = game.state
    before = (dict(s.mats[0].tracks), s.mats[0].chaos, dict(s.discard), dict(s.towns[s.mats[0].town].shamblers))
    events = banish(game, 2)
    assert [e.type for e in events] == ["dice_rolled", "banish_failed"]
    assert (dict(s.mats[0].tracks), s.mats[0].chaos, dict(s.discard), dict(s.towns[s.mats[0].town].shamblers)) == before
    assert s.actions_left == 2  # the attempt used the action
    assert game.prompt.kind == "action"


def test_spent_chaos_goes_to_the_supply_and_madness_to_the_discard(game):
    arrange(game, {"red": 1}, tracks={"red": 1}, chaos=2)
    banish(game, 2)
    s = game.state
    discard_red = s.discard["red"]
    events = game.apply(0, Command.of("pay", color="red", madness=1, chaos=1))
    assert next(e for e in events if e.type == "banished")["payment"] == {"madness": 1, "chaos": 1}
    assert s.supply_chaos == 1 and s.mats[0].chaos == 1
    assert s.discard["red"] == discard_red + 1  # spent Rage; the Shambler Mat held no red to move


def test_two_chaos_at_most_stand_in(game, content):
    arrange(game, {"red": 1}, chaos=2)
    banish(game, 2)
    assert offered(game) == {Command.of("pay", color="red", madness=0, chaos=2), Command.of("decline")}
    assert content.shamblers.chaos_wild_max == 2


def test_declining_spends_nothing_but_the_action(game):
    arrange(game, {"red": 1}, tracks={"red": 2})
    banish(game, 1)
    events = game.apply(0, Command.of("decline"))
    s = game.state
    assert [e.type for e in events] == ["banish_declined"]
    assert s.mats[0].tracks["red"] == 2 and s.towns[s.mats[0].town].shamblers["red"] == 1
    assert s.actions_left == 2


def test_rejections_change_nothing(game):
    arrange(game, {"red": 1}, tracks={"red": 1})
    before = game.state_hash()
    with pytest.raises(IllegalCommand):
        game.apply(0, Command.of("pay", color="red", madness=1, chaos=0))
    with pytest.raises(NotYourDecision):
        game.apply(1, Command.of("banish"))
    with pytest.raises(StalePrompt):
        game.apply(0, Command.of("banish"), version=game.step + 1)
    with pytest.raises(IllegalCommand):
        game.apply(0, Command.of("move", town=99))
    assert game.state_hash() == before
    banish(game, 2)
    before = game.state_hash()
    with pytest.raises(IllegalCommand):
        game.apply(0, Command.of("pay", color="red", madness=1, chaos=1))
    assert game.state_hash() == before
