"""Shamblers mode in the terminal app, without a terminal: the Log's sentences and the panes' text."""

from __future__ import annotations

import pytest

from cthulhu.core import Command, Game, Setup, script_dice
from cthulhu.core.bots import make_bot
from cthulhu.tui.modes.shamblers import narrate as narrate_shamblers
from cthulhu.tui.narrate import tell
from cthulhu.tui.modes.shamblers.render import (
    dice_line,
    render_mats,
    render_shambler_story,
    render_towns,
    short_labels,
    summary,
)

TOWNS = ["The Drowned Harbour", "Chapel of the Hollow Bell", "The Old Salt Mill", "Blackrock Lighthouse", "Fishmongers' Row"]


@pytest.fixture(scope="module")
def view():
    return Game.new(Setup(mode="shamblers", seed=2, players=2)).view(0)


def say(ev: dict, view: dict) -> tuple[str, str]:
    return tell(ev, view)


# -- the Log: one sentence per event type -------------------------------------


def test_game_started(view):
    kind, text = say({"type": "game_started", "mode": "shamblers", "difficulty": "Normal", "mats": ["Player 1"], "towns": TOWNS,
                      "shamblers": 15, "bag": 42}, view)
    assert text == "A game of Shamblers on Normal begins: 5 Town Cards in a ring, 15 Shamblers on the Shambler Track, 42 tentacles in the bag."
    kind, text = say({"type": "game_started", "mode": "shamblers", "difficulty": "Hard", "mats": ["Player 1"], "towns": TOWNS, "shamblers": 15, "bag": 42}, view)
    assert text.startswith("A game of Shamblers on Hard begins: 5 Town Cards")


def test_turn_started_names_the_player_mat(view):
    assert say({"type": "turn_started", "turn": 4, "mat": 1, "seat": 1}, view) == ("turn", "Turn 4: Player 2 takes the turn.")


def test_wheel_turned(view):
    assert say({"type": "wheel_turned", "town": 3}, view) == ("story", "The Wheel turns to Blackrock Lighthouse.")


def test_tentacles_drawn_by_name_and_letter(view):
    kind, text = say({"type": "tentacles_drawn", "town": 0, "tentacles": ["red", "chaos"]}, view)
    assert text == "2 tentacles drawn from the bag onto The Drowned Harbour: Rage Tentacle (R), Chaos Tentacle (C)."
    assert "No tentacle is left" in say({"type": "tentacles_drawn", "town": 0, "tentacles": []}, view)[1]


def test_shambler_placed(view):
    kind, text = say({"type": "shambler_placed", "town": 2, "color": "green", "track_left": 13}, view)
    assert kind == "enemy"
    assert text == ("A green Shambler (G) rises on The Old Salt Mill, two steps clockwise of the Wheel; "
                    "13 left on the Shambler Track.")


def test_moved_names_both_town_cards(view):
    assert say({"type": "moved", "mat": 0, "from": 0, "to": 4}, view) == ("move", "Player 1 moves from The Drowned Harbour to Fishmongers' Row.")


def test_gathered_onto_a_track_or_lost_to_a_full_one(view):
    assert say({"type": "gathered", "mat": 0, "town": 0, "color": "blue", "to": "track"}, view) == (
        "good", "Player 1 gathers a Dread Tentacle (B) from The Drowned Harbour onto the Dread Track.")
    kind, text = say({"type": "gathered", "mat": 1, "town": 1, "color": "red", "to": "discard"}, view)
    assert kind == "harm" and text == "Player 2's Rage Track is full: the Rage Tentacle (R) from Chapel of the Hollow Bell goes to the Discard Mat."
    # A Chaos Tentacle gathered onto a full Chaos Track goes to the Discard Mat too (back into the bag later).
    kind, text = say({"type": "gathered", "mat": 0, "town": 1, "color": "chaos", "to": "discard"}, view)
    assert kind == "harm" and text.endswith("goes to the Discard Mat.") and "Chaos Track is full" in text


