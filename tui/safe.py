"""Text from outside this program, on screen: cleaned, and never read as markup.

Everything a peer, a host or a save file says reaches the screen through
here. `clean_update` cleans what a link delivers before a screen looks at it
(views, events, chat, notices); `safe_text` is the last step of every sink
(each pane line, the prompt bar, the status line, dialogs), so a string that
slipped past the first still cannot move the cursor, wipe the screen, set the
title or the clipboard. Both use `net.textclean.clean_text`, the one cleaning
function. Rich `Text` is never parsed for markup, so ``[bold]`` in a name shows
as typed; widgets that would parse a plain string get a `Text` instead.
"""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text

from cthulhu.net.textclean import clean_text, clean_tree

from .link import Update


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


def clean_update(update: Update) -> Update:
    """An update with every string in it cleaned (views copy on write: an honest one is not copied)."""
    return replace(
        update,
        view=clean_tree(update.view),
        events=clean_tree(update.events),
        earlier=clean_tree(update.earlier),
        since=replace(update.since, entries=clean_tree(update.since.entries)) if update.since is not None else None,
        chat=(clean_text(update.chat[0]), clean_text(update.chat[1])) if update.chat else None,
        rejected=clean_text(update.rejected) if update.rejected is not None else None,
        notice=clean_text(update.notice) if update.notice is not None else None,
        status=clean_text(update.status) if update.status is not None else None,
        warning=clean_text(update.warning) if update.warning is not None else None,
    )
