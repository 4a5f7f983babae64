"""Every theme the app offers keeps text and tokens readable: 4.5:1 or more in true color, 256 and 16 colors.

The screens are rendered for real (every stop of the tour) and measured cell by cell
(`contrast.py` says how the colors of each depth are taken).
"""

from __future__ import annotations

import asyncio

import pytest
from rich.color import ColorSystem

from cthulhu.cli.common import THEME_NAMES
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.themes import THEMES

from support.contrast import MINIMUM, low_contrast, ratio
from support.tour import STOPS, visit

SYSTEMS = (ColorSystem.TRUECOLOR, ColorSystem.EIGHT_BIT, ColorSystem.STANDARD)


@pytest.mark.parametrize("theme", THEME_NAMES)
@pytest.mark.parametrize("stop", STOPS, ids=lambda s: s.name)
def test_text_keeps_its_contrast_at_every_color_depth(theme, stop):
    async def run():
        sizes = [(120, 40), (80, 24)] if stop.name in ("game", "shamblers") else [(120, 40)]
        async with visit(stop, options=PlayOptions(theme=theme), size=sizes[0]) as (pilot, capture):
            for size in sizes:
                await pilot.resize_terminal(*size)
                await pilot.pause(0.1)
                measured = [cell for row in pilot.app.terminal.rows for cell in row if cell[0].strip()]
                assert len(measured) > 200, "nothing was drawn to measure"
                for system in SYSTEMS:
                    low = low_contrast(pilot.app, system)
                    assert not low, f"{theme} at {size}, {system.name}: " + "; ".join(map(str, low[:5]))

    asyncio.run(run())


def test_the_measure_is_wcag():
    assert round(ratio((0, 0, 0), (255, 255, 255)), 1) == 21.0
    assert round(ratio((118, 118, 118), (255, 255, 255)), 1) == 4.5
    assert ratio((170, 0, 0), (0, 0, 0)) < MINIMUM  # VGA red on black: why the panes use bright red


def test_the_measure_finds_what_it_must(monkeypatch):
    """A screen drawn in dark red on black is reported, cell run by cell run."""
    game = next(s for s in STOPS if s.name == "game")

    async def run():
        async with visit(game, size=(80, 24)) as (pilot, capture):
            from rich.style import Style

            row = pilot.app.terminal.rows[5]
            row[1:6] = [(c, Style(color="red", bgcolor="black")) for c in "gates"]
            low = low_contrast(pilot.app, ColorSystem.STANDARD)
            assert [(l.text, l.x, l.y) for l in low] == [("gates", 1, 5)]

    asyncio.run(run())


def test_every_theme_is_registered_under_its_command_line_name():
    assert tuple(THEMES) == THEME_NAMES
