"""Which notices a table's webhook gets: one when a seat's move begins, one reminder per turn.

The host tells the server of every decision that begins for a person (`MoveBegins`), many in one
turn. A *move* begins when the seat to move becomes that person's, or a new turn of the game
starts for them (the mode's `summary` counts turns: each investigator's turn is one); the other
decisions of that turn are not news. On a turn-based table the person is reminded once in that
turn, when a quarter of their decision's clock is left (a decision made in time starts a new
clock, and the reminder waits for it).

What was sent is in the table's record (`TableRecord.notified`: the turn, the seats told in it and
those reminded), and a notice is queued only once the store has the record that says it was sent:
a restart never sends one twice, and one the server died before storing is sent after the
restart (the host tells the decision under way again). One queued but not yet posted when the
process ends is lost: a notice is worth less than a duplicate is annoying.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import trio

from cthulhu.table import MoveBegins

from .notices import Kind, body, move_notice
from .notify import Notifier

if TYPE_CHECKING:
    from .table import ServerTable


@dataclass(frozen=True)
class Told:
    """What a table's webhook was told in the turn under way (`turn` None: a mode without turns,
    where each change of the seat to move is a new move)."""

    turn: int | None = None
    seats: tuple[int, ...] = ()
    reminded: tuple[int, ...] = ()

    @classmethod
    def of(cls, saved: dict[str, Any] | None) -> "Told":
        if not saved:
            return cls()
        turn = saved.get("turn")
        return cls(turn if isinstance(turn, int) else None, tuple(int(s) for s in saved.get("seats", [])),
                   tuple(int(s) for s in saved.get("reminded", [])))

    def saved(self) -> dict[str, Any]:
        return {"turn": self.turn, "seats": list(self.seats), "reminded": list(self.reminded)}

    def _same_turn(self, turn: int | None) -> bool:
        return bool(self.seats) and self.turn == turn

    def is_new(self, seat: int, turn: int | None) -> bool:
        """Does a decision of `seat` in `turn` begin a move nobody was told of?"""
        if turn is None:
            return self.turn is not None or self.seats != (seat,)
        return not self._same_turn(turn) or seat not in self.seats

    def moved(self, seat: int, turn: int | None) -> "Told":
        if turn is not None and self._same_turn(turn):
            return Told(turn, (*self.seats, seat), self.reminded)
        return Told(turn, (seat,))

    def was_reminded(self, seat: int, turn: int | None) -> bool:
        return self._same_turn(turn) and seat in self.reminded

    def reminder(self, seat: int) -> "Told":
        return Told(self.turn, self.seats, (*self.reminded, seat))


@dataclass(frozen=True)
class _Reminder:
    table: "ServerTable"
    move: MoveBegins
    due: float  # the decision's clock runs out (trio clock)
    at: float  # a quarter of its clock is left


class MoveNotices:
    """The server's side of notifications: decides what is news, keeps it in the table's record,
    hands it to the `Notifier` once stored, and runs the reminders (`run`)."""

    def __init__(self, notifier: Notifier, stored: Callable[["ServerTable"], None]) -> None:
        """`stored(table)`: the table's record changed and must reach the store soon."""
        self.notifier = notifier
        self.stored = stored
        self._pending: list[tuple[str, str, bytes]] = []  # (table, url, body) in a record not yet on disk: queued once it is
        self._reminders: dict[str, _Reminder] = {}  # by table id: the one reminder each may be waiting for
        self._wake = trio.Event()

    def move_begins(self, table: "ServerTable", move: MoveBegins) -> None:
        """A person's decision began at `table`: a notice if it begins a move, a reminder set if
        its clock runs and this turn had none."""
        record = table.record
        if record.notify is None:
            return
        told = Told.of(record.notified)
        if told.is_new(move.seat, move.turn):
            told = told.moved(move.seat, move.turn)
            self._tell(table, told, move, "move")
        host, turn_time = table.host, table.pace.turn_time
        clock = host.clock if host is not None else None
        self._reminders.pop(table.id, None)
        if turn_time is not None and clock is not None and clock.due is not None and (clock.seat, clock.step) == (move.seat, move.step) \
                and not told.was_reminded(move.seat, move.turn):
            self._reminders[table.id] = _Reminder(table, move, clock.due, clock.due - turn_time / 4)
            self._wake.set()

    def _tell(self, table: "ServerTable", told: Told, move: MoveBegins, kind: Kind) -> None:
        record = table.record
        assert record.notify is not None
        record.notified = told.saved()
        notice = move_notice(table.id, move.seat, move.name, move.turn, move.deadline, kind)
        self._pending.append((table.id, record.notify, body(notice, record.notify_format)))
        self.stored(table)

    @property
    def pending(self) -> int:
        """Notices decided but not yet queued (their records are on their way to the store)."""
        return len(self._pending)

    # -- after the store -----------------------------------------------------------------------

    def take(self) -> list[tuple[str, str, bytes]]:
        """The notices whose records the store is about to be given (`sent` or `kept` after)."""
        taken, self._pending = self._pending, []
        return taken

    def sent(self, taken: list[tuple[str, str, bytes]], refused: Collection[str] = ()) -> None:
        """The store has them: post them, but for the tables whose records it `refused` (another
        process of the server runs them now: what they were told is its to say, once)."""
        for table, url, posted in taken:
            if table not in refused:
                self.notifier.notify(url, posted)

    def kept(self, taken: list[tuple[str, str, bytes]]) -> None:
        """The store failed: they wait for its next try, still first."""
        self._pending[:0] = taken

    # -- reminders -----------------------------------------------------------------------------

    async def run(self) -> None:
        """Remind each person whose decision has a quarter of its clock left (and still waits)."""
        while True:
            self._wake = trio.Event()
            now = trio.current_time()
            for key, reminder in list(self._reminders.items()):
                if reminder.at <= now:
                    del self._reminders[key]
                    self._remind(reminder)
            soonest = min((r.at for r in self._reminders.values()), default=float("inf"))
            with trio.move_on_at(soonest):
                await self._wake.wait()

    def _remind(self, reminder: _Reminder) -> None:
        table, move = reminder.table, reminder.move
        host = table.host
        clock = host.clock if host is not None else None
        if clock is None or clock.paused or (clock.seat, clock.step, clock.due) != (move.seat, move.step, reminder.due):
            return  # that decision is over (or the table closed): nothing to remind of
        told = Told.of(table.record.notified)
        if table.record.notify is not None and not told.was_reminded(move.seat, move.turn):
            self._tell(table, told.reminder(move.seat), move, "reminder")
