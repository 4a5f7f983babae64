"""The public surface of the rules core does not drift by accident (as trio's test_exports holds its own)."""

from __future__ import annotations

import cthulhu.core as core

SURFACE = {
    "CannotUndo", "Command", "ContentError", "Event", "Game", "GameOver", "IllegalCommand", "MalformedCommand", "Mode",
    "NotYourDecision", "Option", "OptionWire", "Prompt", "PromptWire", "Rejected", "Rules", "Setup", "StalePrompt",
    "modes", "script_dice",
}


def test_the_core_exports_exactly_its_surface():
    assert set(core.__all__) == SURFACE, "update SURFACE (and the callers) on purpose"
    assert all(getattr(core, name, None) is not None for name in core.__all__)


def test_every_registered_mode_declares_its_contracts():
    for mode in core.modes.all_modes():
        assert mode.view is not None and mode.events is not None and mode.prompts, mode.name
        assert mode.scramble is not None, f"{mode.name}: declare what is secret"
        assert callable(getattr(mode.rules(), "secret", None)), f"{mode.name}: name the hidden piles, or nothing can be taken back"
        assert "random" in mode.bot_kinds
        if "search" in mode.bot_kinds:  # the search bot plays a mode by what it declares, nothing else
            assert mode.search is not None, f"{mode.name}: a search bot needs Mode.search (worlds, a value, a policy)"
