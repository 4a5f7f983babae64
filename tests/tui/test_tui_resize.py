"""Right at every size: after any run of resizes between 60x20 and 250x80, every screen shows what a
fresh start at the final size shows (read in the emulated terminal, so the writer is checked too),
and below the minimum the notice names the size the terminal has now."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from cthulhu.tui.options import MIN_SIZE
from cthulhu.tui.screens.dialogs import TooSmallScreen

from support.tour import STOPS, visit

STEADY = [s for s in STOPS if s.name not in ("table", "palette", "notice", "load")]  # ports, timers and clocks differ run to run
SIZES = [(60, 20), (80, 24), (100, 30), (120, 40), (250, 80), (79, 24), (80, 23), (110, 34), (109, 33), (200, 50)]


def same_folder(text: str) -> str:
    """Each visit has its own temporary saves folder and host port (as long as any other's)."""
    text = re.sub(r"127\.0\.0\.1:\d{5}", "127.0.0.1:NNNNN", text)
    return re.sub(r"cthulhu-tour-\w{8}", "cthulhu-tour-XXXXXXXX", text)


def runs_of_resizes(seed: int, count: int = 4) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    sizes = [rng.choice(SIZES) for _ in range(count - 1)]
    sizes.append(rng.choice([s for s in SIZES if s[0] >= MIN_SIZE[0] and s[1] >= MIN_SIZE[1]]))
    return sizes


@pytest.mark.parametrize("stop", STEADY, ids=lambda s: s.name)
def test_after_any_resizes_a_screen_is_what_a_fresh_start_shows(stop):
    sizes = runs_of_resizes(STEADY.index(stop))

    async def run():
        async with visit(stop, size=(100, 30)) as (pilot, capture):
            for size in sizes:
                await pilot.resize_terminal(*size)
                await pilot.pause(0.05)
                small = size[0] < MIN_SIZE[0] or size[1] < MIN_SIZE[1]
                assert isinstance(pilot.app.screen, TooSmallScreen) == small, size
                if small:
                    await pilot.pause(0.1)
                    assert f"this one is {size[0]}x{size[1]}" in capture.text()
            await pilot.pause(0.3)
            resized = same_folder(capture.text())
        async with visit(stop, size=sizes[-1]) as (pilot, capture):
            await pilot.pause(0.3)
            fresh = same_folder(capture.text())
        assert resized == fresh, f"after {sizes}:\n{resized}\n--- fresh at {sizes[-1]}:\n{fresh}"

    asyncio.run(run())


def test_the_size_check_uses_the_new_size_at_once():
    """100x30 -> 70x20 covers the table at once, naming 70x20; back to 100x30 uncovers it."""
    game = next(s for s in STOPS if s.name == "game")

    async def run():
        async with visit(game, size=(100, 30)) as (pilot, capture):
            await pilot.resize_terminal(70, 20)
            await pilot.pause(0.1)
            assert isinstance(pilot.app.screen, TooSmallScreen)
            assert "this one is 70x20" in capture.text()
            await pilot.resize_terminal(100, 30)
            await pilot.pause(0.1)
            assert not isinstance(pilot.app.screen, TooSmallScreen)
            assert "Map" in capture.text() and "needs" not in capture.text()

    asyncio.run(run())
