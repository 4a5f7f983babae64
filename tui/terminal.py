"""What the terminal shows, cell by cell, and the fewest bytes that change it.

Textual sends every region it repaints in full, with a complete style on every
segment. When a layout moves (the prompt bar grows by a line, a dialog opens) that
is the whole screen, although most of it looks exactly as before: over SSH that was
tens of kilobytes a key press. `Terminal` keeps a copy of every cell the terminal
shows and turns each of Textual's frames into cursor moves and text for the cells
that really changed, with a style sequence only where the style changes. Every
widget, present or future, gets this for free: it works on frames, not on widgets.

It is also the last stop before the wire, so two promises are kept here whatever a
widget draws: `ascii` sends only 7-bit bytes (other characters become a look-alike,
and `replaced` counts them, so tests can insist that none were needed), and
`no_color` sends no color at all, only bold, dim, italic, underline and reverse;
without `faint`, no dim either (for themes of the terminal's own colors).
"""

from __future__ import annotations

import os
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from rich.color import Color, ColorSystem
from rich.segment import Segment, Segments
from rich.style import Style
from rich.cells import cell_len
from textual.scrollbar import ScrollBarRender
from textual.strip import Strip

from .compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate

Cell = tuple[str, Style | None]  # one character (or "" for the right half of a wide one) and its style
UNKNOWN: Cell = ("\0", None)  # never equal to anything drawn: the terminal's content is not known
GAP = 6  # unchanged cells between two changes re-sent rather than skipped by a cursor move

_LOOKALIKE = {
    "…": ".", "•": "*", "·": ".", "‣": ">", "◦": "o", "●": "*", "○": "o", "■": "#", "□": "#",
    "▪": "#", "▫": ".", "◆": "*", "◇": "*", "★": "*", "☆": "*", "✓": "v", "✔": "v", "✗": "x", "✘": "x",
    "×": "x", "÷": "/", "–": "-", "—": "-", "―": "-", "‐": "-", "−": "-", "‘": "'", "’": "'", "‚": ",",
    "“": '"', "”": '"', "„": '"', "«": "<", "»": ">", "‹": "<", "›": ">", "→": ">", "←": "<", "↑": "^",
    "↓": "v", "↔": "-", "⇒": ">", "⇐": "<", "▲": "^", "▼": "v", "▶": ">", "◀": "<", "►": ">", "◄": "<",
    "°": "o", "±": "+", "≤": "<", "≥": ">", "≠": "#", "\u00a0": " ", "\u2007": " ", "\u202f": " ",
    "█": "#", "▓": "#", "▒": ":", "░": ".", "▀": "~", "▄": "_", "▁": "_", "▂": "_", "▃": "_", "▅": "=",
    "▆": "=", "▇": "#", "▔": "~", "▌": "|", "▐": "|", "▍": "|", "▎": "|", "▏": "|", "▕": "|", "▊": "|",
    "▋": "|", "▉": "#",
}


def speaks_utf8(env: Mapping[str, str] | None = None) -> bool:
    """Whether the terminal's locale is UTF-8 (the first of LC_ALL, LC_CTYPE, LANG that is set, as C does).

    Python runs in UTF-8 mode under the C locale whatever the terminal does, so its own
    encoding says nothing about the terminal's."""
    env = os.environ if env is None else env
    locale = next((env[name] for name in ("LC_ALL", "LC_CTYPE", "LANG") if env.get(name)), "")
    return "utf-8" in locale.lower() or "utf8" in locale.lower()


