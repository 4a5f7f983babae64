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
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import trio

from cthulhu.savegame import Chunk, SaveError

log = logging.getLogger("cthulhu.net.host")


class SaveTarget(Protocol):
    """A command log kept for a save file (`savegame.SaveWriter`): what writing it needs."""

    @property
    def path(self) -> Path: ...
    @property
    def step(self) -> int: ...
    def chunk(self) -> Chunk:
        """The next write (built in the host's thread: the log is not shared)."""
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

    def __init__(self, target: SaveTarget | None, *, fsync: bool = True, on_trouble: Callable[[str | None], None] | None = None) -> None:
        self.target = target
        self.fsync = fsync
        self.on_trouble = on_trouble
        self.trouble: str | None = None  # why the last write failed (None: the file holds every step)
        self._written = 0  # the version of the chunk on disk
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.target is not None

    @property
    def path(self) -> Path | None:
        return self.target.path if self.target is not None else None

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

    def _write(self, chunk: Chunk, path: Path, fsync: bool, started: bool = True) -> bool:
        """Write `chunk` unless a newer one is on disk already; whether it was written."""
        from cthulhu.savegame.writer import put

        with self._lock:
            if chunk.version <= self._written or not started:
                return False  # a newer state is already on disk (or nothing worth a file yet)
            path.parent.mkdir(parents=True, exist_ok=True)
            put(path, chunk, fsync=fsync)
            self._written = chunk.version
            return True

    async def save(self) -> bool:
        """Write the log as it is now, in a worker thread. False (reported once) if the disk refused."""
        target = self.target
        if target is None:
            return True
        chunk = target.chunk()
        try:
            wrote = await trio.to_thread.run_sync(self._write, chunk, target.path, self.fsync, target.started)
        except Exception as exc:  # SaveIOError, a folder that became a file...: the game goes on
            target.lost(chunk)
            self._failed(exc)
            return False
        if wrote:
            target.written(chunk)
        self._worked()
        return True

    def save_blocking(self) -> bool:
        """The same from a plain thread, and fsynced (the final save when the host stops)."""
        target = self.target
        if target is None:
            return True
        chunk = target.chunk()
        try:
            wrote = self._write(chunk, target.path, True, target.started)
        except Exception as exc:
            target.lost(chunk)
            self._failed(exc)
            return False
        if wrote:
            target.written(chunk)
        self._worked()
        return True

    def _failed(self, exc: BaseException) -> None:
        reason = exc.message if isinstance(exc, SaveError) else exc.strerror if isinstance(exc, OSError) else None
        reason = reason or str(exc) or type(exc).__name__
        if self.trouble is None:
            self.trouble = str(reason)
            log.warning("could not save to %s: %s; the game goes on and the next move tries again", self.path, reason)
            if self.on_trouble is not None:
                self.on_trouble(self.trouble)

    def _worked(self) -> None:
        if self.trouble is not None:
            self.trouble = None
            step = self.target.step if self.target is not None else "?"
            log.warning("saving works again: %s holds every step (%s)", self.path, step)
            if self.on_trouble is not None:
                self.on_trouble(None)