def test_delirium(view):
    ev = {"type": "delirium", "mat": 0, "delirium": 3, "capacity": 5, "reason": "track_full"}
    assert say(ev, view) == ("harm", "Player 1 gains 1 Delirium (a full track): 3 of 5.")


def test_dice_rolled_shows_tentacles_per_die_and_the_cost(view):
    kind, text = say({"type": "dice_rolled", "mat": 0, "town": 2, "dice": [1, 2, 0], "cost": 2}, view)
    assert kind == "dice"
    assert text == ("Player 1 rolls 3 Cthulhu Dice on The Old Salt Mill: [1] [2] [0] (tentacles per die); "
                    "the highest die sets the cost at 2 tentacles.")
    one = say({"type": "dice_rolled", "mat": 0, "town": 2, "dice": [0], "cost": 0}, view)[1]
    assert "rolls 1 Cthulhu Die " in one and one.endswith("all zero, so the banish is free.")


def test_banished_tells_cost_payment_and_the_rage_bonus(view):
    ev = {"type": "banished", "mat": 0, "town": 2, "color": "red", "dice": [2, 1], "cost": 2,
          "payment": {"madness": 1, "chaos": 1}, "rage_at_start": 1, "mat_tentacles_discarded": 2}
    kind, text = say(ev, view)
    assert kind == "good"
    assert text == ("Player 1 banishes a red Shambler (R) from The Old Salt Mill paying "
                    "1 Rage to the Discard Mat and 1 Chaos to the general supply. "
                    "With 1 Rage Tentacle held when the banish began, 2 red tentacles leave the Shambler Mat for the Discard Mat.")
    free = dict(ev, dice=[0, 0], cost=0, payment={"madness": 0, "chaos": 0}, rage_at_start=0, mat_tentacles_discarded=0)
    text = say(free, view)[1]
    assert "from The Old Salt Mill for free (every die showed zero)." in text
    assert "With 0 Rage Tentacles held" in text
    assert "no red tentacle is on the Shambler Mat to take off" in text


def test_banish_failed_and_declined(view):
    assert say({"type": "banish_failed", "mat": 0, "town": 2, "cost": 2, "reason": "x"}, view)[1] == (
        "Player 1 cannot pay 2 tentacles in a Shambler's color (nor with Chaos): no banish, nothing spent.")
    assert say({"type": "banish_declined", "mat": 1}, view) == ("info", "Player 2 chooses not to banish; nothing is spent.")


def test_actions_ended(view):
    assert say({"type": "actions_ended", "mat": 0, "skipped": 2}, view)[1] == "Player 1 ends their actions with 2 actions unused."
    assert say({"type": "actions_ended", "mat": 0, "skipped": 0}, view)[1] == "Player 1 ends their actions."


def test_fed_says_the_loss_threshold(view):
    kind, text = say({"type": "fed", "town": 4, "color": "blue", "shambler_mat": 3}, view)
    assert kind == "harm"
    assert text == "The Shamblers on Fishmongers' Row feed on a Dread Tentacle (B): the Shambler Mat now holds 3 blue tentacles (5 of one color lose the game)."


def test_bag_refilled_and_empty(view):
    assert say({"type": "bag_refilled", "count": 12}, view)[1] == "The bag is empty: the Discard Mat's 12 tentacles are shuffled back into it."
    assert "nothing to draw onto The Old Salt Mill" in say({"type": "bag_empty", "town": 2}, view)[1]


