"""How likely a Shamblers game is to be won from a seat's view: the search bot's evaluation.

A logistic model over the public facts that decide the race (Shamblers still to banish, the
Shambler Mat's tentacles against the loss threshold, the Shambler Track left, Delirium, the
Shamblers and tentacles on the Town Cards, what the Player Mats hold to pay with), fitted to
the outcomes of heuristic-bot games from the start of each turn
(`python bench/fit_values.py --mode shamblers`, which prints `WEIGHTS`).
"""

from __future__ import annotations

import math

from .view import ShamblersView


def features(view: ShamblersView) -> list[float]:
    """The facts the model weighs, each scaled to about 0..1 (the first is the constant)."""
    win = view["goals"]["win_per_color"]
    loss = view["goals"]["loss_mat_tentacles"]
    colors = [c["id"] for c in view["colors"]]
    need = [max(0, win - view["shambler_mat"]["shamblers"][c]) / win for c in colors]
    fed = [view["shambler_mat"]["tentacles"][c] / loss for c in colors]
    on_board = sum(sum(t["shamblers"].values()) for t in view["towns"])
    pressure = sum(min(sum(t["shamblers"].values()), sum(t["tentacles"][c] for c in colors)) for t in view["towns"])
    mats = view["mats"]
    delirium = max(m["delirium"] / m["delirium_capacity"] for m in mats)
    held = sum(sum(m["tracks"].values()) + m["chaos"] for m in mats) / len(mats)
    track = view["shambler_track_count"] / 15
    return [
        1.0, sum(need), max(need), sum(fed), max(fed), max(fed) ** 2, track, delirium, delirium**2,
        on_board / 5, pressure / 5, held / 5, sum(need) * (1 - track),
    ]


WEIGHTS: list[float] = [-2.6166, -3.9316, -0.3572, -0.3045, 0.9574, -2.4020, 15.1198, 0.0000, 0.0000, 3.9539, 0.4341, 0.6575, -0.6126]


def value(view: ShamblersView) -> float:
    """The estimated chance of a win from here (1 or 0 once the game is over)."""
    if view["outcome"] is not None:
        return float(view["outcome"] == "won")
    z = sum(w * x for w, x in zip(WEIGHTS, features(view)))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
