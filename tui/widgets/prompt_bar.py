"""The prompt bar: the legal choices with a key each (kept within a decision sequence, see
`OptionKeys`), whose decision it is, and, above them, the dice of the roll being decided and a
first-game hint."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from ..link import TurnClock
from ..modes import shown_labels, tui_mode
from ..options import OPTION_KEYS, OptionKeys
from ..safe import safe_text
from ..standin import IDLE_BAR, STAND_IN_BAR
from ..who import characters, player, playing

# What `PromptBar.show` was given: the view, the local seats, a note, paused, closed, the hint line, who sits where,
# and a turn-based table's clock (whose seats a stand-in plays, whether the table is paused for want of people).
Shown = tuple[dict[str, Any], frozenset[int], Text | None, bool, bool, Text | None, Mapping[int, str], TurnClock | None]


class PromptBar(Static):
    """The legal choices with a key each, the dice being decided, a hint, and whose decision it is.

    Its height moves everything above it, so it grows at once but shrinks only to the
    tallest of its last `HOLD` prompts: a bar that jumps between two and four lines
    with every choice (a dice line coming with its roll, a hint the first time) would
    relay out (and, over a slow link, resend) the panes each time.
    """

    MAX_ROWS = 9  # below the border line
    HOLD = 6
    FLASH_SECONDS = 3.0  # how long a word about a key that picks nothing stays (`flash`)

    def __init__(self, *, id: str) -> None:
        super().__init__(Text("Setting up the table..."), id=id)
        self.options: list[dict[str, Any]] = []
        self.keys: list[str] = []
        self.local = False
        self._last: Shown | None = None
        self._shown: Text | None = None
        self._recent: list[tuple[Shown, int]] = []  # the last HOLD bars, with the rows each needs at `_width`
        self._width = 0
        self.rows = 1
        self._keys = OptionKeys()
        self._flash: Text | None = None
        self._flash_timer: Timer | None = None

    def on_mount(self) -> None:
        self.styles.height = self.rows + 1

    def on_resize(self) -> None:
        if self._last is not None:
            self.show(*self._last, again=True)

    def flash(self, message: str) -> None:
        """A short word in the bar (a key that picks nothing): at the end of the prompt's line where it
        fits, until the next prompt or for `FLASH_SECONDS`."""
        self._flash = Text(message, style="bold bright_yellow")
        if self._flash_timer is not None:
            self._flash_timer.stop()
        self._flash_timer = self.set_timer(self.FLASH_SECONDS, self.unflash)
        if self._last is not None:
            self.show(*self._last, again=True)

    def unflash(self) -> None:
        if self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None
        if self._flash is not None:
            self._flash = None
            if self._last is not None:
                self.show(*self._last, again=True)

    def key_for(self, char: str) -> int | None:
        """The index of the option `char` stands for, if any."""
        return self.keys.index(char) if char and char in self.keys else None

    def show(self, view: dict[str, Any], local_seats: frozenset[int], note: Text | None = None, paused: bool = False,
             closed: bool = False, hint: Text | None = None, names: Mapping[int, str] | None = None,
             turn: TurnClock | None = None, *, again: bool = False) -> None:
        """Draw the bar for a checked view (or `{}` before the first one arrives). `paused`: the link is
        down (the note says why); the prompt is shown without its choices. `hint`: a first-game hint
        line. `names`: who sits at the other seats (`TableLink.seat_names`). `closed`: the table is gone
        for good (the note says so): no question is shown, it will never be answered. `again`: the same bar,
        redrawn (at a new width). `turn`: a turn-based table's clock (`TableLink.clock`): a stand-in's
        seat, or a table paused for want of people, is said so in place of the choices."""
        prompt = view.get("prompt")
        stood = turn is not None and prompt is not None and prompt["seat"] in local_seats and prompt["seat"] in turn.stand_ins
        shown: Shown = (view, local_seats, note, paused or closed or stood, closed, hint, names or {}, turn)
        self._last = shown
        width = max(20, (self.size.width or self.app.size.width) - 2)
        mode = tui_mode(view["mode"]) if view.get("mode") else None
        local = bool(view.get("mode")) and not view.get("outcome") and prompt is not None and not paused and prompt["seat"] in local_seats
        if not again:
            self.keys = self._keys.assign(prompt, mode.stable_keys if mode is not None else frozenset()) if local and prompt else []
            self._flash = None  # a new prompt: the word about the last one is stale
        out, self.options, self.local = self.compose_bar(shown, width, self.keys, self._flash)
        self.set_class(not self.local, "waiting")
        if width != self._width:  # the height each recent bar needs, at this width
            self._width = width
            self._recent = [(old, bar_rows(self.compose_bar(old, width, None)[0], width)) for old, _ in self._recent]
        if not again or not self._recent:
            self._recent = [*self._recent[-(self.HOLD - 1) :], (shown, bar_rows(out, width))]
        rows = min(self.MAX_ROWS, max([bar_rows(out, width), *(needed for _, needed in self._recent)]))  # (a flash may need a row)
        if rows != self.rows:
            self.rows = rows
            self.styles.height = rows + 1  # a layout, but only when the reserved height changes
        if out != self._shown:
            self._shown = out
            self.update(safe_text(out), layout=False)

    @staticmethod
    def compose_bar(shown: Shown, width: int, keys: list[str] | None, flash: Text | None = None) -> tuple[Text, list[dict[str, Any]], bool]:
        """The bar's text for `shown` at `width` (with a `flash`), the options its keys pick, and whether this terminal decides."""
        view, local_seats, note, paused, closed, hint, names, turn = shown
        prompt = view.get("prompt")
        out = Text()
        mode = tui_mode(view["mode"]) if view.get("mode") else None
        # The dice line belongs to the decision on them: the mode shows it only while that decision is open.
        dice = mode.dice(view, width) if mode is not None and prompt is not None and not view.get("outcome") else None
        for part in (dice, hint, note):
            if part is not None:
                out.append_text(part)
                out.append("\n")
        header = out.plain.count("\n")  # the line that says what is being decided
        options: list[dict[str, Any]] = []
        local = False
        if view.get("outcome"):
            out.append(f"The game is over: {view['outcome']}.  Enter: summary   n: new game   q: quit", style="bold")
        elif closed:
            out.rstrip()  # the note says it all: the pending question will never be answered
        elif prompt is None:
            out.append("Waiting for the table...", style="dim")
        elif turn is not None and prompt["seat"] in local_seats and prompt["seat"] in turn.stand_ins:
            out.append(STAND_IN_BAR, style="bold bright_yellow")  # in place of the choices: they are not this terminal's now
        elif turn is not None and turn.clock.idle and prompt["seat"] not in local_seats:
            out.append(IDLE_BAR, style="bold bright_yellow")
        elif paused:
            line = mode.labels(prompt, view, width)[1] if mode is not None else ""
            out.append(f"{line or prompt['text']}  (no choices until then)", style="dim")
        elif prompt["seat"] not in local_seats:
            line = mode.labels(prompt, view, width)[1] if mode is not None else ""
            stand_in = turn is not None and prompt["seat"] in turn.stand_ins
            out.append(waiting_for(view, prompt["seat"], names, line or prompt["text"], stand_in), style="dim")
        else:
            local = True
            options = list(prompt["options"])
            labels, line = shown_labels(prompt, view, width) if mode is not None else ([o["label"] for o in options], "")
            line = line or prompt["text"]
            out.append((whose(view, prompt["seat"], line) if len(local_seats) > 1 else "") + line, style="bold")
            out.append_text(pack_options(labels, width, keys))
        return (out if flash is None else with_flash(out, flash, header, width)), options, local

    @property
    def text(self) -> str:
        """The bar as drawn (tests and tools)."""
        return self._shown.plain if self._shown is not None else ""


