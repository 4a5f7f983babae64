"""Text that did not come from this program is data: the one function that makes it safe to show.

A peer's name or chat line, a reason in a host's error, a player name in a
save file, anything in a view received from a host: all of it is cleaned with
`clean_text` where it enters (the host cleans names and chat before relaying
them) and again wherever it is drawn or printed (the TUI, `cthulhu replay`,
`cthulhu saves`, log lines). Cleaning keeps printable characters only
(`str.isprintable`): no C0/C1 control characters (so no escape sequence can
start: no OSC title or clipboard writes, no CSI screen wipes), no DEL, no
bidirectional overrides or isolates, no zero-width or other format characters,
no private-use or unassigned code points. Whitespace controls become a space.

Markup is not a character problem: Rich/Textual interpret ``[bold]`` only when a
string is handed to an API that parses markup. Sinks build `rich.text.Text`
from cleaned strings (never markup), so brackets show literally.
"""

from __future__ import annotations

import logging
from typing import Any

NAME_MAX = 24  # characters in a player name, after cleaning
CHAT_MAX = 300  # characters in one chat line, after cleaning

_SPACES = frozenset("\t\n\r\v\f\x1c\x1d\x1e\x1f\x85\u2028\u2029")


def clean_text(text: object, limit: int | None = None, *, newlines: bool = False) -> str:
    """`text` as a string of printable characters only, at most `limit` characters long.

    Tabs, line breaks and other spacing controls become one space (with
    `newlines`, a line feed stays a line feed); non-ASCII spaces become a plain
    space; every other non-printable character is dropped.
    """
    if not isinstance(text, str):
        text = str(text)
    if not text.isprintable():  # the common case costs one C-level scan
        out = []
        for ch in text:
            if ch.isprintable():
                out.append(ch)
            elif ch == "\n" and newlines:
                out.append(ch)
            elif ch in _SPACES or ch.isspace():
                out.append(" ")
        text = "".join(out)
    if limit is not None and len(text) > limit:
        text = text[:limit]
    return text


def clean_name(text: Any) -> str:
    """A player name: cleaned, trimmed, one line, at most `NAME_MAX` characters ('' if nothing is left)."""
    return clean_text(text, None).strip()[:NAME_MAX].strip()


def clean_chat(text: Any) -> str:
    """A chat line: cleaned, trimmed, one line, at most `CHAT_MAX` characters ('' if nothing is left)."""
    return clean_text(text, None).strip()[:CHAT_MAX].rstrip()


def clean_tree(value: Any) -> Any:
    """Every string in plain wire data (maps, lists, scalars) cleaned, line feeds kept.

    Copy on write: containers whose strings are all clean come back as the very
    same objects, so an honest view costs one scan and no allocation.
    """
    if isinstance(value, str):
        return clean_text(value, newlines=True)
    if isinstance(value, dict):
        out: dict[Any, Any] | None = None
        for n, (k, v) in enumerate(value.items()):
            ck = clean_text(k, newlines=True) if isinstance(k, str) else k
            cv = clean_tree(v)
            if out is None and (ck is not k or cv is not v):
                out = dict(list(value.items())[:n])  # the clean keys so far, as they were
            if out is not None:
                out[ck] = cv
        return value if out is None else out
    if isinstance(value, list):
        copy: list[Any] | None = None
        for n, v in enumerate(value):
            cv = clean_tree(v)
            if copy is None and cv is not v:
                copy = value[:n]
            if copy is not None:
                copy.append(cv)
        return value if copy is None else copy
    return value


class CleanFormatter(logging.Formatter):
    """Log lines carry peer names: clean the finished line (tracebacks keep their line breaks)."""

    def format(self, record: logging.LogRecord) -> str:
        return clean_text(super().format(record), newlines=True)
