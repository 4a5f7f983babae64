"""Typed errors of the rules core. Every rejection leaves the state untouched."""

from __future__ import annotations


class Rejected(Exception):
    """A command that cannot be applied now; `reason` is for a human."""

    code = "illegal"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotYourDecision(Rejected):
    """The command came from a seat that is not deciding the current prompt."""

    code = "not_your_decision"


class StalePrompt(Rejected):
    """The command answers a prompt that has since been replaced."""

    code = "stale_prompt"


class IllegalCommand(Rejected):
    """The command is well formed but not among the legal choices."""

    code = "illegal"


class MalformedCommand(Rejected):
    """The command is not a command at all (wrong shape or types)."""

    code = "malformed"


class GameOver(Rejected):
    """The game has ended; nothing more can be applied."""

    code = "game_over"


class CannotUndo(Rejected):
    """Nothing (or not that much) can be taken back now: a reveal or another seat came between."""

    code = "cannot_undo"


class ContentError(Exception):
    """Content that fails validation; the message names file, entry and field."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems
