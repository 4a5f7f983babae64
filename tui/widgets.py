"""The game screen's panes and its prompt bar. Each re-renders from the latest view only."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from .dice import face_glyph, faces_rich
from .lines import LinesView, LogLines
from .narrate import KIND_STYLES
from .options import OPTION_KEYS
from .safe import plain, safe_text
from .render_map import render_legend, render_map
from .render_panes import render_generic, render_investigators, render_story
from . import render_shamblers as shamblers


class ViewPane(LinesView):
    """A titled, scrollable pane redrawn from the view (and its own width); only changed lines repaint."""

    def __init__(self, title: str, *, id: str) -> None:
        super().__init__(id=id, classes="pane")
        self.border_title = title
        self.view: dict[str, Any] | None = None
        self.ascii = False
        self.content_lines = 0
        self._shown: tuple[Text, int] | None = None

    def show(self, view: dict[str, Any]) -> None:
        self.view = view
        self.redraw()

    def on_resize(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        if self.view is not None:
            width = max(10, self.text_width)
            text = self.render_view(self.view, width)
            if (text, width) == self._shown:
                return  # unchanged: no repaint, no bytes to the terminal
            self._shown = (text, width)
            self.set_lines(self.strips_of(text, width))
            self.content_lines = len(self.lines)

    def render_view(self, view: dict[str, Any], width: int) -> Text:  # pragma: no cover - overridden
        return render_generic(view)

    def text(self) -> str:
        """The pane's text as a player reads it (tests and tools)."""
        if self.view is None:
            return ""
        return self.render_view(self.view, max(10, self.scrollable_content_region.width or 60)).plain


class MapPane(ViewPane):
    def render_view(self, view: dict[str, Any], width: int) -> Text:
        if view.get("mode") == "shamblers":
            return shamblers.render_towns(view, width, ascii_only=self.ascii)
        if view.get("mode") not in (None, "main"):
            return _other_mode(view, "towns", "Towns")
        out = render_map(view, width, ascii_only=self.ascii)
        out.append("\n")
        out.append_text(render_legend(view, width))
        return out


class StoryPane(ViewPane):
    def render_view(self, view: dict[str, Any], width: int) -> Text:
        if view.get("mode") == "shamblers":
            return shamblers.render_shambler_story(view, width)
        if view.get("mode") not in (None, "main"):
            keys = ("wheel", "goals", "shambler_mat", "discard", "bag_count", "supply_chaos", "shambler_track_count", "die", "banish", "feeding")
            return render_generic({k: view[k] for k in keys if k in view})
        return render_story(view, width)


class InvestigatorsPane(ViewPane):
    def render_view(self, view: dict[str, Any], width: int) -> Text:
        if view.get("mode") == "shamblers":
            return shamblers.render_mats(view, width)
        if view.get("mode") not in (None, "main"):
            return _other_mode(view, "mats", "Player mats")
        return render_investigators(view, detail=width >= 40, width=width)


def _other_mode(view: dict[str, Any], key: str, title: str) -> Text:
    out = Text(f"{str(view.get('mode')).title()} mode: a plain view until its own layout lands.\n", style="yellow")
    out.append_text(render_generic(view.get(key), title))
    return out


class LogPane(LogLines):
    """Every event as a sentence, colored by kind; capped so a long game stays light.
    Writing a line repaints this pane only (no screen layout), and it follows the newest
    line unless the player has scrolled back."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id, classes="pane")
        self.border_title = "Log"

    @property
    def lines_plain(self) -> list[str]:
        return [text.plain for text in self.entries]

    def say(self, kind: str, sentence: str) -> None:
        self.write(plain(sentence, KIND_STYLES.get(kind, "")))


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

    def show(self, view: dict[str, Any], local_seats: frozenset[int], note: Text | None = None) -> None:
        self._last = (view, local_seats, note)
        width = max(20, (self.size.width or self.app.size.width) - 2)
        prompt = view.get("prompt")
        out = Text()
        roll = view.get("last_roll") or None
        dice = roll.get("dice") if isinstance(roll, dict) else None
        cthulhu_dice = shamblers.dice_line(view) if view.get("mode") == "shamblers" else None
        if cthulhu_dice is not None:
            out.append_text(cthulhu_dice)
            out.append("\n")
        elif dice:
            line = Text("Dice: ", style="bold")
            line.append_text(faces_rich(dice))
            purpose = roll.get("purpose") if isinstance(roll, dict) else None
            if purpose:
                line.append(f"  ({str(purpose).replace('_', ' ')})", style="dim")
            if len(line) + len(SHORT_LEGEND) + 3 <= width:
                line.append("   " + SHORT_LEGEND, style="dim")
            out.append_text(line)
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
            who = f"[Seat {int(prompt.get('seat', 0)) + 1}] " if len(local_seats) > 1 else ""
            if view.get("mode") == "shamblers":
                labels, header = shamblers.short_labels(prompt, view, width)
            else:
                labels, header = option_labels(prompt, dice)
            out.append(who + str(prompt.get("text", "")) + header, style="bold")
            out.append_text(pack_options(labels, width))
        self.set_class(not self.local, "waiting")
        if out != self._shown:
            same_height = self._shown is not None and bar_rows(out, width) == bar_rows(self._shown, width)
            self._shown = out
            self.update(safe_text(out), layout=not same_height)


def bar_rows(text: Text, width: int) -> int:
    """Rows the bar needs at `width`, counting lines that wrap (a long prompt takes two)."""
    return sum(max(1, -(-len(line) // max(1, width))) for line in text.plain.split("\n"))


SHORT_LEGEND = "* success T tentacle E elder - blank, lower case: bonus"


def option_labels(prompt: dict[str, Any], dice: list[Any] | None) -> tuple[list[str], str]:
    """Labels for the bar. A reroll choice shows each die's face, and the cost once if it is the same."""
    import re

    options = list(prompt.get("options") or [])
    labels = [str(o.get("label", o.get("command"))) for o in options]
    if prompt.get("kind") != "reroll" or not dice:
        return labels, ""
    costs = {}
    for n, opt in enumerate(options):
        cmd = opt.get("command") or {}
        if cmd.get("kind") == "reroll" and isinstance(cmd.get("die"), int) and cmd["die"] < len(dice):
            m = re.search(r"for (.+?)\)?$", labels[n])
            costs[n] = m.group(1) if m else ""
    same = len(set(costs.values())) == 1
    for n, cost in costs.items():
        die = options[n]["command"]["die"]
        kind, face = dice[die][0], dice[die][1]
        labels[n] = f"reroll {die + 1}:[{face_glyph(kind, face)}]" + ("" if same or not cost else f" ({cost})")
    if n := len(labels):
        labels[0] = labels[0].replace("Keep these dice", "keep")
    header = f" (a reroll costs {next(iter(costs.values()))})" if same and costs and next(iter(costs.values())) else ""
    return labels, header


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
