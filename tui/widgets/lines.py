"""Panes drawn with Textual's line API, so an update repaints only the lines that changed.

A `Static` inside a scroll container re-renders its whole text, and a `RichLog` asks
for a layout of the whole screen on every write (its virtual size is a layout
reactive). Here the text is rendered to strips once per change, compared line by
line with what is on screen, and only the changed lines are marked dirty. The
virtual size is set without a layout: the pane's size is fixed by the grid, and a
layout is only needed when a scrollbar appears or goes, which Textual's own
scrollbar reactives already ask for.
"""

from __future__ import annotations

from rich.console import Console
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from ..safe import safe_text

LineCache = dict[tuple[str, str | Style, tuple[Span, ...]], list[Strip]]  # a line's text, style and spans -> its strips


def text_strips(console: Console, text: Text, width: int, cache: LineCache | None = None) -> list[Strip]:
    """`text` as one strip a line, wrapped to `width` columns (cleaned: this is every pane's sink).

    Lines that already fit (the renderers lay their text out to the width) skip Rich's
    wrapping, the costly part; with a `cache` (line -> strips, kept for one width), a
    line drawn last time is not rendered again. The cache keeps only this text's lines.
    """
    strips: list[Strip] = []
    options = None
    seen: LineCache = {}
    for line in safe_text(text).split("\n", allow_blank=True):
        key = (line.plain, line.style, tuple(line.spans))
        done = seen.get(key) or (cache.get(key) if cache is not None else None)
        if done is None:
            if line.cell_len <= width:
                done = [Strip(list(line.render(console, end="")), line.cell_len)]
            else:
                options = options or console.options.update_width(max(1, width))
                done = [Strip(segments) for segments in console.render_lines(line, options, pad=False)]
        seen[key] = done
        strips.extend(done)
    if cache is not None:
        cache.clear()
        cache.update(seen)
    return strips


class LinesView(ScrollView, can_focus=True):
    """A scrollable pane holding ready-rendered lines."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.lines: list[Strip] = []
        self._cache: LineCache = {}
        self._cache_width = 0

    @property
    def text_width(self) -> int:
        return self.scrollable_content_region.width

    def strips_of(self, text: Text, width: int) -> list[Strip]:
        """`text` as strips, reusing the strips of lines this pane drew last time at this width."""
        if width != self._cache_width:
            self._cache.clear()
            self._cache_width = width
        return text_strips(self.app.console, text, width, self._cache)

    def set_lines(self, lines: list[Strip], *, whole: bool = False) -> None:
        """Show `lines`; repaint only those that differ from the ones shown (or all, if `whole`)."""
        old = self.lines
        self.lines = lines
        scroll_y = self.scroll_offset.y
        self.set_virtual_height(len(lines))
        if whole or self.scroll_offset.y != scroll_y:
            self.refresh()
            return
        start = None
        for y, (a, b) in enumerate(zip(old, lines)):
            if a != b:
                start = y if start is None else start
            elif start is not None:
                self.refresh_lines(start, y - start)
                start = None
        if len(old) != len(lines):  # lines below the first change may have moved
            first = min(len(old), len(lines)) if start is None else start
            self.refresh_lines(first, max(len(old), len(lines)) - first)
        elif start is not None:
            self.refresh_lines(start, len(lines) - start)

    def set_virtual_height(self, height: int) -> None:
        size = Size(self.text_width, height)
        if size != self.virtual_size:
            self.set_reactive(Widget.virtual_size, size)
            self._scroll_update(size)  # scrollbars; shows or hides one with a layout only if needed

    def render_lines(self, crop: Region) -> list[Strip]:
        self._line_style = self.rich_style  # once per paint, not once per line
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.text_width
        style = getattr(self, "_line_style", None) or self.rich_style
        index = scroll_y + y
        if index >= len(self.lines):
            return Strip.blank(width, style)
        return self.lines[index].crop_extend(scroll_x, scroll_x + width, style).apply_style(style)


class LogLines(LinesView):
    """Sentences, newest at the bottom, wrapped to the pane; follows the end unless scrolled back.

    Following is a flag the player's own scrolling sets (back: off, to the end: on), not a
    comparison made at write time: a pane that shrinks while at the end must keep following.
    A pane that is hidden (no width) keeps what it is told and wraps it when it is shown.
    Lines told while the player reads back wait below the view, which stays where it is;
    `unseen` counts them (the pane's owner says so in its border) until the end is in sight.
    """

    MAX_LINES = 500
    # A scrollbar that appears must not narrow the text after it was wrapped (it would crop it).
    DEFAULT_CSS = "LogLines { scrollbar-gutter: stable; }"

    class Unseen(Message):
        """`unseen` changed: lines wait below the view (or no longer do)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.entries: list[Text] = []
        self._wrapped_at = 0
        self.following = True
        self.unseen = 0

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new < old:
            self.following = False
        if new >= self.max_scroll_y:
            self.following = True
            self._set_unseen(0)

    def _set_unseen(self, n: int) -> None:
        if n != self.unseen:
            self.unseen = n
            self.post_message(self.Unseen())

    def write(self, *texts: Text) -> None:
        """Append `texts` (the lines of one update together: one repaint and one scroll for all)."""
        self.entries.extend(texts)
        del self.entries[: -self.MAX_LINES]
        if not self.following:
            self._set_unseen(self.unseen + len(texts))
        width = self.text_width
        if not width:
            self._wrapped_at = 0  # hidden: wrapped (all of it) when the pane is shown again
            return
        if width != self._wrapped_at:
            self.rewrap()
            return
        console = self.app.console
        self._show(self.lines + [strip for text in texts for strip in text_strips(console, text, width)], keep_place=True)
        if self.text_width != self._wrapped_at:
            self.rewrap()  # the width changed under us (a scrollbar): wrap again

    def _show(self, lines: list[Strip], keep_place: bool = False) -> None:
        """Show the newest MAX_LINES of `lines`: at the end when following, else where the player reads
        (`keep_place`: `lines` is the lines shown plus new ones, so those cut off the top move the view)."""
        kept = lines[-self.MAX_LINES :]
        dropped = len(lines) - len(kept)
        scroll_y = self.scroll_offset.y
        self.set_lines(kept, whole=True)
        if self.following:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
        elif keep_place and dropped:  # the text being read stays on its rows
            self.scroll_to(y=max(0, scroll_y - dropped), animate=False, immediate=True)

    def rewrap(self) -> None:
        width = self.text_width
        if not width:
            return
        self._wrapped_at = width
        console = self.app.console
        self._show([strip for text in self.entries for strip in text_strips(console, text, width)])

    def clear(self) -> None:
        self.entries.clear()
        self.set_lines([], whole=True)
        self._set_unseen(0)

    def on_resize(self) -> None:
        if self.text_width and self.text_width != self._wrapped_at:
            self.rewrap()
        elif self.following:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
