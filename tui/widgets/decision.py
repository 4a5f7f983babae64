"""The two small lines above the prompt bar: the dice of the roll being decided, and a first-game hint.

Each is its own widget so the bar below keeps its height rules: a line that has
nothing to say takes no room at all.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from ..modes import tui_mode
from ..safe import safe_text


class OneLiner(Static):
    """A line (or two) that takes no room while it has nothing to say."""

    DEFAULT_CSS = """
    OneLiner { height: auto; padding: 0 1; display: none; }
    OneLiner.shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: Text | None = None

    def say(self, text: Text | None) -> None:
        if text == self._shown:
            return
        before = self._shown
        self._shown = text
        self.set_class(text is not None, "shown")
        # The screen is laid out again only when the line's height changes (it comes, goes, or wraps anew).
        same = before is not None and text is not None and self._rows(before) == self._rows(text)
        self.update(safe_text(text) if text is not None else "", layout=not same)

    def _rows(self, text: Text) -> int:
        width = max(1, self.content_region.width or self.app.size.width - 2)
        return sum(max(1, -(-len(line) // width)) for line in text.plain.split("\n"))

    @property
    def text(self) -> str:
        return self._shown.plain if self._shown is not None else ""


class DiceLine(OneLiner):
    """Whose roll it is, what its successes do, and its faces: only while a decision on it is open."""

    def show(self, view: dict[str, Any], width: int) -> None:
        mode = tui_mode(view["mode"]) if view.get("mode") else None
        if mode is None or view.get("outcome") or view.get("prompt") is None:
            self.say(None)
            return
        self.say(mode.dice(view, width))


class HintLine(OneLiner):
    """One line of help the first time each kind of decision (or event) turns up in a game."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.enabled = True
        self.seen: set[str] = set()

    def show(self, view: dict[str, Any], event_types: list[str]) -> None:
        """The hint for the first thing in this update not met before in this game (events first, then
        the prompt's kind), or nothing."""
        mode = tui_mode(view["mode"]) if view.get("mode") else None
        if not self.enabled or mode is None or view.get("outcome"):
            self.say(None)
            return
        prompt = view.get("prompt")
        keys = [f"event:{t}" for t in event_types] + ([prompt["kind"]] if prompt is not None else [])
        for key in keys:
            hint = mode.hints.get(key)
            if hint and key not in self.seen:
                self.seen.add(key)
                line = Text("Hint: ", style="bold italic")
                line.append(hint, style="italic")
                self.say(line)
                return
        self.say(None)  # a hint is for the update that brought it; the next one takes it away
