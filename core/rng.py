"""Counter-based random streams whose whole state lives in the game state.

Each draw is BLAKE2b(seed, stream name, counter), so a save replays bit for bit
on any Python version and machine: nothing depends on `random`, hash seeds or
the clock. Public dice and hidden shuffles use separate streams, so that a
change in how often one is drawn never shifts the other.

The text hashed is "<seed>:<stream>:<counter>"; each stream keeps a BLAKE2b that
has already absorbed "<seed>:<stream>:" and copies it per draw, which gives the
same digests as hashing the whole text and skips its formatting.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

_MASK64 = (1 << 64) - 1
# The counters' texts, made once: formatting one per draw costs a sixth of the draw.
_COUNTS = [b"%d" % n for n in range(4096)]


@dataclass(slots=True)
class Rng:
    seed: int
    counters: dict[str, int] = field(default_factory=dict)
    # Faces queued by tests (`Game.script_dice`); consumed before any stream.
    scripted: list[Any] = field(default_factory=list)
    # Not state (neither canonical nor compared): draws so far from any stream, for `core.undo`,
    # and each stream's pre-absorbed hash, with the seed it was made for (a scramble changes it).
    draws: int = field(default=0, compare=False, repr=False)
    _streams: dict[str, tuple[int, Any]] = field(default_factory=dict, compare=False, repr=False)

    def _absorbed(self, stream: str) -> Any:
        """A BLAKE2b that has absorbed "<seed>:<stream>:" (copy it, then add the counter)."""
        pre = self._streams.get(stream)
        if pre is None or pre[0] != self.seed:
            pre = self._streams[stream] = (self.seed, hashlib.blake2b(f"{self.seed}:{stream}:".encode(), digest_size=8))
        return pre[1]

    def next64(self, stream: str) -> int:
        n = self.counters.get(stream, 0)
        self.counters[stream] = n + 1
        self.draws += 1
        h = self._absorbed(stream).copy()
        h.update(_COUNTS[n] if n < 4096 else b"%d" % n)
        return int.from_bytes(h.digest(), "big")

    def below(self, stream: str, n: int) -> int:
        """A uniform integer in [0, n), by rejection so no value is favoured."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _MASK64 - (_MASK64 + 1) % n
        pre = self._streams.get(stream)
        fresh = (pre[1] if pre is not None and pre[0] == self.seed else self._absorbed(stream)).copy
        counters = self.counters
        while True:  # `next64`, written out: dice and bots draw here
            c = counters.get(stream, 0)
            counters[stream] = c + 1
            self.draws += 1
            h = fresh()
            h.update(_COUNTS[c] if c < 4096 else b"%d" % c)
            x = int.from_bytes(h.digest(), "big")
            if x <= limit:
                return x % n
    def face(self, stream: str, faces: Sequence[Any]) -> int:
        """Roll a die with these faces and return the face index.

        A scripted face, if any is queued, is taken first; it must exist on this die.
        """
        if self.scripted:
            want = self.scripted.pop(0)
            if want not in faces:
                raise ValueError(f"scripted face {want!r} is not on a die with faces {list(faces)!r}")
            return list(faces).index(want)
        return self.below(stream, len(faces))

    def shuffle(self, stream: str, items: list[Any]) -> None:
        """Fisher-Yates in place, our own so the order never depends on `random`.

        The same draws as `below(stream, i + 1)` for i from the top down, written out
        in one loop: a shuffle is most of the draws a game makes."""
        start = n = self.counters.get(stream, 0)
        fresh = self._absorbed(stream).copy
        from_bytes = int.from_bytes
        for i in range(len(items) - 1, 0, -1):
            bound = i + 1
            limit = _MASK64 - (_MASK64 + 1) % bound
            while True:
                h = fresh()
                h.update(_COUNTS[n] if n < 4096 else b"%d" % n)
                n += 1
                x = from_bytes(h.digest(), "big")
                if x <= limit:
                    break
            j = x % bound
            items[i], items[j] = items[j], items[i]
        if n != start:
            self.counters[stream] = n
            self.draws += n - start

    def canonical(self) -> dict[str, Any]:
        return {"seed": self.seed, "counters": dict(sorted(self.counters.items()))}

    @classmethod
    def from_canonical(cls, data: dict[str, Any]) -> "Rng":
        return cls(seed=int(data["seed"]), counters={str(k): int(v) for k, v in data["counters"].items()})
