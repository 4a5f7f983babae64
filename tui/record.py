"""Recordings of a saved game as the app draws it: an asciinema v2 cast, and SVG pictures at chosen steps.

The replay viewer runs with no terminal (Textual's headless harness, `App.run_test`) and is
stepped through the save one step at a time, as a viewer's right arrow steps it. Every frame the
app would send a terminal (`CthulhuApp.on_frame`: the terminal writer's own bytes, the cells that
changed) is a cast event, stamped with a virtual time (`step / speed` seconds), never the
clock's: the same save makes the same recording. A picture is the app's own SVG export of the
screen once a chosen step has been drawn.

What is shown is the viewer's table: the spectator's view, which holds no deck order, no bag and
no seed (every seat sees as much in these modes: nothing is dealt to one player alone). The seed
itself, which the viewer shows its owner, is left out of an unfinished game's recording: it would
tell every card and roll still to come.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .options import PlayOptions

if TYPE_CHECKING:
    from cthulhu.savegame import SaveFile

    from .screens.replay import ReplayScreen

SETTLED = 3  # pauses in a row with no new frame: the step is drawn
START = "\x1b[?25l\x1b[H\x1b[2J"  # hide the cursor, clear the screen: a player's terminal starts blank


@dataclass
class Recording:
    """An asciinema v2 recording: its size, and the output events (seconds, text), in order."""

    width: int
    height: int
    title: str = ""
    events: list[tuple[float, str]] = field(default_factory=list)

    def lines(self) -> Iterator[str]:
        """The .cast file, a JSON document a line: the header, then `[time, "o", data]` per event."""
        header: dict[str, Any] = {"version": 2, "width": self.width, "height": self.height, "env": {"TERM": "xterm-256color"}}
        if self.title:
            header["title"] = self.title
        yield json.dumps(header)
        for at, data in self.events:
            yield json.dumps([round(at, 6), "o", data])


def parse_size(text: str) -> tuple[int, int]:
    """'100x32' -> (100, 32); ValueError naming the range otherwise."""
    from .options import MIN_SIZE

    try:
        w, h = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size takes COLUMNSxROWS, such as 100x32 (not {text!r})") from None
    if not (MIN_SIZE[0] <= w <= 400 and MIN_SIZE[1] <= h <= 200):
        raise ValueError(f"--size must be from {MIN_SIZE[0]}x{MIN_SIZE[1]} to 400x200 (not {w}x{h})")
    return w, h


def _moved_on(screen: ReplayScreen, seen: int) -> Callable[[], bool]:
    """Whether the viewer has shown an update since it had shown `seen`."""
    return lambda: screen.updates_seen > seen


class Recorder:
    """Runs the replay viewer headless over `save`, from step 0 to its last, keeping what it draws.

    `cast`: keep the frames as a `Recording`; `pictures`: the steps to export as SVG, each handed
    to `on_picture(step, svg)`; `on_step(step, app)` is called once each step is drawn (tests
    compare the screen there)."""

    def __init__(self, save: SaveFile, *, size: tuple[int, int] = (100, 32), speed: float = 1.0, cast: bool = True,
                 pictures: Collection[int] = (), on_picture: Callable[[int, str], None] | None = None,
                 on_step: Callable[[int, Any], None] | None = None, name: str = "", options: PlayOptions | None = None,
                 allow_other_content: bool = False) -> None:
        from .replay import Replayer, ReplayLink
        from .replayapp import ReplayApp

        self.save = save
        self.size = size
        self.speed = speed
        self.pictures = set(pictures)
        self.on_picture = on_picture
        self.on_step = on_step
        replayer = Replayer(save, allow_other_content=allow_other_content, step=0)
        link = ReplayLink(replayer, name=name)
        if save.header.outcome is None:
            link.seed = None  # an unfinished game's seed tells what is still to come
        self.app = ReplayApp(replayer, name=name, options=options or PlayOptions(), link=link)
        self.recording = Recording(*size, title=name) if cast else None
        self._at = 0.0
        self._frames = 0
        self.app.on_frame = self._frame

    def _frame(self, data: str) -> None:
        self._frames += 1
        if self.recording is not None and data:
            if not self.recording.events:
                data = START + data
            self.recording.events.append((self._at, data))

    async def run(self) -> Recording | None:
        """Record every step; the recording (None when only pictures were asked for)."""
        from .screens.replay import ReplayScreen

        async with self.app.run_test(size=self.size) as pilot:
            screen = await self._wait(pilot, lambda: isinstance(self.app.screen, ReplayScreen) and self.app.screen.updates_seen > 0)
            assert isinstance(screen, ReplayScreen)
            await self._drawn(pilot, screen, 0)
            for step in range(1, self.save.last_step + 1):
                self._at = step / self.speed
                seen = screen.updates_seen
                await pilot.press("right")
                await self._wait(pilot, _moved_on(screen, seen))
                await self._drawn(pilot, screen, step)
            await pilot.press("ctrl+q")
        return self.recording

    async def _drawn(self, pilot: Any, screen: ReplayScreen, step: int) -> None:
        """Wait until the step's frames are all sent, then take its picture and tell `on_step`."""
        quiet, frames = 0, -1
        while quiet < SETTLED:
            await pilot.pause()
            quiet = quiet + 1 if self._frames == frames else 0
            frames = self._frames
        if step in self.pictures and self.on_picture is not None:
            self.on_picture(step, self.app.export_screenshot(title=f"{self.recording.title if self.recording else ''} step {step}".strip()))
        if self.on_step is not None:
            self.on_step(step, self.app)

    async def _wait(self, pilot: Any, done: Callable[[], bool]) -> Any:
        for _ in range(10_000):  # a few seconds' worth of pauses at the most, under any load
            if done():
                return self.app.screen
            await pilot.pause(0.01)
        raise RuntimeError("the replay viewer did not draw the save")
