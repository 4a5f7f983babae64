"""Lines for a reader: cleaned (what a host or another player says is data) and wrapped to a width."""

from __future__ import annotations

import os
import shutil
import textwrap
from collections.abc import Iterable

from cthulhu.net import clean_text

MIN_WIDTH = 40  # the narrowest the reader wraps to (a phone held upright)
PIPE_WIDTH = 80  # output to a pipe or a file, unless COLUMNS says otherwise


def reader_width(isatty: bool, asked: int | None = None) -> int:
    """The columns to wrap to: `asked` (`--width`), else `COLUMNS`, else the terminal's, else 80
    on a pipe; never fewer than `MIN_WIDTH`."""
    if asked is None:
        columns = os.environ.get("COLUMNS", "")
        if columns.isdigit():
            asked = int(columns)
        elif isatty:
            asked = shutil.get_terminal_size((PIPE_WIDTH, 24)).columns
        else:
            asked = PIPE_WIDTH
    return max(MIN_WIDTH, asked)


def wrap(text: object, width: int, indent: str = "") -> list[str]:
    """`text` as lines of at most `width` characters, cleaned first; a line that runs on is indented
    by `indent` and two spaces more. Words longer than a line are broken (a line never overflows)."""
    lines: list[str] = []
    for part in clean_text(text, newlines=True).split("\n"):
        part = part.rstrip()
        lead = part[: len(part) - len(part.lstrip(" "))]
        lines += textwrap.wrap(part, width, initial_indent=indent, subsequent_indent=indent + lead + "  ",
                               break_long_words=True, break_on_hyphens=False) or [""]
    return lines


def wrap_all(texts: Iterable[object], width: int, indent: str = "") -> list[str]:
    return [line for text in texts for line in wrap(text, width, indent)]
