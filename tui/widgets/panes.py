"""The game screen's panes: Map, Story Board, Investigators (each drawn by the view's mode), and the Log."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message

from ..modes import tui_mode
from ..narrate import KIND_STYLES
from ..safe import plain
from .lines import LinesView, LogLines


class ViewPane(LinesView):
    """A titled, scrollable pane redrawn from the view (and its own width); only changed lines repaint."""

    class Grew(Message):
        """The pane's text got taller or shorter (the screen may give it more or fewer rows)."""

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
        """Draw at the width the pane's size gives, never at the one its scrollbar left last time.

        Whether a scrollbar shows is decided here from the size alone: the text at the full width
        if it fits the rows, else one column narrower for the bar. Asking the pane for its current
        text width instead has two steady answers for a text that just fits (with the bar, wrapped
        to a line more; without it, fitting), and which one a pane keeps depends on its past sizes.
        """
        if self.view is None:
            return
        full, rows = self.content_size
        width = max(10, full)
        text = self.render_view(self.view, width)
        strips = self.strips_of(text, width)
        if len(strips) > rows and self.styles.scrollbar_size_vertical:
            width = max(10, full - self.styles.scrollbar_size_vertical)
            text = self.render_view(self.view, width)
            strips = self.strips_of(text, width)
        if (text, width) == self._shown:
            return  # unchanged: no repaint, no bytes to the terminal
        self._shown = (text, width)
        self.set_lines(strips)
        if len(self.lines) != self.content_lines:
            self.content_lines = len(self.lines)
            self.post_message(self.Grew())

    def render_view(self, view: dict[str, Any], width: int) -> Text:
        raise NotImplementedError  # each pane draws its own part of the view

    def text(self) -> str:
        """The pane's text as a player reads it (tests and tools)."""
        if self.view is None:
            return ""
        return self.render_view(self.view, max(10, self.scrollable_content_region.width or 60)).plain


class MapPane(ViewPane):
    def render_view(self, view: dict[str, Any], width: int) -> Text:
        return tui_mode(view["mode"]).map(view, width, self.ascii)


class StoryPane(ViewPane):
    def render_view(self, view: dict[str, Any], width: int) -> Text:
        return tui_mode(view["mode"]).story(view, width)


class InvestigatorsPane(ViewPane):
    def render_view(self, view: dict[str, Any], width: int) -> Text:
        return tui_mode(view["mode"]).people(view, width)


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
