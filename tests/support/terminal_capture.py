"""What the app would write to a terminal, captured in-process (Pilot runs Textual headless).

Headless Textual draws every frame but writes none; `Capture` sends each frame through
the app's own `Terminal` (the code that writes to a real terminal) and keeps the bytes,
and plays them into a pyte terminal emulator, so tests read the screen a player sees.
"""

from __future__ import annotations

from typing import Any

import pyte
from rich.color import ColorSystem

from cthulhu.tui.compositor import CompositorUpdate
from cthulhu.tui.terminal import DiffUpdate


class Emulator:
    """A pyte terminal that follows the app's size (a new, blank one after a resize, as `Terminal` assumes)."""

    def __init__(self) -> None:
        self.screen = pyte.Screen(1, 1)
        self.stream = pyte.Stream(self.screen)

    def feed(self, data: str, width: int, height: int) -> None:
        if (self.screen.columns, self.screen.lines) != (width, height):
            self.screen = pyte.Screen(width, height)
            self.stream = pyte.Stream(self.screen)
        self.stream.feed(data)

    def cells(self) -> list[list[tuple[Any, ...]]]:
        """Every cell as (character, fg, bg, bold, italics, underscore, reverse, strikethrough)."""
        return [
            [tuple(getattr(self.screen.buffer[y][x], f) for f in ("data", "fg", "bg", "bold", "italics", "underscore", "reverse", "strikethrough"))
             for x in range(self.screen.columns)]
            for y in range(self.screen.lines)
        ]


class Capture:
    """`reference=True` also plays Textual's own output (every region in full) into a second emulator."""

    def __init__(self, app: Any, color_system: ColorSystem = ColorSystem.TRUECOLOR, *, reference: bool = False) -> None:
        self.app = app
        self.chunks: list[str] = []
        self.ours = Emulator()
        self.reference = Emulator() if reference else None
        self.reference_bytes = 0
        app.console._color_system = color_system
        display = app._display

        def captured(screen: Any, renderable: Any) -> None:
            if isinstance(renderable, CompositorUpdate) and not isinstance(renderable, DiffUpdate):
                self.take(renderable)
            display(screen, renderable)

        app._display = captured

    def take(self, update: CompositorUpdate) -> None:
        width, height = self.app.size
        data = self.app.terminal.update(update, width, height).render_segments(self.app.console)
        self.chunks.append(data)
        self.ours.feed(data, width, height)
        if self.reference is not None:
            full = update.render_segments(self.app.console)
            self.reference_bytes += len(full.encode())
            self.reference.feed(full, width, height)

    @property
    def raw(self) -> bytes:
        return "".join(self.chunks).encode("utf-8")

    async def settled(self, pilot: Any, tries: int = 100) -> str:
        """The screen once the app is idle and two looks a moment apart agree (a change that resizes
        a widget is drawn in a second frame, later under load); its text."""
        last = None
        for _ in range(tries):
            await pilot.pause()
            await pilot.pause(0.05)
            now = self.text()
            if now == last:
                return now
            last = now
        raise AssertionError("the screen never stopped changing")

    def text(self) -> str:
        """The emulated terminal's screen as text, one line per row."""
        return "\n".join(self.ours.screen.display)
