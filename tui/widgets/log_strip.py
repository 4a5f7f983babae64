"""The last few Log lines under the map, for layouts where the Log pane is a hidden tab.

The story must never happen off screen: a Mythos card that summons a monster
which attacks at once is told here even while the side pane shows the
Investigators. It holds only the newest sentences (the Log pane keeps them all)
and repaints only when they change.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..safe import safe_text


class LogStrip(Static):
    """The newest Log sentences, wrapped to the strip and cut from the top."""

    ROWS = 3
    DEFAULT_CSS = f"""
    LogStrip {{ height: {ROWS}; padding: 0 1; background: $panel; color: $text; }}
    LogStrip.hidden {{ display: none; }}
    """
    KEEP = 8  # sentences kept: more than the strip can ever show

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Text] = []
        self._shown: Text | None = None

    def say(self, *lines: Text) -> None:
        self.entries.extend(lines)
        del self.entries[: -self.KEEP]
        self.redraw()

    def on_resize(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        width = self.content_region.width
        height = self.content_region.height or 3
        if not width or not self.entries:
            return
        lines: list[Text] = []
        for entry in self.entries:
            lines.extend(entry.wrap(self.app.console, width))
        tail = Text("\n").join(lines[-height:])
        if tail != self._shown:
            self._shown = tail
            self.update(safe_text(tail), layout=False)  # a fixed height: repaint the strip, lay out nothing

    @property
    def text(self) -> str:
        """What the strip shows, as a player reads it (tests and tools)."""
        return self._shown.plain if self._shown is not None else ""