def test_game_won_and_every_way_to_lose(view):
    assert say({"type": "game_won", "cause": "banished", "turn": 9, "shambler_mat": {}}, view) == (
        "end", "The game is won on turn 9: enough Shamblers of every color are banished.")
    lost = [
        ({"cause": "shambler_mat_full", "color": "red", "count": 6}, "the Shambler Mat holds 6 red tentacles"),
        ({"cause": "delirium", "mat": 1}, "Player 2's Delirium track is full"),
        ({"cause": "shambler_track_empty", "town": 3}, "a Shambler must rise on Blackrock Lighthouse but the Shambler Track is empty"),
    ]
    for data, why in lost:
        assert say({"type": "game_lost", "turn": 12, **data}, view) == ("end", f"The game is lost on turn 12: {why}.")


def test_the_main_game_keeps_its_own_sentences():
    main = Game.new(Setup(seed=3)).view(0)
    moved = {"type": "moved", "inv": 0, "name": "Ada Whitlock", "frm": "yard_gate", "to": "loading_dock", "space": "Loading Dock"}
    assert tell(moved, main) == ("move", "Ada Whitlock moves to Loading Dock.")


def test_every_event_of_real_games_has_a_shamblers_sentence():
    """Random bots over a few seeds: no event falls back to the generic field dump."""
    types = set()
    for seed in range(12):
        game = Game.new(Setup(mode="shamblers", seed=seed, players=2))
        bot = make_bot("random", "shamblers", seed)
        events = list(game.start_events)
        while game.outcome is None:
            seat = game.prompt.seat
            events += game.apply(seat, bot.choose(game, seat))
        view = game.view(0)
        for ev in events:
            wire = ev.wire()
            types.add(wire["type"])
            told = narrate_shamblers.tell(wire, view)
            assert told is not None, wire
            assert "_" not in told[1] and "None" not in told[1], told
    assert {"wheel_turned", "tentacles_drawn", "shambler_placed", "moved", "dice_rolled", "fed", "game_lost"} <= types


# -- the panes ----------------------------------------------------------------


def test_ring_shows_every_town_with_arrows_both_ways(view):
    text = render_towns(view, 70).plain
    assert all(len(line) <= 70 for line in text.splitlines())
    for name in ("The Drowned Harbour", "The Old Salt Mill", "Blackrock Lighthouse", "Fishmongers' Row", "Chapel Hollow Bell"):
        assert name in text
    assert "→" in text and "←" in text and "↑" in text and "↓" in text
    # the Wheel's pick and both Player Mats are on the Harbour (town 1)
    harbour = [line for line in text.splitlines() if "P1 P2 W" in line]
    assert harbour and "║" in harbour[0]  # the active player's town has the double border
    assert "Shamblers G1" in text  # the first Shambler rose on the Mill


def test_ring_in_ascii_is_plain_ascii_and_letters(view):
    text = render_towns(view, 70, ascii_only=True).plain
    assert text.isascii()
    assert "R1" in text and "B2" in text and " > " in text.replace("|", " ").replace("H", " ")


def test_narrow_ring_is_a_list_that_fits(view):
    for width in (30, 44):
        text = render_towns(view, width).plain
        assert all(len(line) <= width for line in text.splitlines() if not line.startswith(("R Rage", "P1")))
        assert "1 The Drowned Harbour" in text and "5 Fishmongers' Row" in text
        assert "Clockwise: 1 → 2 → 3 → 4 → 5 → 1" in text or "Clockwise: 1→2→3→4→5→1" in text
    assert "Tentacles R1 B2 C1  Shamblers -" in render_towns(view, 44).plain
    assert "T R1 B2 C1  Sh -" in render_towns(view, 30).plain and "Sh Shamblers" in render_towns(view, 30).plain


def test_story_board_shows_track_mat_bag_and_supply(view):
    text = render_shambler_story(view, 44).plain
    assert "Shambler Track  14 left" in text and "secret" in text
    assert "R Rage   [....] 0/4  [.....] 0/5" in text
    assert "win: 4 banished per color" in text and "lose: 5 tentacles of a color" in text
    assert "Bag 38 tentacles" in text and "Discard Mat 0" in text and "General supply 0 Chaos" in text
    assert all(len(line) <= 30 for line in render_shambler_story(view, 30).plain.splitlines())
    held = {**view, "discard": {"red": 2, "blue": 0, "green": 0, "chaos": 1}}
    assert "Discard Mat 3: R2 C1" in render_shambler_story(held, 44).plain


