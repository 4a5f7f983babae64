"""What the app would write to a terminal, captured in-process (Pilot runs Textual headless).

Headless Textual draws every frame but writes none; `Capture` sends each frame through
the app's own `Terminal` (the code that writes to a real terminal) and keeps the bytes,
and plays them into a pyte terminal emulator, so tests read the screen a player sees.
"""

from __future__ import annotations

from typing import Any

import pyte
from rich.color import ColorSystem
from textual._compositor import CompositorUpdate

from cthulhu.tui.terminal import DiffUpdate


class Capture:
    def __init__(self, app: Any, color_system: ColorSystem = ColorSystem.TRUECOLOR) -> None:
        self.app = app
        self.chunks: list[str] = []
        self.screen: pyte.Screen | None = None
        self.stream: pyte.Stream | None = None
        app.console._color_system = color_system
        display = app._display

        def captured(screen: Any, renderable: Any) -> None:
            if isinstance(renderable, CompositorUpdate) and not isinstance(renderable, DiffUpdate):
                self.take(renderable)
            display(screen, renderable)

        app._display = captured

    def take(self, update: CompositorUpdate) -> None:
        width, height = self.app.size
        if self.screen is None or (self.screen.columns, self.screen.lines) != (width, height):
            self.screen = pyte.Screen(width, height)
            self.stream = pyte.Stream(self.screen)
        data = self.app.terminal.update(update, width, height).render_segments(self.app.console)
        self.chunks.append(data)
        assert self.stream is not None
        self.stream.feed(data)

    @property
    def raw(self) -> bytes:
        return "".join(self.chunks).encode("utf-8")

    def text(self) -> str:
        """The emulated terminal's screen as text, one line per row."""
        assert self.screen is not None
        return "\n".join(self.screen.display)
