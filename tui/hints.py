"""First-game hints: one line, the first time each kind of decision (or a few events) comes up in a game.

The mode says what each hint reads (`TuiMode.hints`, keyed by prompt kind or
"event:<type>"); this keeps which ones a game has shown. A hint belongs to the
update that brought it: the next update takes it away.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from .modes import tui_mode


class Hints:
    """Which hints this game has shown, and the one to show now (`--no-hints` turns them off)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.seen: set[str] = set()
        self.line: Text | None = None

    def update(self, view: dict[str, Any], event_types: list[str]) -> Text | None:
        """The hint for the first thing in this update not met before (events first, then the prompt's kind)."""
        self.line = None
        mode = tui_mode(view["mode"]) if view.get("mode") else None
        if not self.enabled or mode is None or view.get("outcome"):
            return None
        prompt = view.get("prompt")
        for key in [f"event:{t}" for t in event_types] + ([prompt["kind"]] if prompt is not None else []):
            hint = mode.hints.get(key)
            if hint and key not in self.seen:
                self.seen.add(key)
                self.line = Text("Hint: ", style="bold italic")
                self.line.append(hint, style="italic")
                break
        return self.line

    @property
    def text(self) -> str:
        return self.line.plain if self.line is not None else ""