def test_player_mats_show_every_track_with_capacity(view):
    text = render_mats(view, 44).plain
    assert "Turn 1  P1 Player 1: actions (3 left)" in text
    assert ">P1 Player 1" in text and " P2 Player 2" in text
    for line in ("R Rage    [..] 0/2", "B Dread   [...] 0/3", "G Decay   [...] 0/3", "C Chaos   [..] 0/2", "Delirium  [.....] 0/5"):
        assert line in text
    assert "on 1 The Drowned Harbour" in text


def banish_game() -> Game:
    """Two Shamblers (red, blue) on the Harbour, a mat holding Rage, Dread and Chaos; the dice show 2 and 1."""
    game = Game.new(Setup(mode="shamblers", seed=2))
    s = game.state
    here = s.towns[s.mats[0].town]
    here.shamblers.update(red=1, blue=1)
    s.mats[0].tracks.update(red=2, blue=1)
    s.mats[0].chaos = 2
    script_dice(game, 2, 1)
    game.apply(0, Command.of("banish"))
    return game


def test_payment_choices_are_short_in_the_bar_and_full_in_the_list():
    game = banish_game()
    view = game.view(0)
    full = [o["label"] for o in view["prompt"]["options"]]
    labels, header = short_labels(view["prompt"], view, 78)
    assert len(labels) == len(full) >= 6
    assert "R red: 2 Rage" in labels and "R red: 1 Rage + 1 Chaos" in labels and "R red: 2 Chaos" in labels
    assert "B blue: 1 Dread + 1 Chaos" in labels and "B blue: 2 Chaos" in labels
    assert labels[-1] == "don't banish"
    assert header == "The Cthulhu Dice show [2] [1]: the highest die sets the cost, 2 tentacles. Which Shambler, paid how?"
    assert "Banish a red Shambler paying 1 Rage + 1 Chaos" in full


def test_dice_line_shows_tentacles_and_cost():
    view = banish_game().view(0)
    line = dice_line(view).plain
    assert line.startswith("Cthulhu Dice (tentacles): [2] [1]") and "cost 2, the highest die (never the sum)" in line
    story = render_shambler_story(view, 44).plain
    assert "Last roll [2] [1]  cost 2" in story and "Banishing on The Drowned Harbour: cost 2" in story


def test_game_over_summary_lists_the_mats():
    text = summary(Game.new(Setup(mode="shamblers", seed=2)).view(0)).plain
    assert "Shambler Mat: banished -" in text and "Player 1: Delirium 0/5" in text


def test_help_explains_the_mode_being_played():
    from cthulhu.content import builtin
    from cthulhu.tui.screens.dialogs import help_text

    shamblers = " ".join(help_text("shamblers", builtin()).split())  # as read, not as wrapped
    assert "Cthulhu Die" in shamblers and "never the" in shamblers and "Shambler Mat" in shamblers
    assert "ring of five Town Cards" in shamblers and "Take three actions" in shamblers  # numbers from the content
    # The numbers are those of the level being played.
    assert "Shamblers (Normal)" in shamblers and "4 Madness Tentacles come out" in shamblers
    assert "Win at once with 4 Shamblers of every color" in shamblers and "holds 5 tentacles" in shamblers
    hard = Game.new(Setup(mode="shamblers", seed=1, difficulty="hard")).view(0)
    flat = " ".join(help_text("shamblers", builtin(), view=hard).split())
    assert "Shamblers (Hard)" in flat and "5 Madness Tentacles come out" in flat and "holds 3 tentacles" in flat
    main = " ".join(help_text("main", builtin()).split())
    assert "Mythos" in main and "Shambler" not in main and "Run (move up to 3 spaces" in main
