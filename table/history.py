"""Every command so far, and the `history` frames a peer joining mid-game is sent, kept as the game
goes: a frame is encoded once, when its chunk fills, so a joiner at step 300 costs the host a copy
of the frames rather than an encoding of 300 commands (the last, open chunk is encoded per join).

Each frame also names the steps in it that a stand-in bot decided (`sealed`): a line no take-back
crosses, so the undo the views offer after it, which a joiner's dice check must replay too."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from cthulhu.net import encode_body, encode_frame
from cthulhu.net import History

HISTORY_BYTES = 32 * 1024  # commands per `history` frame, well inside the largest frame


class Record:
    """The (seat, command wire) of every step, in `history` frames of bounded size, and the steps
    a stand-in decided (`sealed`, a command log's)."""

    def __init__(self, entries: Iterable[tuple[int, dict[str, Any]]] = (), sealed: Iterable[int] = ()) -> None:
        self.entries: list[tuple[int, dict[str, Any]]] = []
        self.sealed: set[int] = set()
        self._full: list[bytes] = []  # frames of the chunks that are full
        self._start = 0  # the first entry of the open chunk
        self._size = 0  # its entries' encoded bytes
        lines = set(sealed)
        for seat, wire in entries:
            self.append(seat, wire, sealed=len(self.entries) + 1 in lines)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        return iter(self.entries)

    def append(self, seat: int, wire: dict[str, Any], *, sealed: bool = False) -> None:
        """The command of the next step; `sealed`: a stand-in bot decided it for its seat's person."""
        self.entries.append((seat, wire))
        if sealed:
            self.sealed.add(len(self.entries))
        self._size += len(encode_body({"e": [seat, wire]}))
        if self._size >= HISTORY_BYTES:
            self._full.append(self._frame(self._start, len(self.entries)))
            self._start, self._size = len(self.entries), 0

    def cut(self, step: int) -> None:
        """A take-back: keep the first `step` commands (the chunks are made again: take-backs are rare)."""
        kept, lines = self.entries[:step], self.sealed
        self.entries, self.sealed, self._full, self._start, self._size = [], set(), [], 0, 0
        for seat, wire in kept:
            self.append(seat, wire, sealed=len(self.entries) + 1 in lines)

    def frames(self) -> list[bytes]:
        """The `history` frames of every command so far, in order."""
        if self._start == len(self.entries):
            return list(self._full)
        return [*self._full, self._frame(self._start, len(self.entries))]

    def _frame(self, start: int, end: int) -> bytes:
        sealed = sorted(k for k in self.sealed if start < k <= end)
        return encode_frame(History(start=start, entries=[[s, w] for s, w in self.entries[start:end]], sealed=sealed).wire())