def with_flash(bar: Text, flash: Text, header: int, width: int) -> Text:
    """`flash` at the end of the bar's `header` line, else of its last line, else on a line of its own."""
    lines = bar.split("\n", allow_blank=True)
    for n in (header, len(lines) - 1):
        if 0 <= n < len(lines) and len(lines[n].plain) + 3 + len(flash.plain) <= width:
            lines[n] = Text.assemble(lines[n], "   ", flash)
            break
    else:
        lines.append(flash)
    return Text("\n").join(lines)


def waiting_for(view: dict[str, Any], seat: int, names: Mapping[int, str], line: str, stand_in: bool = False) -> str:
    """'Waiting for Ann (Mina Castellane): choose an action' ('for the stand-in for Ann' while a
    stand-in plays the seat), the prompt's line without the name it starts with ('Mina
    Castellane: ', 'Mina Castellane, ') when that is the one just given."""
    for name in characters(view, seat):
        if line.startswith((f"{name}: ", f"{name}, ")):
            line = line[len(name) + 2 :]
            break
    return f"Waiting for {'the stand-in for ' if stand_in else ''}{player(view, seat, names)}: {line}"


def whose(view: dict[str, Any], seat: int, line: str) -> str:
    """Hot-seat: '[Mina Castellane] ' before a line that does not say whose decision it is."""
    return "" if any(name in line for name in characters(view, seat)) else f"[{playing(view, seat)}] "


def bar_rows(text: Text, width: int) -> int:
    """Rows the bar needs at `width`, counting lines that wrap (a long prompt takes two)."""
    return sum(max(1, -(-len(line) // max(1, width))) for line in text.plain.split("\n"))


def pack_options(labels: list[str], width: int, keys: list[str] | None = None) -> Text:
    """' 1  Run    2  Attack' lines, never splitting an option across two lines unless it alone is wider:
    then its words wrap and carry on under its text (a hanging indent), never under its key."""
    out = Text()
    line_len = 0
    for n, label in enumerate(labels):
        key = (keys[n] if keys is not None and n < len(keys) else (OPTION_KEYS[n] if n < len(OPTION_KEYS) else "")) or "?"
        indent = len(key) + 3  # ' 1 ' and the space after it
        piece_len = indent + len(label)
        if line_len == 0 or line_len + 3 + piece_len > width:
            out.append("\n")
            line_len = 0
        else:
            out.append("   ")
            line_len += 3
        out.append(f" {key} ", style="bold reverse")
        if piece_len <= width:
            out.append(" " + label)
            line_len += piece_len
            continue
        lines = textwrap.wrap(label, max(1, width - indent), break_on_hyphens=False) or [""]
        out.append(" " + lines[0])
        for more in lines[1:]:
            out.append("\n" + " " * indent + more)
        line_len = width  # the next option starts a line of its own
    return out
