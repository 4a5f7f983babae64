"""First-game hints: one line, the first time each kind of decision (or a few events) comes up in a game.

The mode says what each hint reads (`TuiMode.hints`, keyed by prompt kind or
"event:<type>"); this keeps which ones a game has shown. A hint belongs to a
decision this terminal makes, and goes with it: none while someone else decides
(a watcher, a joiner waiting for their turn or for the table to fill), so each
person meets each hint at their own first decision of that kind; the decision's
own kind comes first, then the last event before it that has a hint (a Mythos
card drawn before a Discovery is not what the Discovery choice is about); the
next decision takes it away. Hot-seat players each meet each hint: what was shown is kept by seat.
A hint may be worded from the prompt it goes with (it names only what is offered).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from .modes import tui_mode


class Hints:
    """Which hints this game has shown, and the one to show now (`--no-hints` turns them off)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.seen: set[tuple[int, str]] = set()  # (seat, hint key): each person at this terminal has their own
        self.line: Text | None = None

    def update(self, view: dict[str, Any], event_types: list[str], *, deciding: bool) -> Text | None:
        """The hint for this update's decision, if `deciding` (the decision is this terminal's) and it is
        new: its kind's hint, else that of the last event with one."""
        self.line = None
        mode = tui_mode(view["mode"]) if view.get("mode") else None
        prompt = view.get("prompt")
        if not self.enabled or not deciding or mode is None or prompt is None or view.get("outcome"):
            return None
        last_event = next((key for key in (f"event:{t}" for t in reversed(event_types)) if key in mode.hints), None)
        for key in [prompt["kind"]] + ([last_event] if last_event else []):
            hint = mode.hints.get(key)
            text = hint(prompt) if callable(hint) else hint
            if text and (prompt["seat"], key) not in self.seen:
                self.seen.add((prompt["seat"], key))
                self.line = Text("Hint: ", style="bold italic")
                self.line.append(text, style="italic")
                break
        return self.line

    @property
    def text(self) -> str:
        return self.line.plain if self.line is not None else ""
