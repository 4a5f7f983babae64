"""A turn-based table's clock: who must decide, by when, and what the host does when time runs out.

The host asks `deciding` after every change (a step, a take-back, a seat taken or handed over):
the clock runs only for a person's seat that must decide and that no bot plays, and only on a
turn-based table (`Pace`). It runs per decision, on trio's clock (so tests run it on virtual
time); its deadline is also told as wall-clock UTC, which is what a server keeps in its store, so
a restarted server gives the same decision only the time it had left. What the host tells its
owner (`MoveBegins`, `StandInMove`) is told on live tables too: a move beginning is news whatever
the pace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from .messages import OnTimeout, TableRow

ON_TIMEOUT: tuple[OnTimeout, ...] = ("stand-in", "skip", "pause")

_UNITS = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}
_DURATION = re.compile(r"(\d+)([dhms])")
MAX_TURN_TIME = 60 * 86_400  # 60 days


def parse_duration(text: str) -> int:
    """`90s`, `12h`, `3d`, `1h30m` (units d, h, m, s, largest first) in whole seconds; ValueError
    with one line otherwise."""
    raw = text.strip().lower()
    parts = _DURATION.findall(raw)
    if not raw or "".join(f"{n}{u}" for n, u in parts) != raw:
        raise ValueError(f"{text!r} is not a duration (say e.g. 90s, 12h, 3d or 1h30m)")
    units = [u for _, u in parts]
    if len(set(units)) != len(units) or units != sorted(units, key=lambda u: -_UNITS[u]):
        raise ValueError(f"{text!r}: give each unit once, the largest first (e.g. 1h30m)")
    seconds = sum(int(n) * _UNITS[u] for n, u in parts)
    if not 1 <= seconds <= MAX_TURN_TIME:
        raise ValueError(f"{text!r}: a turn time is from 1s to 60d")
    return seconds


def format_duration(seconds: float) -> str:
    """The time left as a person reads it: `2d 3h`, `4h 05m`, `12m 30s`, `45s`."""
    s = max(0, int(seconds + 0.999))  # a clock shows the second it is in, not the one it has passed
    days, s = divmod(s, 86_400)
    hours, s = divmod(s, 3_600)
    minutes, s = divmod(s, 60)
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes:02d}m" if minutes else f"{hours}h"
    if minutes:
        return f"{minutes}m {s:02d}s" if s else f"{minutes}m"
    return f"{s}s"


def pace_words(row: TableRow, now: datetime) -> str:
    """A lobby row's pace and time left as a listing says it: `, 12h a move, 3h 05m left` (a
    live table: nothing; a paused clock: `, paused`)."""
    if row.pace != "turn-based" or row.turn_time is None:
        return ""
    words = f", {format_duration(row.turn_time)} a move"
    if row.finished:
        return words
    if row.deadline is not None:
        try:
            left = (datetime.fromisoformat(row.deadline) - now).total_seconds()
        except ValueError:
            return words
        return words + f", {format_duration(left)} left"
    return words


@dataclass(frozen=True, slots=True)
class MoveBegins:
    """A person's seat must decide (a new decision, or the same one after its stand-in left).
    `turn`: the game's turn number, where the mode counts turns; `deadline`: when its clock runs
    out (UTC), None on a live table or while the table is paused for it."""

    seat: int
    name: str | None
    step: int
    turn: int | None
    deadline: datetime | None


@dataclass(frozen=True, slots=True)
class StandInMove:
    """A bot decided for a person's seat (`step` is the step it made; no take-back crosses it).
    `why`: `away` (a stand-in for a player who left), `clock` (their clock ran out: a stand-in
    plays until they are back), `skip` (their clock ran out and the decision was passed over)."""

    seat: int
    name: str | None
    step: int
    command: dict[str, Any]
    why: Literal["away", "clock", "skip"]


@dataclass(slots=True)
class ClockState:
    """The clock of one decision: `seat` at `step`, due at `due` (trio clock) and at `deadline`
    (UTC); `paused`: it ran out and the table waits for that seat (`pause`)."""

    seat: int
    step: int
    due: float | None
    deadline: datetime | None
    paused: bool = False

    def left(self, now: float) -> float | None:
        return None if self.due is None else max(0.0, self.due - now)

    def saved(self) -> dict[str, Any]:
        """What a server keeps of it (wall time only: its trio clock does not outlive it)."""
        return {"seat": self.seat, "step": self.step, "deadline": _iso(self.deadline), "paused": self.paused}


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat(timespec="seconds")


def resumed(saved: dict[str, Any] | None, seat: int, step: int, now: float, wall: datetime) -> ClockState | None:
    """The clock a server kept for this very decision, with only the time it had left (or none:
    it ran out while the server was down, and runs out at once); None if it was another decision."""
    if not saved or saved.get("seat") != seat or saved.get("step") != step:
        return None
    if saved.get("paused"):
        return ClockState(seat, step, None, None, paused=True)
    try:
        deadline = datetime.fromisoformat(str(saved["deadline"]))
    except (KeyError, ValueError):
        return None
    left = max(0.0, (deadline - wall).total_seconds())
    return ClockState(seat, step, now + left, deadline)


def started(seat: int, step: int, turn_time: float, now: float, wall: datetime) -> ClockState:
    return ClockState(seat, step, now + turn_time, (wall + timedelta(seconds=turn_time)).replace(microsecond=0))
