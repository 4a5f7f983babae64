"""When the clocks of closed tables run out: a heap of deadlines, so an idle turn-based table is
closed like any idle table (a record, no game in memory, no task) and opened again at its deadline
for its clock to run out there, once, at the wall time it had (`Host` resumes a kept clock with
only the time it had left: none); a table whose webhook is owed a reminder (a quarter of the
clock left, `server.moves`) is opened for that moment first.

A deadline is wall time (UTC, what the store keeps); it is waited for on trio's clock, converted
when it is set. An alarm may be stale when it rings (the table was opened by a player meanwhile,
its decision made, the table archived): the one it wakes checks and does nothing then.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Awaitable, Callable
from datetime import datetime

import trio


class Alarms:
    """Deadlines by table; `run(ring)` calls `ring(table_id, deadline)` for each once it is due."""

    def __init__(self, wall: Callable[[], datetime]) -> None:
        self.wall = wall
        self._heap: list[tuple[float, int, str, str]] = []  # (trio due, order, table id, deadline as kept)
        self._order = itertools.count()
        self._sooner = trio.Event()

    def __len__(self) -> int:
        return len(self._heap)

    def set(self, table_id: str, deadline: str, before: float = 0.0) -> None:
        """Ring for `table_id` at `deadline` (ISO 8601 wall time; at once if past or unreadable),
        or `before` seconds earlier while that is still ahead (a reminder's moment)."""
        try:
            left = (datetime.fromisoformat(deadline) - self.wall()).total_seconds()
        except (TypeError, ValueError):
            left = 0.0
        due = trio.current_time() + (left - before if left - before > 0 else max(0.0, left))
        if not self._heap or due < self._heap[0][0]:
            self._sooner.set()
        heapq.heappush(self._heap, (due, next(self._order), table_id, deadline))

    async def run(self, ring: Callable[[str, str], Awaitable[None]]) -> None:
        """Until cancelled: each alarm rung when due, one at a time, in order."""
        while True:
            while self._heap and self._heap[0][0] <= trio.current_time():
                _, _, table_id, deadline = heapq.heappop(self._heap)
                await ring(table_id, deadline)
            self._sooner = trio.Event()
            with trio.move_on_at(self._heap[0][0] if self._heap else float("inf")):
                await self._sooner.wait()
