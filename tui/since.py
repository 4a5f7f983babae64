"""What happened since you left, told as the Log tells it, grouped by turn, short enough to read.

A player back at a table (`SinceLeft`, from the host's recap and the step they last saw) is
shown the steps they missed before the prompt: each turn under its own heading (the turn's own
"Turn 5: ... takes the turn." line), a stand-in bot's decisions marked as such. The newest
`SHOWN_LINES` lines are told in full (about two screens of the dialog at 80x24); older turns are
summed up a line each, and many of those in one line, so nothing is cut without saying so. The
Log has every line anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from .english import plural
from .link import SinceLeft
from .narrate import KIND_STYLES, tell
from .safe import plain
from .who import playing

SHOWN_LINES = 30  # lines told in full, the newest
SUMMED_TURNS = 5  # older turns summed up a line each; more than this, all in one line
STAND_IN = "[stand-in] "  # a bot decided this for the player who was away (or whose clock ran out)


@dataclass
class Turn:
    """One turn's lines (kind, sentence); `heading`: its "Turn N: ..." line (None: the turn the
    player left in, already under way)."""

    number: int | None
    heading: tuple[str, str] | None = None
    lines: list[tuple[str, str]] = field(default_factory=list)


def turns(since: SinceLeft, view: dict[str, Any]) -> list[Turn]:
    """The steps missed, as turns, oldest first."""
    out: list[Turn] = []
    for step, events in since.entries:
        seat = since.stand_in.get(step)
        mark = seat is not None  # the step's first line is the decision: marked; what came of it is not
        for ev in events:
            kind, sentence = tell(ev, view)
            if ev.get("type") == "turn_started":
                number = ev.get("turn")
                out.append(Turn(number if isinstance(number, int) else None, (kind, sentence)))
                continue
            if not out:
                out.append(Turn(None))
            if mark:
                sentence, mark = STAND_IN + sentence, False
            out[-1].lines.append((kind, sentence))
        if mark and seat is not None:  # a decision that told nothing of its own (a skipped turn)
            if not out:
                out.append(Turn(None))
            out[-1].lines.append(("info", f"{STAND_IN}A stand-in bot decided for {playing(view, seat)}."))
    if out and out[0].heading is None:  # the turn the player left in: the one before the next, or now's
        later = next((t.number for t in out if t.number is not None), None)
        out[0].number = later - 1 if later is not None else view.get("turn") if isinstance(view.get("turn"), int) else None
    return out


def _summed(turn: Turn) -> str:
    which = f"Turn {turn.number}" if turn.number is not None else "The turn you left in"
    return f"{which}: {plural(len(turn.lines) + (turn.heading is not None), 'line')} (in the Log)"


def since_text(since: SinceLeft, view: dict[str, Any], shown: int = SHOWN_LINES) -> Text:
    """The dialog's body: a line on how much was missed, older turns summed up, the newest in full."""
    groups = turns(since, view)
    missed = since.step - since.seen
    out: list[Text] = [plain(f"While you were away, {plural(missed, 'step')} {'was' if missed == 1 else 'were'} played "
                             f"(steps {since.seen + 1} to {since.step}).", "bold")]
    if since.older:
        out.append(plain(f"{plural(since.older, 'step')} before these are older than what the table keeps to tell: "
                         "a replay of the save has them.", "dim"))
    full: list[Turn] = []
    room = shown
    for turn in reversed(groups):  # the newest turns in full while they fit, and always the last one
        size = len(turn.lines) + 1
        if full and size > room:
            break
        full.insert(0, turn)
        room -= size
    summed = groups[: len(groups) - len(full)]
    if len(summed) > SUMMED_TURNS:
        first, last = summed[0].number, summed[-1].number
        count = sum(len(t.lines) + (t.heading is not None) for t in summed)
        span = f"Turns {first} to {last}" if first is not None and last is not None else "Earlier turns"
        out.append(plain(f"{span}: {plural(len(summed), 'turn')}, {plural(count, 'line')} (in the Log)", "dim"))
    else:
        out.extend(plain(_summed(turn), "dim") for turn in summed)
    for turn in full:
        out.append(Text(""))
        if turn.heading is not None:
            out.append(plain(turn.heading[1], KIND_STYLES["turn"]))
        else:
            out.append(plain(f"Turn {turn.number}, after you left:" if turn.number is not None else "The turn you left in, after you left:",
                             KIND_STYLES["turn"]))
        lines = turn.lines
        if len(lines) > shown:  # one turn longer than the dialog shows: its newest lines
            out.append(plain(f"  ... {plural(len(lines) - shown + 1, 'earlier line')} of this turn (in the Log)", "dim"))
            lines = lines[-(shown - 1):]
        out.extend(plain(f"  {sentence}", KIND_STYLES.get(kind, "")) for kind, sentence in lines)
    return Text("\n").join(out)
