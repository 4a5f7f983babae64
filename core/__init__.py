"""The rules core: pure, deterministic, seeded. No I/O, no clock, no `random`."""

from .command import Command, Event, Option, OptionWire, Prompt, PromptWire
from .errors import (
    ContentError,
    GameOver,
    IllegalCommand,
    MalformedCommand,
    NotYourDecision,
    Rejected,
    StalePrompt,
)
from .game import Game, Rules, script_dice
from . import modes
from .modes import Mode
from .setup import Setup

__all__ = [
    "Command",
    "ContentError",
    "Event",
    "Game",
    "GameOver",
    "IllegalCommand",
    "MalformedCommand",
    "Mode",
    "NotYourDecision",
    "Option",
    "OptionWire",
    "Prompt",
    "PromptWire",
    "Rejected",
    "Rules",
    "Setup",
    "StalePrompt",
    "modes",
    "script_dice",
]
