"""Issue 35, hints and labels over a game: a hint names only what its prompt offers, each person at a
hot-seat terminal meets each hint, and the bar's labels for one kind of prompt keep one form."""

from __future__ import annotations

import random

from cthulhu.core import Game, Setup
from cthulhu.tui.hints import Hints
from cthulhu.tui.modes import shown_labels


def _prompts(mode: str, seed: int, players: int = 1, steps: int = 600):
    """Every (game, view) of a random playout, the view the deciding seat's."""
    game = Game.new(Setup(mode=mode, seed=seed, players=players))
    pick = random.Random(seed)
    while game.outcome is None and game.step < steps:
        seat = game.prompt.seat
        yield game, game.view(seat)
        game.apply(seat, pick.choice(game.legal(seat)))


def test_the_shamblers_action_hint_names_only_the_actions_offered():
    seen = {}
    for _, view in _prompts("shamblers", 3):
        prompt = view["prompt"]
        if prompt["kind"] != "action":
            continue
        offered = frozenset(o["data"]["action"] for o in prompt["options"])
        hints = Hints()
        hint = hints.update(view, [], deciding=True)
        assert hint is not None
        seen[offered] = hint.plain
    assert len(seen) >= 2, seen  # some turns offer less than every action
    for offered, hint in seen.items():
        assert ("Gather" in hint) == ("gather" in offered) and ("Banish" in hint) == ("banish" in offered), (offered, hint)
        assert "Move" in hint


def test_each_hot_seat_player_meets_each_hint():
    """Two people at one terminal: the second one's first action has its hint too (it was the first's only)."""
    hints = Hints()
    told: dict[int, list[str]] = {0: [], 1: []}
    for _, view in _prompts("shamblers", 5, players=2, steps=200):
        line = hints.update(view, [], deciding=True)
        if line is not None and view["prompt"]["kind"] == "action":
            told[view["prompt"]["seat"]].append(line.plain)
    assert len(told[0]) == 1 and len(told[1]) == 1, told


def test_the_bars_move_labels_keep_one_form_from_prompt_to_prompt():
    """At 80 columns every Shamblers action prompt words a move the same way ("Move cw to ..."): the
    labels were short on a prompt with many options and long ("Move clockwise ...") on the next."""
    forms = set()
    for _, view in _prompts("shamblers", 7):
        prompt = view["prompt"]
        if prompt["kind"] == "action":
            labels, _ = shown_labels(prompt, view, 76)
            forms |= {" ".join(label.split()[:2]) for label, o in zip(labels, prompt["options"]) if o["data"]["action"] == "move"}
    assert forms and forms <= {"Move cw", "Move ccw"}, forms
