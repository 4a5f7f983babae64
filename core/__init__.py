"""The rules core: pure, deterministic, seeded. No I/O, no clock, no `random`.

The public surface is what this module exports (`__all__`, held by
tests/core/test_surface.py): the façade (`Game`, `Setup`), the values that cross
layers (`Command`, `Event`, `Prompt`, `Option` and their wire forms), the typed
rejections, and the mode registry (`modes`, `Mode`, `Rules`). A mode's own
types live in its package (`cthulhu.core.main.view.MainView` ...).
"""

from . import modes
from .command import Command, Event, Option, OptionWire, Prompt, PromptWire
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
from .game import Game, script_dice
from .modes import Mode
from .rules import Rules
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
