"""The story so far: the newest events of a game, by step, to rebuild a Log from.

A game loaded from its save, or a player who joins (or comes back) in the middle,
would otherwise start with an empty Log. The events come from the commands: the
host replays its command log from the setup (`Recap.replayed`) and then keeps the
events of every step it applies. Events are the public narration every peer is
sent in its deltas anyway, so a recap shows nobody anything new; what it may cost
is bounded twice: in memory (`RECAP_EVENTS`) and on the wire (`RECAP_BYTES` a
frame, far inside the host's frame limits in `net.limits`). Chat is not a
command, so it is never part of a recap.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from cthulhu.core import Command, Game

from .frames import encode_frame
from .messages import RecapMsg

RECAP_EVENTS = 400  # events kept (the Log pane keeps 500 lines): older steps are let go whole
RECAP_BYTES = 32 * 1024  # the most a `recap` frame carries: the newest steps that fit

Entry = tuple[int, list[dict[str, Any]]]  # (step, the events that step caused, as wire dicts)


class Recap:
    """The events of the latest steps, oldest first (step 0: the events of the set-up)."""

    def __init__(self, limit: int = RECAP_EVENTS) -> None:
        self.limit = limit
        self.entries: deque[Entry] = deque()
        self.version = 0  # changes with every change (a host builds its frame once per version)
        self._events = 0

    @classmethod
    def replayed(cls, game: Game, commands: Iterable[tuple[int, dict[str, Any]]], limit: int = RECAP_EVENTS) -> "Recap":
        """The recap of `game`, rebuilt by replaying `commands` from its set-up (the seed is the host's,
        so the dice fall as they did). The commands were checked when the game was loaded."""
        recap = cls(limit)
        again = Game.new(game.setup, game.content)
        recap.add(0, [e.wire() for e in again.start_events])
        for seat, wire in commands:
            events = again.apply(seat, Command.from_wire(wire))
            recap.add(again.step, [e.wire() for e in events])
        return recap

    @property
    def step(self) -> int:
        """The last step told (-1: none yet)."""
        return self.entries[-1][0] if self.entries else -1

    def add(self, step: int, events: list[dict[str, Any]]) -> None:
        if not events:
            return
        self.entries.append((step, list(events)))
        self.version += 1
        self._events += len(events)
        while self._events > self.limit and len(self.entries) > 1:
            self._events -= len(self.entries.popleft()[1])

    def cut(self, step: int) -> None:
        """A take-back to `step`: the steps after it never happened."""
        while self.entries and self.entries[-1][0] > step:
            self._events -= len(self.entries.pop()[1])
            self.version += 1

    def newest(self, budget: int = RECAP_BYTES) -> list[Entry]:
        """The newest entries whose encoding fits in `budget` bytes, oldest first."""
        out: list[Entry] = []
        size = 0
        for entry in reversed(self.entries):
            size += len(encode_frame({"t": "x", "e": [entry[0], entry[1]]}))
            if size > budget:
                break
            out.append(entry)
        out.reverse()
        return out

    def events(self) -> list[dict[str, Any]]:
        """Every event kept, oldest first (for a Log in this process: no wire to bound)."""
        return [event for _, events in self.entries for event in events]

    def frame(self, step: int, budget: int = RECAP_BYTES) -> bytes:
        """The `recap` message of what happened up to `step` (the step of the view it follows)."""
        return encode_frame(RecapMsg(step=step, entries=[[n, events] for n, events in self.newest(budget)]).wire())
