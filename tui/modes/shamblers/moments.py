"""Shamblers mode's big moments (`tui.moments`): the Wheel turning (what it drew, where a Shambler
rose), the Shamblers feeding at the end of a turn, and the end of the game."""

from __future__ import annotations

from typing import Any

from cthulhu.core.shamblers.view import ShamblersView

from .. import Beat
from .narrate import TELLERS, ShamblerNames

WHEEL = {"tentacles_drawn", "bag_refilled", "bag_empty", "shambler_placed"}  # what the Wheel's turn does
MOVE_ON = {"turn_started", "moved", "gathered", "dice_rolled", "banish_declined", "actions_ended"}


def beat(ev: Any, view: ShamblersView) -> Beat | None:
    """What one checked Shamblers event is to the moment card."""
    t = ev["type"]
    n = ShamblerNames(view)
    if t == "wheel_turned":
        return Beat("begin", "wheel", f"The Wheel turns to {n.town(ev['town'])}")
    if t in WHEEL:
        return Beat("add", "", "", TELLERS[t](ev, n)[1])
    if t == "fed":
        return Beat("add", f"feed:{view['turn']}", "The Shamblers feed", TELLERS[t](ev, n)[1])
    if t in ("game_won", "game_lost"):
        return Beat("begin", "end", "The game is won!" if t == "game_won" else "The game is lost", TELLERS[t](ev, n)[1])
    if t in MOVE_ON:
        return Beat("end")
    return None
