"""Issue 35: no prompt ever shows two identical labels, in any mode, on the wire or on the bar.

Random playouts of every registered mode at 1 to 4 players; at every prompt, the labels the view
carries (the engine's, told apart where they read alike) and the ones the TUI words from the options'
data (the bar's at 76 and 120 columns, the Choices list's at 200) are all distinct. The engine's own
labels, kept in the hashed state, are unchanged: the referee digests hold that.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cthulhu.core import Game, Setup
from cthulhu.core.labels import distinct_labels
from cthulhu.tui.modes import shown_labels

GAMES = 40


def alike(labels: list[str]) -> list[str]:
    return [label for label, n in Counter(labels).items() if n > 1]


def test_labels_alike_are_told_apart_by_place_then_by_number():
    data = [{"space": "Vat Hall"}, {"space": "Yard Gate"}, {"space": "Vat Hall"}, {}]
    assert distinct_labels(["The Cultist", "The Cultist", "Run", "Run"], data) == [
        "The Cultist at Vat Hall", "The Cultist at Yard Gate", "Run (1)", "Run (2)"]
    assert distinct_labels(["The Cultist in Vat Hall"] * 2, [{"space": "Vat Hall"}] * 2) == [
        "The Cultist in Vat Hall (1)", "The Cultist in Vat Hall (2)"]
    assert distinct_labels(["Run", "Rest"]) == ["Run", "Rest"]


@pytest.mark.parametrize("mode", ["main", "shamblers"])  # the game's modes (a test's toy mode may be registered too)
def test_no_prompt_shows_two_identical_labels(mode: str):
    seen: Counter[str] = Counter()
    alike_seen = 0
    for seed in range(GAMES):
        game = Game.new(Setup(mode=mode, seed=seed, players=1 + seed % 4))
        pick = random.Random(seed)
        while game.outcome is None and game.step < 3000:
            prompt = game.prompt
            view = game.view(prompt.seat)
            shown = view["prompt"]
            engine = [o.label for o in prompt.options]
            alike_seen += bool(alike(engine))
            wire = [o["label"] for o in shown["options"]]
            assert not alike(wire), (seed, game.step, shown["kind"], wire)
            for width in (76, 120, 200):
                bar, _ = shown_labels(shown, view, width)
                assert not alike(bar), (seed, game.step, shown["kind"], width, bar)
            seen[shown["kind"]] += 1
            game.apply(prompt.seat, pick.choice(game.legal(prompt.seat)))
    assert len(seen) >= 3  # every kind of prompt was met, or many
    if mode == "main":
        assert alike_seen > 10  # the engine offered options that read alike: there was something to tell apart
