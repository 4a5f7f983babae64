"""A turn-based table's stand-ins: who plays a person's seat when their clock runs out, for how
long, and when the table stops for want of people. The host asks this policy (`StandInPolicy`); it
keeps no clock of its own (`net.clock` runs those) and does no I/O.

* A *turn* is the game's turn of one investigator (or Player Mat): all its decisions, its
  actions, Mythos, Investigate/Fight and end of turn (`Mode.turn`; in a mode that does not
  declare it, each decision is a turn).
* Out of time (`on_timeout` stand-in): the stand-in plays that seat's decisions of the turn that
  timed out; when the next turn begins, the seat is its person's again, with a fresh clock on
  their next decision. A turn whose clock ran out is *missed*; on the `away_after`-th missed turn
  in a row the stand-in keeps the seat until its person returns.
* A person *returns* (exactly this): a command or take-back from the connection of a person's
  seat is applied, or a person takes a seat (reconnects with its token, or sits down), or sends
  `back`. Their run of missed turns starts again from none, their stand-in leaves, and an idle
  pause ends.
* Idle pause: when a whole round of turns went by with no person returning (a turn begins for a
  seat whose turn already came and went since the last return: every seat has had its turn, and
  none of those turns had a person's decision), the table pauses at the next decision of a
  person's seat, whoever plays it: no clock runs and no stand-in plays until a person returns.
  Bots in bots' own seats play on up to that decision. So bots never finish a game nobody plays.
* `skip`: each timed-out decision is passed over, as before; the seat is never handed over, so
  `away_after` plays no part, but the idle pause holds (skips alone would play a game out too).
  `pause`, and live tables: nothing here applies (the clock stops at the first timeout; a live
  table has none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from cthulhu.core import Game, modes

if TYPE_CHECKING:
    from .seats import Seat
    from .spec import Pace

Turn = tuple[int, int]  # (the turn's number, the seat whose turn it is): `Mode.turn`


class StandInPolicy:
    """The stand-in policy of one table (see the module's docstring for the rules it keeps)."""

    def __init__(self, pace: Pace, mode: str) -> None:
        self.pace = pace
        self._turn_of = modes.get(mode).turn
        self.missed: dict[int, int] = {}  # seat -> turns missed in a row
        self.covering: dict[int, int | None] = {}  # seat -> the turn number its stand-in plays (None: until its person returns)
        self.turn: Turn | None = None  # the turn under way, as last seen
        self.person_in_turn = False  # a person returned during it
        self.had_turn: set[int] = set()  # seats whose turns ended since a person last returned
        self.idle = False  # a whole round went by without a person: pause at the next person's seat

    @property
    def applies(self) -> bool:
        return self.pace.turn_time is not None and self.pace.on_timeout != "pause"

    def turn_of(self, game: Game) -> Turn | None:
        prompt = game.prompt
        if prompt is None or game.outcome is not None:
            return None
        return self._turn_of(game.state) if self._turn_of is not None else (game.step, prompt.seat)

    def deciding(self, game: Game, seats: Sequence[Seat], started: bool) -> tuple[int, int, bool] | None:
        """(seat, step, idle) when a person's seat must decide and no bot plays it, or the table is
        paused at it for want of people (idle); else None: no clock runs."""
        prompt = game.prompt
        if not started or game.outcome is not None or prompt is None or not 0 <= prompt.seat < len(seats):
            return None
        seat, idle = seats[prompt.seat], self.paused(game, seats)
        if seat.kind != "human" or (seat.player is not None and not idle):
            return None
        return prompt.seat, game.step, idle

    def paused(self, game: Game, seats: Sequence[Seat]) -> bool:
        """The table is idle and the decision waiting is a person's seat's: nothing moves."""
        prompt = game.prompt
        return (self.idle and prompt is not None and game.outcome is None
                and 0 <= prompt.seat < len(seats) and seats[prompt.seat].kind == "human")

    def timed_out(self, seat: Seat, game: Game, stand_in: Any) -> bool:
        """`seat`'s clock ran out (policy stand-in): `stand_in` plays the rest of the turn, or keeps
        the seat (True) on the `away_after`-th missed turn in a row."""
        turn = self.turn_of(game)
        self.missed[seat.index] = missed = self.missed.get(seat.index, 0) + 1
        kept = missed >= self.pace.away_after
        self.covering[seat.index] = None if kept or turn is None else turn[0]
        seat.stand_in, seat.clocked_out = stand_in, True
        return kept

    def returned(self, seat: Seat) -> bool:
        """A person returned at `seat` (see the module's docstring): their stand-in leaves. True if
        that changed what the table shows (a stand-in left, an idle pause ended)."""
        self.missed.pop(seat.index, None)
        left = self.covering.pop(seat.index, False) is not False or seat.clocked_out
        if left:
            seat.stand_in, seat.clocked_out = None, False
        changed = left or self.idle
        self.person_in_turn, self.idle = True, False
        self.had_turn.clear()
        return changed

    def moved(self, game: Game, seats: Sequence[Seat]) -> list[int]:
        """After each step: follow the turns (and the rounds); the seats whose covered turn is over
        are their people's again (returned, for the host to tell)."""
        now = self.turn_of(game)
        if now is None or now == self.turn:
            return []
        if self.turn is not None and not self.person_in_turn:
            self.had_turn.add(self.turn[1])
        self.turn, self.person_in_turn = now, False
        if self.applies and now[1] in self.had_turn:
            self.idle = True
        over = [s for s, number in self.covering.items() if number is not None and number != now[0]]
        for index in over:
            del self.covering[index]
            seats[index].stand_in, seats[index].clocked_out = None, False
        return over

    # -- what a server keeps across a restart --------------------------------------------------

    def saved(self) -> dict[str, Any]:
        return {"missed": {str(s): n for s, n in self.missed.items()}, "kept": sorted(s for s, t in self.covering.items() if t is None),
                "turn": list(self.turn) if self.turn is not None else None, "person": self.person_in_turn,
                "had_turn": sorted(self.had_turn), "idle": self.idle}

    def restore(self, saved: dict[str, Any] | None, seats: Sequence[Seat], stand_in: Callable[[int], Any]) -> None:
        """What `saved` kept (nothing if None or not of this shape): the seats a stand-in kept are
        its again (`stand_in(seat)` makes it)."""
        if not saved:
            return
        try:
            missed = {int(s): int(n) for s, n in dict(saved.get("missed") or {}).items()}
            kept = [int(s) for s in saved.get("kept") or [] if 0 <= int(s) < len(seats) and seats[int(s)].kind == "human"]
            turn = saved.get("turn")
            self.turn = (int(turn[0]), int(turn[1])) if turn else None
            self.had_turn = {int(s) for s in saved.get("had_turn") or []}
        except (TypeError, ValueError, IndexError):
            return  # a record of another shape: start afresh
        self.missed, self.person_in_turn, self.idle = missed, bool(saved.get("person")), bool(saved.get("idle"))
        for index in kept:
            self.covering[index] = None
            seats[index].stand_in, seats[index].clocked_out = stand_in(index), True
