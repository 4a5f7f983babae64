"""One peer's outgoing frames: what may wait, what may be dropped, and when the peer is not reading.

Broadcasting must never let one connection cost another its place. So the
frames for a peer are not all equal:

* game frames (welcome, deltas, snapshots, game over, answers to the peer's own
  messages) keep their order and are never dropped. They pile up only while
  the peer's socket is full, i.e. while the peer itself is not reading; past
  `max_backlog` bytes `put` says so and the host evicts that peer (it may come
  back with its seat token and a fresh view);
* chat is dropped for a peer that lags (more than `lag_backlog` bytes waiting:
  queued chat is dropped as well, before any game frame would be) or that
  already has `max_chat` lines waiting;
* a lobby update replaces the one still waiting, if any: a thousand joins
  cost a slow peer one frame, not a thousand.

A flood from one peer is answered into its own outbox with `put_answer`, which
waits while that outbox lags: only the flooder is slowed.
"""

from __future__ import annotations

from collections import deque

import trio

GAME, CHAT, LOBBY = 0, 1, 2
BATCH = 64 * 1024  # bytes handed to one socket write


class Outbox:
    def __init__(self, *, max_backlog: int, lag_backlog: int, max_chat: int) -> None:
        self.max_backlog = max_backlog
        self.lag_backlog = lag_backlog
        self.max_chat = max_chat
        self.backlog = 0  # bytes waiting, all kinds
        self.chat_waiting = 0
        self.dropped_chat = 0
        self.closed = False
        self._q: deque[tuple[int, bytes]] = deque()
        self._lobby: bytes | None = None  # the newest lobby frame; its place in `_q` is a LOBBY marker
        self._wake = trio.Event()
        self._room = trio.Event()

    @property
    def lagging(self) -> bool:
        return self.backlog > self.lag_backlog

    def put(self, frame: bytes) -> bool:
        """Queue a game frame. False if the backlog is now past `max_backlog` (the peer is not reading)."""
        if self.closed:
            return False
        self._q.append((GAME, frame))
        self.backlog += len(frame)
        if self.lagging and self.chat_waiting:
            self._drop_waiting_chat()
        self._wake.set()
        return self.backlog <= self.max_backlog

    def put_chat(self, frame: bytes) -> bool:
        """Queue a chat line unless this peer lags or has enough waiting; False if dropped."""
        if self.closed or self.chat_waiting >= self.max_chat or self.backlog + len(frame) > self.lag_backlog:
            self.dropped_chat += 1
            return False
        self._q.append((CHAT, frame))
        self.backlog += len(frame)
        self.chat_waiting += 1
        self._wake.set()
        return True

    def put_lobby(self, frame: bytes) -> None:
        """Queue a lobby update, replacing one that has not gone out yet."""
        if self.closed:
            return
        if self._lobby is None:
            self._q.append((LOBBY, b""))
        else:
            self.backlog -= len(self._lobby)
        self._lobby = frame
        self.backlog += len(frame)
        self._wake.set()

    async def put_answer(self, frame: bytes) -> bool:
        """Queue an answer to the peer's own message, first waiting until its outbox stops lagging."""
        while self.lagging and not self.closed:
            self._room = trio.Event()
            await self._room.wait()
        return self.put(frame)

    def _drop_waiting_chat(self) -> None:
        kept: deque[tuple[int, bytes]] = deque()
        for kind, frame in self._q:
            if kind == CHAT:
                self.backlog -= len(frame)
                self.dropped_chat += 1
            else:
                kept.append((kind, frame))
        self._q = kept
        self.chat_waiting = 0

    async def take(self) -> bytes | None:
        """The next frames to write, joined (up to `BATCH` bytes); None once closed and empty."""
        while not self._q:
            if self.closed:
                return None
            self._wake = trio.Event()
            await self._wake.wait()
        out: list[bytes] = []
        size = 0
        while self._q and size < BATCH:
            kind, frame = self._q.popleft()
            if kind == LOBBY:
                frame, self._lobby = self._lobby or b"", None
            elif kind == CHAT:
                self.chat_waiting -= 1
            out.append(frame)
            size += len(frame)
        self.backlog -= size
        if not self.lagging:
            self._room.set()
        return b"".join(out)

    def close(self) -> None:
        """No more frames; what is queued may still be taken (to flush a last error)."""
        self.closed = True
        self._wake.set()
        self._room.set()
