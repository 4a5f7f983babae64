"""The big moments since this terminal's last decision, for the moment card above the prompt bar.

After "End actions" a Mythos card, its summons, the Elder One advancing and a Stage falling arrive
in one update: a dozen Log lines at once. Board-game apps show the card: here each card, each
Elder One moment and the Wheel of Shamblers becomes a `Moment` (a title, then what it says and
did), kept on screen until this terminal decides something, so nobody needs a key to read on.
The mode says what each event is to a moment (`TuiMode.beat`); this keeps the moments.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Console
from rich.text import Text

from .modes import Beat

TITLE_STYLE = "bold bright_yellow"
QUOTE_STYLE = "italic"


@dataclass
class Moment:
    key: str
    title: str
    lines: list[tuple[str, bool]] = field(default_factory=list)  # (sentence, the card's own printed text)


class Moments:
    """The moments since the last decision made here, oldest first (at most `KEEP`: a watcher's
    card shows the newest). `clear` at each decision; `take` each event's beat as it is told."""

    KEEP = 6

    def __init__(self) -> None:
        self.items: list[Moment] = []
        self._open: Moment | None = None

    def clear(self) -> bool:
        """Forget them all (this terminal decided); True if there were any."""
        had = bool(self.items)
        self.items.clear()
        self._open = None
        return had

    def take(self, beat: Beat | None) -> bool:
        """Follow one event's beat; True if the moments changed."""
        if beat is None:
            return False
        if beat.kind == "end":
            self._open = None
            return False
        if beat.kind == "begin":
            moment = Moment(beat.key, beat.title)
            self.items.append(moment)
            del self.items[: -self.KEEP]
            self._open = moment
        elif beat.key:
            found = next((m for m in reversed(self.items) if m.key == beat.key), None)
            if found is None:
                if not beat.title:
                    return False
                found = Moment(beat.key, beat.title)  # a card still at work after a decision: on the card again
                self.items.append(found)
                del self.items[: -self.KEEP]
            moment = self._open = found
        elif self._open is not None:
            moment = self._open
        else:
            return False  # a summon with no card open: the Log tells it
        if beat.line:
            moment.lines.append((beat.line, beat.quote))
        return True


Wrapped = dict[tuple[str, tuple[tuple[str, bool], ...], int], list[Text]]  # (title, lines, width) -> its lines


def _wrapped(moment: Moment, console: Console, width: int, cache: Wrapped | None) -> list[Text]:
    """A moment's title and words as lines of `width` (kept in `cache`: a card is drawn again with
    every Log line told while it shows, its moments mostly unchanged)."""
    key = (moment.title, tuple(moment.lines), width)
    if cache is not None and key in cache:
        return cache[key]
    text = Text()
    text.append(moment.title + (":" if moment.lines else ""), style=TITLE_STYLE)
    for line, quote in moment.lines:
        text.append(" ")
        text.append(line, style=QUOTE_STYLE if quote else "")
    lines = list(text.wrap(console, width))
    if cache is not None:
        cache[key] = lines
    return lines


def render_moments(items: list[Moment], console: Console, width: int, rows: int, ascii_only: bool = False,
                   tail: Text | None = None, cache: Wrapped | None = None) -> Text:
    """The moments in at most `rows` lines of `width`: every title shown, each moment's words given
    the lines left in reading order and cut with an ellipsis where they run out. `tail`: the
    newest Log line told since (no moment's), last and whole where it fits, so the story's end
    stays in sight. `cache`: wrapped moments kept from one drawing to the next."""
    width = max(10, width)
    more = "..." if ascii_only else "…"
    tail_lines = list(tail.wrap(console, width)) if tail is not None else []
    room = max(1, rows - (1 if tail_lines else 0))
    shown = items[-room:]
    wrapped = [_wrapped(moment, console, width, cache) for moment in shown]
    tail_rows = min(len(tail_lines), max(1, rows - len(wrapped))) if tail_lines else 0
    budget = [1] * len(wrapped)
    left = rows - len(wrapped) - tail_rows
    for n, lines in enumerate(wrapped):
        extra = max(0, min(left, len(lines) - 1))
        budget[n] += extra
        left -= extra
    if tail_lines:
        wrapped.append(tail_lines)
        budget.append(tail_rows)
    out = Text()
    for n, lines in enumerate(wrapped):
        kept = lines[: budget[n]]
        if len(lines) > budget[n]:
            last = kept[-1].copy()  # (the wrapped lines may be kept for the next drawing)
            last.truncate(max(1, width - len(more)))
            last.rstrip()
            last.append(more)
            kept[-1] = last
        for row in kept:
            if out:
                out.append("\n")
            out.append_text(row)
    return out
