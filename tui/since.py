"""What happened since you left, told as the Log tells it, short enough to read, nothing dropped unsaid.

A player back at a table (`SinceLeft`, from the host's recap and the step they last saw) is
shown, before the prompt:

1. the newest `SHOWN_LINES` lines whole, under their turns' headings (the turn's own "Turn 5:
   ... takes the turn." line), a stand-in bot's decisions marked as such;
2. per seat, what happened to it: for the player's own seats every decision a stand-in made
   for them (marked, by step; the ones older than the table keeps are counted), and for every
   seat the lines that hurt or helped it (the newest `PER_SEAT`, the rest counted);
3. every older turn, one line each (its heading and how many lines the Log has of it).

The Log has every line anyway; whatever is not shown whole is counted, never cut silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from .english import plural
from .link import SinceLeft
from .narrate import KIND_STYLES, tell
from .safe import plain
from .who import characters, playing

SHOWN_LINES = 30  # lines told in full, the newest
PER_SEAT = 6  # lines that hurt or helped a seat, the newest; the rest are counted
STAND_IN = "[stand-in] "  # a bot decided this for the player who was away (or whose clock ran out)
TOLD_PER_SEAT = ("harm", "good", "end")  # the kinds of line that say what happened to someone


@dataclass
class Turn:
    """One turn's lines (kind, sentence) and the step of each; `heading`: its "Turn N: ..." line
    (None: the turn the player left in, already under way)."""

    number: int | None
    heading: tuple[str, str] | None = None
    lines: list[tuple[str, str]] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.lines) + (self.heading is not None)

    def title(self) -> str:
        return f"Turn {self.number}" if self.number is not None else "The turn you left in"


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
            out[-1].steps.append(step)
        if mark and seat is not None:  # a decision that told nothing of its own (a skipped turn)
            if not out:
                out.append(Turn(None))
            out[-1].lines.append(("info", f"{STAND_IN}A stand-in bot decided for {playing(view, seat)}."))
            out[-1].steps.append(step)
    if out and out[0].heading is None:  # the turn the player left in: the one before the next, or now's
        later = next((t.number for t in out if t.number is not None), None)
        out[0].number = later - 1 if later is not None else view.get("turn") if isinstance(view.get("turn"), int) else None
    return out


def _newest(groups: list[Turn], shown: int) -> tuple[list[Text], int]:
    """The newest `shown` lines whole, under their turns' headings; and how many turns (the oldest)
    have none of their lines among them."""
    room = shown
    first = len(groups)
    for index in range(len(groups) - 1, -1, -1):
        if room <= 0:
            break
        first = index
        room -= groups[index].size
    out: list[Text] = []
    for index in range(first, len(groups)):
        turn = groups[index]
        cut = -room if index == first and room < 0 else 0  # the oldest of these turns may start before the newest lines
        if cut == 1 and turn.heading is not None:
            cut = 0  # its heading alone: kept, rather than a line saying it is not
        out.append(Text(""))
        if turn.heading is not None and not cut:
            out.append(plain(turn.heading[1], KIND_STYLES["turn"]))
        else:
            out.append(plain(f"{turn.title()}, {'continued' if turn.heading is not None else 'after you left'}:", KIND_STYLES["turn"]))
        earlier = max(0, cut - (turn.heading is not None))
        if earlier:
            out.append(plain(f"  ... {plural(earlier, 'earlier line')} of this turn (in the Log)", "dim"))
        out.extend(plain(f"  {sentence}", KIND_STYLES.get(kind, "")) for kind, sentence in turn.lines[earlier:])
    return out, first


def _seats(since: SinceLeft, view: dict[str, Any], groups: list[Turn], mine: Iterable[int]) -> list[Text]:
    """Per seat, what happened to it; the player's own seats first, with every stand-in decision."""
    ours = sorted(set(mine))
    seats = sorted(set(_every_seat(view)) | set(ours) | set(since.stand_in.values()), key=lambda s: (s not in ours, s))
    told: dict[int, tuple[str, str]] = {}  # step -> its first line (a stand-in's decision is its step's first)
    for turn in groups:
        for step, line in zip(turn.steps, turn.lines):
            told.setdefault(step, line)
    out: list[Text] = [Text(""), plain("What happened to each seat:", "bold")]
    for seat in seats:
        names = characters(view, seat) or [playing(view, seat)]
        out.append(plain(f"{playing(view, seat)}{' (you)' if seat in ours else ''}:", "bold"))
        if seat in ours:
            decided = sorted(step for step, who in since.stand_in.items() if who == seat)
            shown = [step for step in decided if step in told]
            untold = len(decided) - len(shown)
            if untold:
                out.append(plain(f"  {STAND_IN}{plural(untold, 'decision')} older than the table keeps to tell "
                                 "(a replay of the save has them)", "dim"))
            for step in shown:
                kind, sentence = told[step]
                sentence = sentence if sentence.startswith(STAND_IN) else STAND_IN + sentence
                out.append(plain(f"  step {step}: {sentence}", KIND_STYLES.get(kind, "")))
            if not decided:
                out.append(plain("  no stand-in decided for you", "dim"))
        about = [(kind, sentence) for turn in groups for kind, sentence in turn.lines
                 if kind in TOLD_PER_SEAT and any(name in sentence for name in names)]
        if len(about) > PER_SEAT:
            out.append(plain(f"  ... {plural(len(about) - PER_SEAT, 'earlier line')} about them (in the Log)", "dim"))
        out.extend(plain(f"  {sentence}", KIND_STYLES.get(kind, "")) for kind, sentence in about[-PER_SEAT:])
        if not about:
            out.append(plain("  nothing hurt or helped them", "dim"))
    return out


def _every_seat(view: dict[str, Any]) -> list[int]:
    """The seats the mode names in `view` (none before the first view)."""
    from cthulhu.core import modes as core_modes

    if not view.get("mode"):
        return []
    declared = core_modes.get(view["mode"]).characters
    return sorted(declared(view)) if declared is not None else []


def since_text(since: SinceLeft, view: dict[str, Any], mine: Iterable[int] = (), shown: int = SHOWN_LINES) -> Text:
    """The dialog's body: how much was missed, the newest lines whole, each seat, older turns a line each."""
    groups = turns(since, view)
    missed = since.step - since.seen
    out: list[Text] = [plain(f"While you were away, {plural(missed, 'step')} {'was' if missed == 1 else 'were'} played "
                             f"(steps {since.seen + 1} to {since.step}).", "bold")]
    if since.older:
        out.append(plain(f"{plural(since.older, 'step')} before these are older than what the table keeps to tell: "
                         "a replay of the save has them.", "dim"))
    newest, first = _newest(groups, shown)
    total = sum(t.size for t in groups)
    out.append(plain(f"The newest {plural(min(total, shown), 'line')}" + (f" of {total}:" if total > shown else ":"), "bold"))
    out.extend(newest)
    out.extend(_seats(since, view, groups, mine))
    if first:
        out.append(Text(""))
        out.append(plain("Older turns, a line each:", "bold"))
        for turn in groups[:first]:
            what = turn.heading[1] if turn.heading is not None else f"{turn.title()}, under way when you left."
            out.append(plain(f"  {what} ({plural(turn.size, 'line')} in the Log)", "dim"))
    return Text("\n").join(out)
