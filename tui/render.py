"""Small drawing pieces every mode's panes share: tracks of boxes, short names, legends.

Pure functions to Rich `Text`, tested without a terminal.
"""

from __future__ import annotations

import textwrap

from rich.text import Text

# The marks of players (investigators, Player Mats) on a map, in seat order.
MARK_STYLES = ["bold bright_cyan", "bold bright_yellow", "bold bright_green", "bold bright_white on blue", "bold bright_white"]


def track(value: int, size: int, style: str, empty: str = ".") -> Text:
    """A row of boxes: `value` filled out of `size`."""
    value = max(0, min(value, size))
    t = Text()
    t.append("[", style="dim")
    t.append("#" * value, style=style)
    t.append(empty * (size - value), style="dim")
    t.append("]", style="dim")
    return t


def wrap_into(out: Text, text: str, width: int, indent: int, style: str = "dim") -> None:
    """Append `text` wrapped to `width`, each line on its own row after `indent` spaces."""
    for line in textwrap.wrap(text, max(20, width - indent)):
        out.append("\n" + " " * indent + line, style=style)


def abbreviate(name: str, width: int) -> str:
    """Shorten a name to `width`: keep the first word's start and the other words' initials."""
    if width <= 0:
        return ""
    if len(name) <= width:
        return name
    words = name.split()
    if len(words) > 1:
        rest = "".join(w[0] for w in words[1:])
        head = max(1, width - len(rest) - 1)
        short = words[0][:head] + " " + rest
        if len(short) <= width:
            return short
        short = words[0][: max(1, width - len(rest))] + rest
        if len(short) <= width:
            return short
    return name[:width]


def legend_text(pieces: list[tuple[str, str, str]], width: int, dim_names: bool = False) -> Text:
    """`mark name` pairs laid out in rows that fit `width`; names dim (always, or with a dim mark)."""
    out = Text()
    used = 0
    for mark, style, name in pieces:
        size = len(mark) + 1 + len(name)
        if used and used + 2 + size > width:
            out.append("\n")
            used = 0
        elif used:
            out.append("  ")
            used += 2
        out.append(mark, style=style)
        out.append(" " + name, style="dim" if dim_names or style == "dim" else "")
        used += size
    return out


def number_word(n: int) -> str:
    """'three' for 3 (up to twelve), digits beyond: help text reads like prose."""
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
    return words[n] if 0 <= n < len(words) else str(n)
