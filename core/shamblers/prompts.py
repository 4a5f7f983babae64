"""Shamblers' prompt kinds and the structured data each option carries (see `core.main.prompts`)."""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import NotRequired, TypedDict


class ActionData(TypedDict):
    """Each action carries only its own fields (deltas stay small)."""

    action: Literal["move", "gather", "banish", "end_actions"]
    town: NotRequired[int]  # move: where to; gather, banish: the card it happens on
    clockwise: NotRequired[bool]  # move: the direction
    color: NotRequired[str]  # gather: the tentacle's color (or "chaos")
    track_full: NotRequired[bool]  # gather: the track is full (the tentacle is discarded, +1 Delirium)
    dice: NotRequired[int]  # banish: Cthulhu Dice to roll (one per Shambler here)


class BanishData(TypedDict):
    banish: bool  # False: do not banish (and no other field)
    color: NotRequired[str]  # the Shambler's color
    madness: NotRequired[int]  # tentacles of that color paid
    chaos: NotRequired[int]  # Chaos Tentacles paid in their stead
    tentacle: NotRequired[str]  # that color's tentacle name ("Rage")


class FeedData(TypedDict):
    color: str
    tentacle: str


PROMPTS: dict[str, Any] = {"action": ActionData, "banish": BanishData, "feed": FeedData}
