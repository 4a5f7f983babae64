"""Text from outside this program, on screen: cleaned, and never read as markup.

Everything a peer, a host or a save file says reaches the screen through
here. `clean_update` cleans what a link delivers before a screen looks at it
(views, events, chat, notices: every field of its news); `safe_text` is the last step of every sink
(each pane line, the prompt bar, the status line, dialogs), so a string that
slipped past the first still cannot move the cursor, wipe the screen, set the
title or the clipboard. Both use `net.textclean.clean_text`, the one cleaning
function. Rich `Text` is never parsed for markup, so ``[bold]`` in a name shows
as typed; widgets that would parse a plain string get a `Text` instead.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, TypeVar

from rich.text import Text

from cthulhu.net import clean_text, clean_tree

from .link import SinceLeft, Update

U = TypeVar("U", bound=Update)


def plain(text: object, style: str = "") -> Text:
    """Outside text as one literal, cleaned line."""
    return Text(clean_text(text), style=style)


def _clean_line(line: str) -> bool:
    return line.isprintable()


def safe_text(text: Text) -> Text:
    """`text` with every line printable; the same object (styles kept) when it already is."""
    if all(_clean_line(line) for line in text.plain.split("\n")):
        return text
    out = Text(style=text.style, justify=text.justify, no_wrap=text.no_wrap, overflow=text.overflow)
    for n, line in enumerate(text.split("\n", allow_blank=True)):
        if n:
            out.append("\n")
        out.append_text(line if _clean_line(line.plain) else Text(clean_text(line.plain), style=line.style))
    return out


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, (dict, list)):
        return clean_tree(value)
    if isinstance(value, SinceLeft):
        return replace(value, entries=clean_tree(value.entries))
    if isinstance(value, tuple):  # an opening's news
        return tuple(clean_update(news) for news in value)
    return value  # a flag, or nothing


def clean_update(update: U) -> U:
    """News with every string in it cleaned (views copy on write: an honest one is not copied)."""
    return replace(update, **{f.name: _clean(getattr(update, f.name)) for f in fields(update)})
