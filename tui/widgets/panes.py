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
        for _ in range(2):  # twice if a scrollbar came or went and changed the width
            if self.view is None:
                return
            width = max(10, self.text_width)
            text = self.render_view(self.view, width)
            if (text, width) == self._shown:
                return  # unchanged: no repaint, no bytes to the terminal
            self._shown = (text, width)
            self.set_lines(self.strips_of(text, width))
            if len(self.lines) != self.content_lines:
                self.content_lines = len(self.lines)
                self.post_message(self.Grew())
            if max(10, self.text_width) == width:
                return

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
