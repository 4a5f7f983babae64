"""Shamblers' prompt kinds and the structured data each option carries (see `core.main.prompts`)."""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict


class ActionData(TypedDict):
    action: Literal["move", "gather", "banish", "end_actions"]
    town: int | None  # move: where to; gather, banish: the card it happens on
    clockwise: bool | None  # move: the direction
    color: str | None  # gather: the tentacle's color (or "chaos")
    track_full: bool  # gather: the track is full (the tentacle is discarded, +1 Delirium)
    dice: int  # banish: Cthulhu Dice to roll (one per Shambler here)


class BanishData(TypedDict):
    banish: bool  # False: do not banish
    color: str | None  # the Shambler's color
    madness: int  # tentacles of that color paid
    chaos: int  # Chaos Tentacles paid in their stead
    tentacle: str | None  # that color's tentacle name ("Rage")


class FeedData(TypedDict):
    color: str
    tentacle: str


PROMPTS: dict[str, Any] = {"action": ActionData, "banish": BanishData, "feed": FeedData}
