"""The story so far: the newest events of a game, by step, to rebuild a Log from.

A game loaded from its save, or a player who joins (or comes back) in the middle,
would otherwise start with an empty Log. The events come from the commands: the
host replays its command log from the setup (`Recap.replayed`) and then keeps the
events of every step it applies. Events are the public narration every peer is
sent in its deltas anyway, so a recap shows nobody anything new; what it may cost
is bounded twice: in memory (`RECAP_EVENTS`) and on the wire (`RECAP_BYTES` a
frame, far inside the host's frame limits in `net.limits`). Chat is not a
command, so it is never part of a recap.

A player back at the table is also told which step they last saw (`since`), so their
interface can show what happened since they left: the steps after it that the recap
carries, every one a stand-in bot decided (by step and seat, public like the rest: also
those older than the recap holds, up to `STAND_INS`, so a player is told of each decision made
for them), and how many older steps the recap no longer holds (summarised, never dropped silently).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from cthulhu.core import Command, Game
from cthulhu.net import encode_frame
from cthulhu.net import RecapMsg, SinceMsg

RECAP_EVENTS = 400  # events kept (the Log pane keeps 500 lines): older steps are let go whole
RECAP_BYTES = 32 * 1024  # the most a `recap` frame carries: the newest steps that fit
STAND_INS = 2048  # stand-in steps remembered (a few bytes each on the wire); older ones are let go

Entry = tuple[int, list[dict[str, Any]]]  # (step, the events that step caused, as wire dicts)


class Recap:
    """The events of the latest steps, oldest first (step 0: the events of the set-up)."""

    def __init__(self, limit: int = RECAP_EVENTS) -> None:
        self.limit = limit
        self.entries: deque[Entry] = deque()
        self.version = 0  # changes with every change (a host builds its frame once per version)
        self.stand_ins: dict[int, int] = {}  # step -> the seat a stand-in bot decided it for (kept past `floor`)
        self.floor = -1  # the newest step let go (older steps are no longer kept)
        self._events = 0

    @classmethod
    def replayed(cls, game: Game, commands: Iterable[tuple[int, dict[str, Any]]], limit: int = RECAP_EVENTS,
                 sealed: Iterable[int] = ()) -> "Recap":
        """The recap of `game`, rebuilt by replaying `commands` from its set-up (the seed is the host's,
        so the dice fall as they did). The commands were checked when the game was loaded. `sealed`:
        the steps a stand-in decided (the save's `sealed`)."""
        recap = cls(limit)
        stood_in = set(sealed)
        again = Game.new(game.setup, game.content)
        recap.add(0, [e.wire() for e in again.start_events])
        for seat, wire in commands:
            events = again.apply(seat, Command.from_wire(wire))
            recap.add(again.step, [e.wire() for e in events], stand_in=seat if again.step in stood_in else None)
        return recap

    @property
    def step(self) -> int:
        """The last step told (-1: none yet)."""
        return self.entries[-1][0] if self.entries else -1

    def add(self, step: int, events: list[dict[str, Any]], stand_in: int | None = None) -> None:
        """The events of `step`; `stand_in`: the seat a stand-in bot decided it for."""
        if stand_in is not None:
            self.stand_ins[step] = stand_in
            while len(self.stand_ins) > STAND_INS:
                del self.stand_ins[min(self.stand_ins)]
        if not events:
            return
        self.entries.append((step, list(events)))
        self.version += 1
        self._events += len(events)
        while self._events > self.limit and len(self.entries) > 1:
            gone, events = self.entries.popleft()
            self._events -= len(events)
            self.floor = gone

    def cut(self, step: int) -> None:
        """A take-back to `step`: the steps after it never happened."""
        while self.entries and self.entries[-1][0] > step:
            self._events -= len(self.entries.pop()[1])
            self.version += 1
        for later in [s for s in self.stand_ins if s > step]:
            del self.stand_ins[later]

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

    def since(self, seen: int, step: int, budget: int = RECAP_BYTES) -> SinceMsg:
        """What a player who last saw step `seen` is told besides the recap frame of `step` (the same
        `budget`): every stand-in's step after `seen` (those the frame does not carry too), and how
        many steps after `seen` it does not carry (older than what the recap keeps or its frame holds)."""
        sent = self.newest(budget)
        held = len(self.entries) - len(sent)
        cutoff = self.entries[held - 1][0] if held else self.floor  # the newest step not in the frame
        stood_in = [[n, seat] for n, seat in sorted(self.stand_ins.items()) if seen < n <= step]
        return SinceMsg(seen=seen, step=step, older=max(0, cutoff - seen), stand_in=stood_in)

    def frame(self, step: int, budget: int = RECAP_BYTES) -> bytes:
        """The `recap` message of what happened up to `step` (the step of the view it follows)."""
        return encode_frame(RecapMsg(step=step, entries=[[n, events] for n, events in self.newest(budget)]).wire())
