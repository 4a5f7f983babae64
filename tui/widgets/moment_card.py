"""The moment card: the big moments since this terminal's last decision (`tui.moments`), just above
the prompt bar, so they are on screen when the decision comes and gone once it is made.

It holds at most `rows` lines (the screen gives it a share of its height): every moment keeps its
title line, and its words take the lines left, cut short with an ellipsis where they run out. It
takes the Log strip's place on a small terminal (and lies over the Log pane's foot on a large one),
so its last line is the newest Log line told since the last moment's (a chat line, the turn going
on), if any.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..moments import Moment, Wrapped, render_moments
from ..safe import safe_text


class MomentCard(Static):
    """On a large terminal, drawn on a layer of its own over the Log pane's foot (the screen places it
    just above the prompt bar, `place`): coming and going, it moves no pane, so a terminal is sent
    only its own cells. On a small one it stands in the Log strip's place, at least as tall, so the
    side pane's foot (what Tab shows next) stays in sight."""

    DEFAULT_CSS = """
    MomentCard { display: none; layer: moments; dock: bottom; height: auto; padding: 0 1; background: $panel; color: $text; }
    MomentCard.shown { display: block; }
    """  # on a small terminal in the flow of the screen: see cthulhu.tcss

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[Moment] = []
        self.rows = 4
        self.columns: int | None = None  # as placed (None: the whole width)
        self._placed: tuple[int, int | None, int] | None = None  # (bottom, width, rows) last set
        self.tail: Text | None = None  # the story told since the last moment's line, kept in sight
        self._behind = False  # a line was told since the card was drawn
        self._wrapped: Wrapped = {}  # the moments' lines, wrapped (for the moments shown now)
        self._shown: Text | None = None
        self._height: int | None = None  # the rows last set: its lines are wrapped here, so no layout measures them

    def place(self, bottom: int, width: int | None, rows: int) -> None:
        """Stand `bottom` rows above the screen's foot, `width` columns wide (None: the whole width),
        at least `rows` tall (covering the Log strip on a small terminal). Styles change (and the
        screen is laid out) only when the place does."""
        if (bottom, width, rows) == self._placed:
            return
        self._placed = (bottom, width, rows)
        moved = width != self.columns
        self.columns = width
        self.styles.margin = (0, 0, bottom, 0)
        self.styles.width = width if width else "100%"
        self.styles.min_height = rows
        if moved and self.items:
            self.redraw()  # wrapped again to its new width

    def show(self, items: list[Moment], rows: int) -> None:
        self.items = list(items)
        self.rows = rows
        if not items:
            self.tail = None
        self.redraw()

    def told(self, line: Text | None) -> None:
        """The newest Log line that is no moment's (None: the newest is a moment's own). Drawn once for
        all the lines of an update (`catch_up`), not once a line."""
        if line is not self.tail:
            self.tail = line
            if self.items and not self._behind:
                self._behind = True
                self.call_later(self.catch_up)

    def catch_up(self) -> None:
        """Draw the lines told since the card was last drawn, if any."""
        if self._behind:
            self._behind = False
            if self.items:
                self.redraw()

    def redraw(self) -> None:
        self._behind = False
        self.set_class(bool(self.items), "shown")
        if not self.items:
            self._shown = None
            self._wrapped.clear()
            return
        width = (self.columns or self.screen.size.width or self.app.size.width) - 2  # less the padding
        if len(self._wrapped) > 64:  # a watcher's card lives long: let old wrappings go
            self._wrapped.clear()
        text = render_moments(self.items, self.app.console, width, self.rows, getattr(self.app, "ascii_mode", False), self.tail,
                              self._wrapped)
        if text != self._shown:
            self._shown = text
            rows = text.plain.count("\n") + 1
            if rows != self._height:  # a layout only when the card grows or shrinks
                self._height = rows
                self.styles.height = rows
            self.update(safe_text(text), layout=False)

    @property
    def text(self) -> str:
        """What the card shows, as a player reads it (tests and tools)."""
        return self._shown.plain if self._shown is not None and self.items else ""
