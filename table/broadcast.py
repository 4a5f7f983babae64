"""The views a host sends: one per projection, not one per seat.

Seats whose views the rules declare equal (`Game.projection`: every seat of the main game and of
Shamblers, which show one table to all) share one view, one diff, one hash and one frame per step;
a mode that declares nothing gives every seat its own view (hidden information stays hidden).
A view is built when a step is broadcast and kept as what every peer of that projection holds,
so joins, snapshots and the next delta start from it without building it again. Its delta frame
is encoded once and handed, the same bytes, to every peer of the projection; the frame is built as
plain data, not validated: the host checks what comes in from the wire, not what it writes itself
(tests hold the two to the same bytes).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from cthulhu.core import Game
from cthulhu.net import diff, view_hash
from cthulhu.net import encode_frame
from cthulhu.net import Snapshot


@dataclass(eq=False)
class Sent:
    """The view last sent to one projection, its hash, and its snapshot frame once asked for."""

    view: dict[str, Any]
    hash: str
    snapshot: tuple[int, bytes] | None = None  # (seq, frame): a flooder's requests cost one encoding per seq


class Views:
    """The last view sent per projection of `game`'s seats (None: spectators)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._sent: dict[Hashable, Sent] = {}

    def now(self, seat: int | None) -> Sent:
        """What every peer of `seat`'s projection holds (built now if nobody did yet)."""
        key = self.game.projection(seat)
        sent = self._sent.get(key)
        if sent is None:
            view = self.game.view(seat)
            sent = self._sent[key] = Sent(view, view_hash(view))
        return sent

    def snapshot(self, seat: int | None, seq: int) -> bytes:
        sent = self.now(seat)
        if sent.snapshot is None or sent.snapshot[0] != seq:
            sent.snapshot = (seq, encode_frame(Snapshot(seq=seq, view=sent.view, hash=sent.hash).wire()))
        return sent.snapshot[1]

    def delta(self, seats: Iterable[int | None], seq: int, events: list[dict[str, Any]], cmd: list[Any] | None,
              *, stand_in: bool = False) -> dict[int | None, tuple[str, bytes]]:
        """The delta frame (and the new view's hash) for each of `seats`, one per projection; the
        projections no seat has any more are forgotten. `stand_in`: a bot decided `cmd` for a person."""
        game = self.game
        step = game.step
        groups: dict[Hashable, list[int | None]] = {}
        for seat in seats:
            groups.setdefault(game.projection(seat), []).append(seat)
        out: dict[int | None, tuple[str, bytes]] = {}
        sent: dict[Hashable, Sent] = {}
        for key, members in groups.items():
            new = game.view(members[0])
            old = self._sent.get(key)
            ops = diff(old.view, new) if old is not None else [["s", [], new]]
            digest = view_hash(new)
            frame = encode_frame(delta_wire(seq, step, ops, digest, events, cmd, stand_in))
            sent[key] = Sent(new, digest)
            for seat in members:
                out[seat] = (digest, frame)
        self._sent = sent
        return out


def delta_wire(seq: int, step: int, ops: list[list[Any]], digest: str, events: list[dict[str, Any]], cmd: list[Any] | None,
               stand_in: bool) -> dict[str, Any]:
    """`Delta(...).wire()` for what the host built itself: the same keys in the same order, unvalidated."""
    return {"t": "delta", "seq": seq, "step": step, "ops": ops, "hash": digest, "events": events, "cmd": cmd, "stand_in": stand_in}