class PlainScrollBarRender(ScrollBarRender):
    """Scrollbars drawn with characters, not shades: a `:` track and a `#` thumb.

    Textual's own draw the thumb with eighth-block glyphs and tell it from the track by
    color alone; these show the position in ASCII and without color too."""

    TRACK = ":"
    THUMB = "#"

    @classmethod
    def render_bar(
        cls,
        size: int = 25,
        virtual_size: float = 50,
        window_size: float = 20,
        position: float = 0,
        thickness: int = 1,
        vertical: bool = True,
        back_color: Color = Color.parse("#555555"),
        bar_color: Color = Color.parse("bright_magenta"),
    ) -> Segments:
        width = thickness if vertical else 1
        size = int(size)
        if not (window_size and size and virtual_size and size != virtual_size and virtual_size > window_size):
            segments = [Segment(" " * width, Style(bgcolor=back_color))] * size
        else:
            thumb = max(1, min(size, round(window_size * size / virtual_size)))
            start = round((size - thumb) * max(0.0, min(1.0, position / (virtual_size - window_size))))
            up = Segment(cls.TRACK * width, Style(color=bar_color, bgcolor=back_color, meta={"@mouse.down": "scroll_up"}))
            down = Segment(cls.TRACK * width, Style(color=bar_color, bgcolor=back_color, meta={"@mouse.down": "scroll_down"}))
            grab = Segment(cls.THUMB * width, Style(color=bar_color, bgcolor=back_color, bold=True, meta={"@mouse.down": "grab"}))
            segments = [up] * start + [grab] * thumb + [down] * (size - start - thumb)
        if vertical:
            return Segments(segments, new_lines=True)
        return Segments((segments + [Segment.line()]) * thickness, new_lines=False)


@lru_cache(maxsize=4096)
def ascii_lookalike(ch: str) -> str:
    """One printable ASCII character standing for `ch` (one cell wide, like `ch` in most cases)."""
    if " " <= ch <= "~":
        return ch
    if ch in _LOOKALIKE:
        return _LOOKALIKE[ch]
    name = unicodedata.name(ch, "")
    if name.startswith("BOX DRAWINGS"):
        if "ARC" in name or ("HORIZONTAL" in name) == ("VERTICAL" in name):
            return "+"
        return "-" if "HORIZONTAL" in name else "|"
    if name.startswith("BRAILLE"):
        return ":"
    plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    plain = "".join(c for c in plain if " " <= c <= "~")
    return plain[:1] or "?"


@lru_cache(maxsize=4096)
def colorless(style: Style) -> Style:
    """`style` without its colors (and without links): what NO_COLOR allows."""
    return Style(
        bold=style.bold,
        dim=style.dim,
        italic=style.italic,
        underline=style.underline,
        reverse=style.reverse,
        strike=style.strike,
    )


@lru_cache(maxsize=4096)
def visible(style: Style) -> Style:
    """`style` as the terminal shows it: no meta (Textual's mouse offsets differ line by line), no link."""
    return style.clear_meta_and_links() if style._meta or style._link else style


@lru_cache(maxsize=1024)
def unfaint(style: Style) -> Style:
    return style + NOT_DIM


NOT_DIM = Style(dim=False)


def update_pieces(update: CompositorUpdate) -> Iterator[tuple[int, int, Strip]]:
    """(y, x, strip) for every strip Textual would write for `update`, cropped as Textual crops them."""
    if isinstance(update, LayoutUpdate):
        for y, line in enumerate(update.strips, update.region.y):
            x = update.region.x
            for strip in line:
                yield y, x, strip
                x += strip.cell_length
    elif isinstance(update, ChopsUpdate):
        for y, x1, x2 in update.spans:
            for end, (x, chop) in zip(update.chop_ends[y], update.chops[y].items()):
                if chop is None or x > x2 or end <= x1:
                    continue
                if not (x2 > x >= x1 and end <= x2):
                    chop = chop.crop(0, min(end, x2) - x)
                yield y, x, chop


