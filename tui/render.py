"""Small drawing pieces every mode's panes share: tracks of boxes, short names, legends.

Pure functions to Rich `Text`, tested without a terminal.
"""

from __future__ import annotations

import re
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


_TRACK = re.compile(r"\[([#.+X]*)\] (\d+)/(\d+)")


def spoken_tracks(line: str) -> str:
    """Every `track` in `line` ('[##.....] 2/7') in words, for the reader mode: '2 of 7'; the marks a
    track draws ahead of its value (a sanity track's thresholds) as where they are."""

    def words(found: re.Match[str]) -> str:
        marks = [str(n) for n, cell in enumerate(found.group(1), 1) if cell == "+"]
        ahead = f" (thresholds at {', '.join(marks[:-1])} and {marks[-1]})" if len(marks) > 1 else f" (a threshold at {marks[0]})" if marks else ""
        return f"{found.group(2)} of {found.group(3)}{ahead}"

    return _TRACK.sub(words, line)


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


SMALL_WORDS = frozenset({"the", "of", "a", "an", "and"})


def shorten(name: str, width: int) -> str:
    """A name that fits `width` and still reads as itself: whole; without its small words; else the
    fitting short form that keeps the most letters, among the first word with the others' initials
    ("Yard G.", "Vat H."), the longest word alone ("Cistern", "Drying") and the first word cut to fit
    beside the next one's start; else the longest word cut."""
    if width <= 0:
        return ""
    if len(name) <= width:
        return name
    words = name.split()
    big = [w for n, w in enumerate(words) if n == 0 or w.lower() not in SMALL_WORDS]
    if len(big) > 1 and big[0].lower() in SMALL_WORDS:
        big = big[1:]  # "The Stacks" -> "Stacks"
    whole = " ".join(big)
    if len(whole) <= width:
        return whole
    if len(big) == 1:
        return whole[:width]
    longest = max(big, key=len)
    # Initials carry a full stop, so "Boiler S." never reads as the start mark S beside it.
    forms = [big[0] + " " + " ".join(w[0] + "." for w in big[1:]), longest, longest[: max(4, width)]]
    fitting = [f for f in forms if len(f) <= width]
    if fitting:
        return max(fitting, key=lambda f: sum(ch.isalpha() for ch in f))
    return longest[:width]


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
