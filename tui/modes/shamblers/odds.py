"""The odds panel's lines in Shamblers: what a banish on the active Player Mat's Town Card would cost."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from cthulhu.core.shamblers.view import ShamblersView

from ..main.odds import percent


def banish_lines(view: ShamblersView, content: Any) -> list[str]:
    """The chance of each cost (the highest of the Cthulhu Dice) and of affording each color here,
    while Banish is one of the choices; [] otherwise."""
    prompt = view["prompt"]
    if prompt is None or not any(o["command"]["kind"] == "banish" for o in prompt["options"]):
        return []
    mat = view["mats"][view["active"]]
    town = view["towns"][mat["town"]]
    dice = sum(town["shamblers"].values())
    faces = view["die"]["faces"]
    at_most = [Fraction(sum(1 for f in faces if f <= k), len(faces)) ** dice for k in range(max(faces) + 1)]
    costs = [at_most[0]] + [at_most[k] - at_most[k - 1] for k in range(1, len(at_most))]
    lines = [f"Banish at {town['name']}: {dice} Cthulhu {'Die' if dice == 1 else 'Dice'}, the highest sets the cost"]
    lines.append("  cost " + ", ".join(f"{k}: {percent(p)}" for k, p in enumerate(costs) if p))
    wild = min(mat["chaos"], view["banish_rules"]["chaos_wild_max"])
    for color in (c for c in view["colors"] if town["shamblers"][c["id"]]):
        held = mat["tracks"][color["id"]] + wild
        lines.append(f"  a {color['id']} Shambler ({held} to pay with, Chaos included): {percent(at_most[min(held, len(at_most) - 1)])}")
    return lines