class Terminal:
    """A copy of the terminal's cells; `paint` returns the bytes (as str) that bring it up to a frame."""

    def __init__(self, *, ascii: bool = False, no_color: bool = False, faint: bool = True) -> None:
        self.ascii = ascii
        self.no_color = no_color
        self.faint = faint
        self.width = 0
        self.height = 0
        self.rows: list[list[Cell]] = []
        self.replaced: Counter[str] = Counter()  # ASCII mode: characters replaced (a well-made screen needs none)
        self._pens: dict[Style | None, Pen] = {}
        self._system: ColorSystem | None = None
        self.cells_sent = 0  # cells written since the start (the benches' measure of how much text changed)

    def forget(self) -> None:
        """The terminal's content is unknown (resized, cleared, or written by someone else): paint all."""
        self.rows = [[UNKNOWN] * self.width for _ in range(self.height)]

    def set_modes(self, *, ascii: bool | None = None, no_color: bool | None = None, faint: bool | None = None) -> None:
        if ascii is not None:
            self.ascii = ascii
        if no_color is not None:
            self.no_color = no_color
        if faint is not None:
            self.faint = faint
        self._pens.clear()
        self.forget()

    def resize(self, width: int, height: int) -> None:
        if (width, height) != (self.width, self.height):
            self.width, self.height = width, height
            self.forget()

    def update(self, update: CompositorUpdate, width: int, height: int) -> "DiffUpdate":
        """Textual's `update` for a terminal of this size, as one that sends only what changed."""
        self.resize(width, height)
        return DiffUpdate(self, update)

    # -- cells ---------------------------------------------------------------

    def cells(self, strip: Strip) -> list[Cell]:
        """The cells a strip covers, after the ASCII and NO_COLOR promises."""
        out: list[Cell] = []
        ascii_only, no_color, faint = self.ascii, self.no_color, self.faint
        for text, style, control in strip:
            if control or not text:
                continue
            if style is not None:
                style = visible(style)  # mouse offsets and links do not show: equal cells stay unsent
                if no_color:
                    style = colorless(style)
                if not faint and style.dim:
                    style = unfaint(style)
            if text.isascii():
                out.extend([(ch, style) for ch in text])
                continue
            for ch in text:
                width = cell_len(ch)
                if ascii_only and not ch.isascii():
                    self.replaced[ch] += 1
                    out.append((ascii_lookalike(ch), style))
                    out.extend([(" ", style)] * (width - 1))
                elif width == 0:
                    if out and not ascii_only:
                        prev, prev_style = out[-1]
                        out[-1] = (prev + ch, prev_style)
                elif width == 2:
                    out.append((ch, style))
                    out.append(("", style))
                else:
                    out.append((ch, style))
        return out

    # -- painting --------------------------------------------------------------

    def paint(self, pieces: Iterable[tuple[int, int, Strip]], color_system: ColorSystem | None) -> str:
        """Take in a frame's strips; the terminal output for the cells that differ from the last frames."""
        if color_system != self._system:
            self._system = color_system
            self._pens.clear()
        changed: dict[int, list[int]] = {}
        width, height = self.width, self.height
        for y, x, strip in pieces:
            if not 0 <= y < height or x >= width:
                continue
            new = self.cells(strip)
            if x < 0:
                new, x = new[-x:], 0
            new = new[: width - x]
            row = self.rows[y]
            end = x + len(new)
            if row[x:end] == new:
                continue
            marks = changed.setdefault(y, [])
            for n, cell in enumerate(new):
                if row[x + n] != cell:
                    marks.append(x + n)
            row[x:end] = new
        if not changed:
            return ""
        return self._write(changed)

    def _write(self, changed: dict[int, list[int]]) -> str:
        out: list[str] = []
        pen: Pen | None = None  # None: the terminal's current style is not known
        cursor: tuple[int, int] | None = None
        width = self.width
        for y in sorted(changed):
            row = self.rows[y]
            for start, end in _runs(sorted(set(changed[y])), row):
                self.cells_sent += end - start
                text: list[str] = []
                last_style: Style | None | bool = False
                for x in range(start, end):
                    ch, style = row[x]
                    if not ch:
                        continue  # the right half of a wide character, written with its left half
                    if ch == UNKNOWN[0]:
                        continue  # never drawn (Textual left it out): not ours to write, and the cursor must skip it
                    if cursor != (x, y):
                        if text:
                            out.append("".join(text))
                            text.clear()
                        if cursor is not None and cursor[1] == y and 0 < x - cursor[0] < 4:
                            out.append(f"\x1b[{x - cursor[0]}C")
                        else:
                            out.append(f"\x1b[{y + 1};{x + 1}H")
                    if style is not last_style:
                        last_style = style
                        new_pen = self._pen(style)
                        if new_pen != pen:
                            if text:
                                out.append("".join(text))
                                text.clear()
                            out.append(new_pen.full if pen is None else pen.to(new_pen))
                            pen = new_pen
                    text.append(ch)
                    step = x + 1 + (1 if x + 1 < width and row[x + 1][0] == "" else 0)
                    cursor = (step, y) if step < width else None
                out.append("".join(text))
        if pen is not None and pen != PLAIN:
            out.append("\x1b[0m")
        return "".join(out)

    def _pen(self, style: Style | None) -> Pen:
        pen = self._pens.get(style)
        if pen is None:
            pen = PLAIN if style is None else Pen.of(style, self._system)
            self._pens[style] = pen
        return pen


