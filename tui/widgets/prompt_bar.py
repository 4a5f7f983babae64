"""The prompt bar: the legal choices with a key each, the last dice, and whose decision it is."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from ..modes import tui_mode
from ..options import OPTION_KEYS
from ..safe import safe_text


class PromptBar(Static):
    """The legal choices with a key each, the last dice, and whose decision it is."""

    def __init__(self, *, id: str) -> None:
        super().__init__(Text("Setting up the table..."), id=id)
        self.options: list[dict[str, Any]] = []
        self.local = False
        self._last: tuple[Any, ...] | None = None
        self._shown: Text | None = None

    def on_resize(self) -> None:
        if self._last is not None:
            self.show(*self._last)

    def show(self, view: dict[str, Any], local_seats: frozenset[int], note: Text | None = None, paused: bool = False) -> None:
        """Draw the bar for a checked view (or `{}` before the first one arrives). `paused`: the link is
        down (the note says why); the prompt is shown without its choices."""
        self._last = (view, local_seats, note, paused)
        width = max(20, (self.size.width or self.app.size.width) - 2)
        prompt = view.get("prompt")
        out = Text()
        mode = tui_mode(view["mode"]) if view.get("mode") else None
        dice = mode.dice(view, width) if mode is not None else None
        if dice is not None:
            out.append_text(dice)
            out.append("\n")
        if note is not None:
            out.append_text(note)
            out.append("\n")
        self.options = []
        self.local = False
        if view.get("outcome"):
            out.append(f"The game is over: {view['outcome']}.  Enter: summary   n: new game   q: quit", style="bold")
        elif prompt is None:
            out.append("Waiting for the table...", style="dim")
        elif paused:
            out.append(f"{prompt['text']}  (the choices come back with the connection)", style="dim")
        elif prompt["seat"] not in local_seats:
            out.append(f"Waiting for seat {prompt['seat'] + 1}: {prompt['text']}", style="dim")
        else:
            self.local = True
            self.options = list(prompt["options"])
            who = f"[Seat {prompt['seat'] + 1}] " if len(local_seats) > 1 else ""
            labels, header = mode.labels(prompt, view, width) if mode is not None else ([o["label"] for o in self.options], "")
            out.append(who + prompt["text"] + header, style="bold")
            out.append_text(pack_options(labels, width))
        self.set_class(not self.local, "waiting")
        if out != self._shown:
            same_height = self._shown is not None and bar_rows(out, width) == bar_rows(self._shown, width)
            self._shown = out
            self.update(safe_text(out), layout=not same_height)


def bar_rows(text: Text, width: int) -> int:
    """Rows the bar needs at `width`, counting lines that wrap (a long prompt takes two)."""
    return sum(max(1, -(-len(line) // max(1, width))) for line in text.plain.split("\n"))


def pack_options(labels: list[str], width: int) -> Text:
    """' 1  Run    2  Attack' lines, never splitting an option across two lines."""
    out = Text()
    line_len = 0
    for n, label in enumerate(labels):
        key = OPTION_KEYS[n] if n < len(OPTION_KEYS) else "?"
        piece_len = len(key) + 2 + 1 + len(label)
        if line_len == 0 or line_len + 3 + piece_len > width:
            out.append("\n")
            line_len = 0
        else:
            out.append("   ")
            line_len += 3
        out.append(f" {key} ", style="bold reverse")
        out.append(" " + label)
        line_len += piece_len
    return out
