"""The rules core: pure, deterministic, seeded. No I/O, no clock, no `random`."""

from .command import Command, Event, Option, Prompt
from .errors import (
    CannotUndo,
    ContentError,
    GameOver,
    IllegalCommand,
    MalformedCommand,
    NotYourDecision,
    Rejected,
    StalePrompt,
)
from .game import Game, Rules, rules_for, script_dice
from .setup import Setup

__all__ = [
    "CannotUndo",
    "Command",
    "ContentError",
    "Event",
    "Game",
    "GameOver",
    "IllegalCommand",
    "MalformedCommand",
    "NotYourDecision",
    "Option",
    "Prompt",
    "Rejected",
    "Rules",
    "Setup",
    "StalePrompt",
    "rules_for",
    "script_dice",
]