# Style attribute bits (rich.style.Style._attributes) and the codes that turn them on and off.
_ON = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "21", "51", "52", "53"]
_OFF = ["22", "22", "23", "24", "25", "25", "27", "28", "29", "24", "54", "54", "55"]


@dataclass(frozen=True, slots=True)
class Pen:
    """A style as the terminal sees it: attribute bits and the codes of its colors."""

    attrs: int
    fg: str  # "" for the terminal's default
    bg: str

    @classmethod
    def of(cls, style: Style, system: ColorSystem | None) -> "Pen":
        attrs = style._attributes & style._set_attributes
        if system is None:
            return cls(attrs, "", "")
        fg = ";".join(style.color.downgrade(system).get_ansi_codes()) if style.color is not None else ""
        bg = ";".join(style.bgcolor.downgrade(system).get_ansi_codes(foreground=False)) if style.bgcolor is not None else ""
        return cls(attrs, "" if fg == "39" else fg, "" if bg == "49" else bg)

    @property
    def full(self) -> str:
        """From any state: reset, then set everything."""
        codes = [_ON[bit] for bit in range(13) if self.attrs >> bit & 1]
        codes += [c for c in (self.fg, self.bg) if c]
        return f"\x1b[0;{';'.join(codes)}m" if codes else "\x1b[0m"

    def to(self, new: "Pen") -> str:
        """The shorter of a reset and a change of only what differs."""
        off = self.attrs & ~new.attrs
        on = new.attrs & ~self.attrs
        codes: list[str] = []
        for bit in range(13):
            if off >> bit & 1 and _OFF[bit] not in codes:
                codes.append(_OFF[bit])
                # One code turns off two attributes (bold and dim, the underlines, frame and encircle).
                on |= new.attrs & sum(1 << b for b in range(13) if _OFF[b] == _OFF[bit])
        codes += [_ON[bit] for bit in range(13) if on >> bit & 1]
        if new.fg != self.fg:
            codes.append(new.fg or "39")
        if new.bg != self.bg:
            codes.append(new.bg or "49")
        change = f"\x1b[{';'.join(codes)}m"
        full = new.full
        return change if len(change) <= len(full) else full


PLAIN = Pen(0, "", "")


def _runs(xs: list[int], row: list[Cell]) -> Iterator[tuple[int, int]]:
    """Spans [start, end) covering the changed columns `xs`, joined across short gaps, whole wide characters."""
    start = prev = xs[0]
    for x in xs[1:]:
        if x - prev > GAP:
            yield _whole(start, prev + 1, row)
            start = x
        prev = x
    yield _whole(start, prev + 1, row)


def _whole(start: int, end: int, row: list[Cell]) -> tuple[int, int]:
    if start > 0 and row[start][0] == "":
        start -= 1  # began on the right half of a wide character
    if end < len(row) and row[end][0] == "":
        end += 1  # ended on the left half of one
    return start, end


class DiffUpdate(CompositorUpdate):
    """A compositor update that writes only what changed on the terminal."""

    def __init__(self, terminal: Terminal, update: CompositorUpdate) -> None:
        self.terminal = terminal
        self.update = update

    def render_segments(self, console) -> str:  # type: ignore[no-untyped-def]
        return self.terminal.paint(update_pieces(self.update), console._color_system)
