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

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from cthulhu.core import Command, Game, modes
from cthulhu.net import Clock

from .seats import Seat
from .spec import Pace
from .standin import StandInPolicy

log = logging.getLogger("cthulhu.table.host")


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
    (UTC); `paused`: it ran out and the table waits for that seat (`pause`), or (`idle`) the
    table stopped at it because no person played for a whole round (`table.standin`)."""

    seat: int
    step: int
    due: float | None
    deadline: datetime | None
    paused: bool = False
    idle: bool = False

    def left(self, now: float) -> float | None:
        return None if self.due is None else max(0.0, self.due - now)

    def saved(self) -> dict[str, Any]:
        """What a server keeps of it (wall time only: its trio clock does not outlive it)."""
        return {"seat": self.seat, "step": self.step, "deadline": _iso(self.deadline), "paused": self.paused, "idle": self.idle}


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat(timespec="seconds")


def resumed(saved: dict[str, Any] | None, seat: int, step: int, now: float, wall: datetime) -> ClockState | None:
    """The clock a server kept for this very decision, with only the time it had left (or none:
    it ran out while the server was down, and runs out at once); None if it was another decision."""
    if not saved or saved.get("seat") != seat or saved.get("step") != step or saved.get("idle"):
        return None  # (an idle pause is the stand-in policy's to keep: it ended, and this clock is new)
    if saved.get("paused"):
        return ClockState(seat, step, None, None, paused=True)
    if isinstance(saved.get("left_ms"), int):  # handed from one process to another: stopped meanwhile
        left = max(0.0, saved["left_ms"] / 1000)
        return ClockState(seat, step, now + left, (wall + timedelta(seconds=left)).replace(microsecond=0))
    try:
        deadline = datetime.fromisoformat(str(saved["deadline"]))
    except (KeyError, ValueError):
        return None
    left = max(0.0, (deadline - wall).total_seconds())
    return ClockState(seat, step, now + left, deadline)


def clock_wire(pace: Pace, c: ClockState | None, now: float) -> Clock | None:
    """The turn clock as peers see it (None: a live table)."""
    if pace.turn_time is None:
        return None
    left = c.left(now) if c is not None else None
    return Clock(turn_time=int(pace.turn_time), on_timeout=pace.on_timeout, seat=c.seat if c is not None else None,
                 deadline=c.deadline.isoformat(timespec="seconds") if c is not None and c.deadline is not None else None,
                 left_ms=None if left is None else int(left * 1000), paused=c is not None and c.paused,
                 idle=c is not None and c.idle, away_after=pace.away_after)


def started(seat: int, step: int, turn_time: float, now: float, wall: datetime) -> ClockState:
    return ClockState(seat, step, now + turn_time, (wall + timedelta(seconds=turn_time)).replace(microsecond=0))


@dataclass(frozen=True, slots=True)
class Kept:
    """What a server kept of a table's time across a restart: the running clock
    (`ClockState.saved`) and the stand-ins' memory (`StandInPolicy.saved`)."""

    clock: dict[str, Any] | None = None
    turns: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ClockOut:
    """Into the game loop: the clock of `seat`'s decision at `step` ran out."""

    seat: int
    step: int


@dataclass(frozen=True, slots=True)
class Followed:
    """Whose decision runs now changed: `lobby`, the clock peers see changed; `began`, the
    (seat, step) of a person's decision that began (news for whoever keeps records: `begins`)."""

    lobby: bool
    began: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class RanOut:
    """A clock ran out and its decision still waits: `skip`, the command that passes it over
    (made for the seat at prompt `version`); None: the seats show what changed."""

    skip: Command | None
    version: int


