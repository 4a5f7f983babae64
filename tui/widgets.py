"""The game screen's panes and its prompt bar. Each re-renders from the latest view only."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import RichLog, Static

from .dice import LEGEND, faces_rich
from .narrate import KIND_STYLES
from .options import OPTION_KEYS
from .render_map import render_legend, render_map
from .render_panes import render_generic, render_investigators, render_story


class ViewPane(VerticalScroll):
    """A titled, scrollable pane whose body is redrawn from the view (and its own width)."""

    DEFAULT_CSS = """
    ViewPane > Static { width: 100%; }
    """

    def __init__(self, title: str, *, id: str) -> None:
        super().__init__(id=id, classes="pane")
        self.border_title = title
        self.view: dict[str, Any] | None = None
        self.ascii = False
        self.body = Static(Text(""), classes="body")
        self.content_lines = 0

    def compose(self):
        yield self.body

    def show(self, view: dict[str, Any]) -> None:
        self.view = view
        self.redraw()

    def on_resize(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        if self.view is not None:
            text = self.render_view(self.view, max(10, self.scrollable_content_region.width))
            self.content_lines = text.plain.count("\n") + 1
            self.body.update(text)

    def render_view(self, view: dict[str, Any], width: int) -> Text:  # pragma: no cover - overridden
        return render_generic(view)

    def text(self) -> str:
        """The pane's text as a player reads it (tests and tools)."""
        if self.view is None:
            return ""
        return self.render_view(self.view, max(10, self.scrollable_content_region.width or 60)).plain


class MapPane(ViewPane):
    def render_view(self, view: dict[str, Any], width: int) -> Text:
        if view.get("mode") not in (None, "main"):
            return _other_mode(view, "towns", "Towns")
        out = render_map(view, width, ascii_only=self.ascii)
        out.append("\n")
        out.append_text(render_legend(view))
        return out


class StoryPane(ViewPane):
    def render_view(self, view: dict[str, Any], width: int) -> Text:
        if view.get("mode") not in (None, "main"):
            keys = ("wheel", "goals", "shambler_mat", "discard", "bag_count", "supply_chaos", "shambler_track_count", "die", "banish", "feeding")
            return render_generic({k: view[k] for k in keys if k in view})
        return render_story(view, width)


class InvestigatorsPane(ViewPane):
    def render_view(self, view: dict[str, Any], width: int) -> Text:
        if view.get("mode") not in (None, "main"):
            return _other_mode(view, "mats", "Player mats")
        return render_investigators(view, detail=width >= 40, width=width)


def _other_mode(view: dict[str, Any], key: str, title: str) -> Text:
    out = Text(f"{str(view.get('mode')).title()} mode: a plain view until its own layout lands.\n", style="yellow")
    out.append_text(render_generic(view.get(key), title))
    return out


class LogPane(RichLog):
    """Every event as a sentence, colored by kind; capped so a long game stays light."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id, classes="pane", max_lines=500, wrap=True, markup=False, highlight=False)
        self.border_title = "Log"
        self.lines_plain: list[str] = []

    def say(self, kind: str, sentence: str) -> None:
        self.lines_plain.append(sentence)
        del self.lines_plain[:-500]
        self.write(Text(sentence, style=KIND_STYLES.get(kind, "")))


class PromptBar(Static):
    """The legal choices with a key each, the last dice, and whose decision it is."""

    def __init__(self, *, id: str) -> None:
        super().__init__(Text("Setting up the table..."), id=id)
        self.options: list[dict[str, Any]] = []
        self.local = False

    def show(self, view: dict[str, Any], local_seats: frozenset[int], note: Text | None = None) -> None:
        prompt = view.get("prompt")
        out = Text()
        roll = view.get("last_roll") or None
        dice = roll.get("dice") if isinstance(roll, dict) else None
        if dice:
            out.append("Dice: ", style="bold")
            out.append_text(faces_rich(dice))
            purpose = roll.get("purpose") if isinstance(roll, dict) else None
            if purpose:
                out.append(f"  ({str(purpose).replace('_', ' ')})", style="dim")
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
        elif prompt.get("seat") not in local_seats:
            out.append(f"Waiting for seat {int(prompt.get('seat', 0)) + 1}: {prompt.get('text', '')}", style="dim")
        else:
            self.local = True
            self.options = list(prompt.get("options") or [])
            who = ""
            if len(local_seats) > 1:
                who = f"[Seat {int(prompt.get('seat', 0)) + 1}] "
            out.append(who + str(prompt.get("text", "")), style="bold")
            if prompt.get("kind") == "reroll":
                out.append("  " + LEGEND, style="dim")
            out.append("\n")
            for n, opt in enumerate(self.options):
                key = OPTION_KEYS[n] if n < len(OPTION_KEYS) else "?"
                if n:
                    out.append("   ")
                out.append(f" {key} ", style="bold reverse")
                out.append(" " + str(opt.get("label", opt.get("command"))))
        self.set_class(not self.local, "waiting")
        self.update(out)
