"""The host's save writes: off the event loop, one at a time, and disk trouble is a warning.

The host hands every applied command to its `CommandLog` (in memory) and then
awaits `HostSave.save()` before broadcasting the delta, so a step any peer saw
is on disk. The bytes are built in the trio thread (cheap: one appended record,
`savegame.Chunk`, or now and then the whole file) and written and fsynced in a
worker thread, so a slow disk delays only the next command, never other peers'
frames or pings.

A full or read-only save folder must not end the game: the first failure is
reported once (a WARNING line, and `on_trouble` for an interface), the game
goes on from memory, the next step tries again, and the first write that works
holds every step (after a failure the whole file is rewritten) and is reported too.
Only seat changes and commands are saved; spectators never cause a write.

A table that `hold`s (a server's: its players are told a step only once it is on
disk, and a `kill -9` may come at any moment) does not go on from memory: a
write that fails is tried again, at growing intervals, until it works, and
nothing new is told meanwhile (`on_hold` hears when the table starts and stops
waiting, so peers can be told why it waits). It resumes by itself once the
disk takes the write.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import trio

from cthulhu.savegame import Chunk, SaveError

log = logging.getLogger("cthulhu.table.host")  # the host's own words

HOLD_RETRY = (0.5, 10.0)  # seconds: a held table's first retry, and the longest wait between two


class SaveTarget(Protocol):
    """A command log kept for a save file (`savegame.SaveWriter`): what writing it needs."""

    @property
    def path(self) -> Path: ...
    @property
    def where(self) -> str:
        """Where the save is kept, for messages (its file, or a database)."""
    @property
    def step(self) -> int: ...
    def chunk(self) -> Chunk:
        """The next write (built in the host's thread: the log is not shared)."""
    def put(self, chunk: Chunk, *, fsync: bool = True) -> None:
        """Write `chunk` where the save is kept (its file, or a database's `savegame.Shelf`)."""
    def fits(self, chunk: Chunk) -> bool:
        """`chunk` may be written on top of what is on disk now."""
    def written(self, chunk: Chunk) -> None:
        """`chunk` is on disk."""
    def lost(self, chunk: Chunk) -> None:
        """Writing `chunk` failed."""
    def close(self) -> None:
        """Let other processes have the file (its lock is released)."""
    @property
    def started(self) -> bool:
        """Worth a file: a new game's waits for its first command (or `keep`); a loaded one is."""
    def keep(self) -> None:
        """Write from now on, before the first command (a seat another terminal holds a token for)."""


class HostSave:
    """The writes of a table's save file (`target`); none for a table kept in memory (None).

    `fsync`: every write reaches the disk before the step is told; otherwise only the final
    one (`save_blocking`) is fsynced, which is what an interface's own table does."""

    def __init__(self, target: SaveTarget | None, *, fsync: bool = True, on_trouble: Callable[[str | None], None] | None = None,
                 hold: bool = False, on_hold: Callable[[str | None], None] | None = None, unsaved: str | None = None) -> None:
        self.target = target
        self.fsync = fsync
        self.on_trouble = on_trouble
        self.hold = hold
        self.on_hold = on_hold
        self.holding: str | None = None  # a held table waits for its disk: why (None: it does not wait)
        # Why the last write failed (None: the file holds every step); or, with no file, why there is none
        # (`unsaved`: no saves folder could be written; None for a log kept in memory on purpose).
        self.trouble: str | None = unsaved
        self._written = 0  # the version of the chunk on disk
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.target is not None

    @property
    def path(self) -> Path | None:
        return self.target.path if self.target is not None else None

    @property
    def _where(self) -> str:
        return self.target.where if self.target is not None else "memory"

    @property
    def started(self) -> bool:
        """The file is worth writing: a new game's from its first command (or `keep`) on."""
        return self.target is not None and self.target.started

    def release(self) -> None:
        """After the final save: the file is free for other processes."""
        if self.target is not None:
            self.target.close()

    def keep(self) -> None:
        """Something worth keeping before the first command: a seat whose token another terminal now
        holds (it must outlive a crash). A new game's save is written from then on (`SaveTarget.keep`)."""
        if self.target is not None:
            self.target.keep()

    def _write(self, target: SaveTarget, chunk: Chunk, fsync: bool, started: bool = True) -> bool | None:
        """Write `chunk` unless a newer one is on disk already: whether it was written (None: it was
        built on a write another one has replaced since, so it is built again). What the target
        knows of its disk changes under the lock, so the next chunk is built on what is there."""
        with self._lock:
            if chunk.version <= self._written or not started:
                return False  # a newer state is already on disk (or nothing worth a file yet)
            if not target.fits(chunk):
                return None
            try:
                target.put(chunk, fsync=fsync)
            except BaseException:
                target.lost(chunk)
                raise
            self._written = chunk.version
            target.written(chunk)
            return True

    async def save(self) -> bool:
        """Write the log as it is now, in a worker thread. False (reported once) if the disk refused;
        a table that holds waits instead, trying again until the write works (cancellable)."""
        wait = HOLD_RETRY[0]
        while not await self._save_once():
            if not self.hold:
                return False
            if self.holding is None:
                self.holding = self.trouble or "the disk refused the write"
                if self.on_hold is not None:
                    self.on_hold(self.holding)
            await trio.sleep(wait)
            wait = min(wait * 2, HOLD_RETRY[1])
        if self.holding is not None:
            self.holding = None
            if self.on_hold is not None:
                self.on_hold(None)
        return True

    async def _save_once(self) -> bool:
        target = self.target
        if target is None:
            return True
        try:
            while await trio.to_thread.run_sync(self._write, target, target.chunk(), self.fsync, target.started) is None:
                pass  # (another task's write landed first: built again on top of it)
        except Exception as exc:  # SaveIOError, a folder that became a file...: the game goes on
            self._failed(exc)
            return False
        self._worked()
        return True

    def save_blocking(self) -> bool:
        """The same from a plain thread, and fsynced (the final save when the host stops)."""
        target = self.target
        if target is None:
            return True
        try:
            while self._write(target, target.chunk(), True, target.started) is None:
                pass
        except Exception as exc:
            self._failed(exc)
            return False
        self._worked()
        return True

    def _failed(self, exc: BaseException) -> None:
        reason = exc.message if isinstance(exc, SaveError) else exc.strerror if isinstance(exc, OSError) else None
        reason = reason or str(exc) or type(exc).__name__
        if self.trouble is None:
            self.trouble = str(reason)
            then = "the table waits and tries again" if self.hold else "the game goes on and the next move tries again"
            log.warning("could not save to %s: %s; %s", self._where, reason, then)
            if self.on_trouble is not None:
                self.on_trouble(self.trouble)

    def _worked(self) -> None:
        if self.trouble is not None:
            self.trouble = None
            step = self.target.step if self.target is not None else "?"
            log.warning("saving works again: %s holds every step (%s)", self._where, step)
            if self.on_trouble is not None:
                self.on_trouble(None)
