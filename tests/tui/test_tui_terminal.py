"""The terminal writer (`cthulhu.tui.terminal`): only changed cells go out, and the screen is still right.

"Right" is checked by a terminal emulator (pyte): what the app writes through
`Terminal` must leave every cell (character, colors, bold, italic, underline,
reverse, strike) as Textual's own full repaints would.
"""

from __future__ import annotations

import random

import pytest
from rich.color import ColorSystem
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from rich.segment import Segment

from cthulhu.tui.compositor import LayoutUpdate
from cthulhu.tui.terminal import Pen, Terminal, ascii_lookalike, speaks_utf8

from support.drawn_right import check_apart
from support.terminal_capture import Emulator
from support.tour import STOPS

def styles() -> list[Style | None]:
    """Fresh styles for each test: a Style keeps the codes of the first color system it was rendered in."""
    return [
    None,
    Style(),
    Style(bold=True),
    Style(color="red"),
    Style(color="#aabbcc", bgcolor="#112233"),
    Style(color="bright_cyan", bold=True, reverse=True),
    Style(dim=True, italic=True),
    Style(underline=True, strike=True, bgcolor="blue"),
    Style(bold=True, dim=True, color="color(200)"),
]
CHARS = "ab  c.#|-+─│╭é漢"


def random_strip(rng: random.Random, width: int, palette: list[Style | None]) -> Strip:
    segments = []
    used = 0
    while used < width:
        text = "".join(rng.choice(CHARS) for _ in range(rng.randint(1, 6)))
        while used + Strip([Segment(text)]).cell_length > width:
            text = text[:-1]
        if not text:
            text = " "
        segments.append(Segment(text, rng.choice(palette)))
        used += Strip([Segment(text)]).cell_length
    return Strip(segments)


@pytest.mark.parametrize("system", [ColorSystem.TRUECOLOR, ColorSystem.EIGHT_BIT, ColorSystem.STANDARD])
def test_random_frames_leave_the_screen_as_full_repaints_do(system):
    """Random regions of random text and styles (wide characters too), painted over each other."""
    from rich.console import Console

    console = Console(color_system={ColorSystem.TRUECOLOR: "truecolor", ColorSystem.EIGHT_BIT: "256", ColorSystem.STANDARD: "standard"}[system], force_terminal=True)
    rng = random.Random(7)
    width, height = 30, 8
    terminal = Terminal()
    terminal.resize(width, height)
    ours, theirs = Emulator(), Emulator()
    sent = full = 0
    frames: list[LayoutUpdate] = []
    palette = styles()
    for _ in range(300):
        if frames and rng.random() < 0.5:  # often, a region repainted as it was: the case the writer is for
            update = rng.choice(frames[-3:])
        else:
            x, y = rng.randrange(width), rng.randrange(height)
            w, h = rng.randint(1, width - x), rng.randint(1, height - y)
            update = LayoutUpdate([[random_strip(rng, w, palette)] for _ in range(h)], Region(x, y, w, h))
            frames.append(update)
        data = terminal.paint(iter_pieces(update), system)
        reference = update.render_segments(console)
        ours.feed(data, width, height)
        theirs.feed(reference, width, height)
        sent += len(data.encode())
        full += len(reference.encode())
        assert ours.cells() == theirs.cells()
    assert sent < full * 0.75  # random styles every few cells: little to save on the new regions


def iter_pieces(update):
    from cthulhu.tui.terminal import update_pieces

    return update_pieces(update)


def test_a_frame_that_changes_nothing_sends_nothing():
    terminal = Terminal()
    terminal.resize(10, 2)
    strip = Strip([Segment("hello", Style(bold=True)), Segment("     ")])
    update = LayoutUpdate([[strip], [strip]], Region(0, 0, 10, 2))
    assert terminal.paint(iter_pieces(update), ColorSystem.TRUECOLOR)
    assert terminal.paint(iter_pieces(update), ColorSystem.TRUECOLOR) == ""
    terminal.forget()  # ctrl+l: everything again
    assert "hello" in terminal.paint(iter_pieces(update), ColorSystem.TRUECOLOR)


def test_cells_never_drawn_are_skipped_not_sent():
    """Two changes close together around cells Textual never drew: the cursor jumps over them."""
    terminal = Terminal()
    terminal.resize(20, 1)
    pieces = [(0, 0, Strip([Segment("ab")])), (0, 5, Strip([Segment("cd")]))]
    data = terminal.paint(iter(pieces), ColorSystem.TRUECOLOR)
    assert "\0" not in data
    screen = Emulator()
    screen.feed("\x1b[1;1Hxxxxxxxxxxxxxxxxxxxx" + data, 20, 1)
    assert screen.screen.display[0] == "abxxxcdxxxxxxxxxxxxx"


def test_style_changes_send_only_what_differs():
    system = ColorSystem.TRUECOLOR
    bold_red = Pen.of(Style(bold=True, color="red"), system)
    red = Pen.of(Style(color="red"), system)
    bold_blue = Pen.of(Style(bold=True, color="blue"), system)
    assert bold_red.to(bold_blue) == "\x1b[34m"
    assert bold_red.to(red) == "\x1b[22m"
    assert red.to(bold_red) == "\x1b[1m"
    dim_bold = Pen.of(Style(bold=True, dim=True), system)
    assert dim_bold.to(Pen.of(Style(bold=True), system)) == "\x1b[0;1m"  # 22 would end both, then 1: a reset is shorter
    dim_bold_red = Pen.of(Style(bold=True, dim=True, color="red"), system)
    assert dim_bold_red.to(bold_red) == "\x1b[22;1m"  # here the reset would cost the color


@pytest.mark.parametrize("stop", STOPS, ids=lambda s: s.name)
def test_every_screen_is_drawn_right_with_fewer_bytes(stop):
    """The real app at every stop of the tour, then resized twice: the emulated screens agree (in a
    process of its own: `support.drawn_right` says why)."""
    assert check_apart(stop.name) == ["100x30: None", "80x24: None", "120x40: None", "fewer bytes: True"]


def test_ascii_lookalikes_are_one_printable_character():
    for ch in "─│┌┐└┘╭╮╰╯═║╔┼├┤┬┴━┃▁▂▃▄▅▆▇█▉▊▋▌▍▎▏▔▕▐░▒▓…•·→←↑↓×–—‘’“”éÉñ漢☃":
        out = ascii_lookalike(ch)
        assert len(out) == 1 and " " <= out <= "~", (ch, out)
    assert ascii_lookalike("─") == "-" and ascii_lookalike("│") == "|" and ascii_lookalike("╭") == "+"
    assert ascii_lookalike("é") == "e"


@pytest.mark.parametrize(
    ("env", "utf8"),
    [
        ({"LANG": "en_GB.UTF-8"}, True),
        ({"LANG": "C.utf8"}, True),
        ({"LC_ALL": "C", "LANG": "en_GB.UTF-8"}, False),
        ({"LC_CTYPE": "POSIX"}, False),
        ({"LANG": "de_DE.ISO-8859-1"}, False),
        ({"LC_ALL": "", "LC_CTYPE": "en_US.UTF-8", "LANG": "C"}, True),
        ({}, False),
    ],
)
def test_the_locale_says_whether_the_terminal_speaks_utf8(env, utf8):
    assert speaks_utf8(env) is utf8
