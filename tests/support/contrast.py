"""Contrast of what the terminal shows, cell by cell, as WCAG 2 measures it.

The cells are the app's writer's own copy of the terminal (`app.terminal.rows`: each
character with the style that was sent), so what is measured is what was written.
Colors are taken as a terminal of each color depth shows them: true color as sent,
256 colors through the xterm palette, 16 colors (and the terminal's own colors in
any depth) through the VGA palette Rich picks the nearest of 16 from; the default
colors are those of a dark terminal (VGA white on black); dim halves the way to the
background; reverse swaps. Cells behind a dialog (dimmed on purpose) are not text
anyone reads; borders and scrollbars are not text either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich._palettes import EIGHT_BIT_PALETTE, STANDARD_PALETTE
from rich.color import Color, ColorSystem, ColorType
from rich.style import Style
from textual.screen import ModalScreen

DEFAULT_FG = STANDARD_PALETTE[7]
DEFAULT_BG = STANDARD_PALETTE[0]
MINIMUM = 4.5


def rgb(color: Color | None, system: ColorSystem, default: tuple[int, int, int]) -> tuple[int, int, int]:
    if color is None or color.type == ColorType.DEFAULT:
        return default
    color = color.downgrade(system)
    if color.type == ColorType.TRUECOLOR:
        assert color.triplet is not None
        return tuple(color.triplet)  # type: ignore[return-value]
    assert color.number is not None
    if color.number < 16:
        return STANDARD_PALETTE[color.number]
    return EIGHT_BIT_PALETTE[color.number]


def luminance(c: tuple[int, int, int]) -> float:
    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def colors(style: Style | None, system: ColorSystem) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(foreground, background) as the terminal shows `style`."""
    if style is None:
        return DEFAULT_FG, DEFAULT_BG
    fg = rgb(style.color, system, DEFAULT_FG)
    bg = rgb(style.bgcolor, system, DEFAULT_BG)
    if style.reverse:
        fg, bg = bg, fg
    if style.dim:
        fg = tuple(round(b + (f - b) * 0.5) for f, b in zip(fg, bg))  # type: ignore[assignment]
    return fg, bg


def is_text(ch: str) -> bool:
    return bool(ch.strip()) and not ("\u2500" <= ch[:1] <= "\u259f")


@dataclass(frozen=True)
class Low:
    ratio: float
    x: int
    y: int
    text: str  # the run of low-contrast text it belongs to
    fg: tuple[int, int, int]
    bg: tuple[int, int, int]

    def __str__(self) -> str:
        return f"{self.ratio:.2f}:1 at {self.x},{self.y} {self.text!r} fg={self.fg} bg={self.bg}"


def low_contrast(app: Any, system: ColorSystem, minimum: float = MINIMUM) -> list[Low]:
    """Every run of text on the active screen below `minimum`, worst first."""
    screen = app.screen
    modal = isinstance(screen, ModalScreen)
    found: list[Low] = []
    for y, row in enumerate(app.terminal.rows):
        run: list[tuple[int, str, float, Any, Any]] = []
        for x, (ch, style) in enumerate(row + [(" ", None)]):
            low = None
            if x < len(row) and is_text(ch):
                if modal:
                    try:
                        widget, _ = app.get_widget_at(x, y)
                    except Exception:
                        widget = screen
                    if widget is screen:
                        ch = " "
                if is_text(ch):
                    fg, bg = colors(style, system)
                    r = ratio(fg, bg)
                    if r < minimum:
                        low = (x, ch, r, fg, bg)
            if low is not None:
                run.append(low)
            elif run:
                worst = min(run, key=lambda item: item[2])
                found.append(Low(round(worst[2], 2), run[0][0], y, "".join(c for _, c, *_ in run), worst[3], worst[4]))
                run = []
    return sorted(found, key=lambda low: low.ratio)