class TurnClock:
    """The table's turn clock and its stand-ins' policy: it decides, the host acts. `wall` is
    the UTC clock a deadline is told in; `kept`, what a server kept before a restart."""

    def __init__(self, pace: Pace, mode: str, wall: Callable[[], datetime], kept: Kept | None = None) -> None:
        self.pace = pace
        self.mode = mode
        self.wall = wall
        self.state: ClockState | None = None  # the decision whose clock runs (or ran out: `paused`); turn-based only
        self.turns = StandInPolicy(pace, mode)  # who stands in for whom, and when the table pauses
        self._kept = kept.clock if kept is not None else None
        self._kept_turns = kept.turns if kept is not None else None
        self._deciding: tuple[int, int, bool] | None = None  # (seat, step, idle) of the person's decision followed last

    def restore(self, seats: Sequence[Seat], stand_in: Callable[[int], Any]) -> None:
        """The stand-ins' memory a server kept, given back to these seats."""
        self.turns.restore(self._kept_turns, seats, stand_in)

    def wire(self, now: float) -> Clock | None:
        """The turn clock as peers see it (None: a live table)."""
        return clock_wire(self.pace, self.state, now)

    @property
    def due(self) -> float | None:
        """When the running clock runs out (trio clock; None: none runs)."""
        state = self.state
        return state.due if state is not None and not state.paused else None

    def bot_to_play(self, game: Game, seats: Sequence[Seat]) -> Any:
        """The bot that makes the decision waiting now (None: a person's, the end, or a table paused for want of people)."""
        prompt = game.prompt
        if game.outcome is not None or prompt is None or self.turns.paused(game, seats):
            return None
        return seats[prompt.seat].player

    def moved(self, game: Game, seats: Sequence[Seat], person: int | None) -> bool:
        """After a step or a take-back (by the person at seat `person`, if any: they returned), the
        stand-ins and the rounds follow the game's turn (`table.standin`). True: the seats show it."""
        back = person is not None and self.turns.returned(seats[person])
        return bool(self.turns.moved(game, seats)) or back

    def follow(self, game: Game, seats: Sequence[Seat], playing: bool, now: float) -> Followed | None:
        """A person's decision began (its clock starts, a kept one resumes), or none is under way
        (the clock stops); None when nothing changed."""
        deciding = self.turns.deciding(game, seats, playing)
        if deciding == self._deciding:
            return None
        self._deciding = deciding
        if deciding is None:
            stopped, self.state = self.state is not None, None
            return Followed(stopped, None) if stopped else None
        seat, step, idle = deciding
        lobby = False
        if self.pace.turn_time is not None:
            wall = self.wall()
            kept, self._kept = self._kept, None
            self.state = (ClockState(seat, step, None, None, paused=True, idle=True) if idle
                          else resumed(kept, seat, step, now, wall) or started(seat, step, self.pace.turn_time, now, wall))
            lobby = True
        return Followed(lobby, None if idle else (seat, step))

    def begins(self, game: Game, seats: Sequence[Seat], began: tuple[int, int]) -> MoveBegins:
        """The news that the person at `began`'s seat must decide, with the game's turn number
        and the clock's deadline (worked out only for someone who listens)."""
        seat, step = began
        turn = modes.get(self.mode).summary
        number = turn(game).get("turn") if turn is not None else None
        deadline = self.state.deadline if self.state is not None else None
        return MoveBegins(seat, seats[seat].name, step, number if isinstance(number, int) else None, deadline)

    def ran_out(self, out: ClockOut, game: Game, seats: Sequence[Seat], playing: bool, stand_in: Any) -> RanOut | None:
        """The clock of `out` ran out: what the table's policy does now (None: that decision no
        longer waits). `pause`: the clock stops and the table waits for that seat; `stand-in`:
        `stand_in` plays the rest of the turn (or keeps the seat: `StandInPolicy.timed_out`);
        `skip`: the decision is passed over where the rules offer a pass, else `stand_in` makes it."""
        if self.turns.deciding(game, seats, playing) != (out.seat, out.step, False) or self.state is None or game.prompt is None:
            return None
        policy = self.pace.on_timeout
        log.info("seat %d (%s) ran out of time at step %d: %s", out.seat + 1, seats[out.seat].name, out.step, policy)
        if policy == "pause":
            self.state.paused, self.state.due, self.state.deadline = True, None, None
        elif policy == "skip":
            skips = modes.get(self.mode).skips
            passes = [o.command for o in game.prompt.options if o.command.kind in skips]
            return RanOut(passes[0] if passes else stand_in.choose(game, out.seat), game.prompt.version)
        elif self.turns.timed_out(seats[out.seat], game, stand_in):
            log.info("seat %d missed %d turns in a row: the stand-in keeps it until they are back", out.seat + 1, self.pace.away_after)
        return RanOut(None, game.prompt.version)
