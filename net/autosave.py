"""The host's save writes: off the event loop, one at a time, and disk trouble is a warning.

The host hands every applied command to its `CommandLog` (in memory) and then
awaits `HostSave.save()` before broadcasting the delta, so a step any peer saw
is on disk. The bytes are built in the trio thread (cheap: the log entries are
packed once) and written, fsynced and renamed in a worker thread, so a slow
disk delays only the next command, never other peers' frames or pings.

A full or read-only save folder must not end the game: the first failure is
reported once (a WARNING line, and `on_trouble` for an interface), the game
goes on from memory, the next step tries again, and the first write that works
holds every step (the whole file is rewritten each time) and is reported too.
Only seat changes and commands are saved; spectators never cause a write.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

log = logging.getLogger("cthulhu.net.host")


class HostSave:
    """Writes for a save-backed log (a `SaveWriter`); a no-op for a log kept in memory."""

    def __init__(self, command_log: Any, on_trouble: Callable[[str | None], None] | None = None) -> None:
        self.log = command_log
        self.on_trouble = on_trouble
        self.enabled = bool(getattr(command_log, "autosave", False)) and hasattr(command_log, "to_bytes")
        if self.enabled:
            command_log.autosave = False  # appends stay in memory; this object writes, off the event loop
        self.trouble: str | None = None  # why the last write failed (None: the file holds every step)
        self._version = 0  # of the bytes built last
        self._written = 0  # version on disk
        self._lock = threading.Lock()

    @property
    def path(self) -> Path | None:
        return getattr(self.log, "path", None)

    def keep(self) -> None:
        """Something worth keeping before the first command: a seat whose token another terminal now
        holds (it must outlive a crash). A new game's save is written from then on (`SaveWriter.started`)."""
        if self.enabled:
            self.log.started = True

    def _build(self) -> tuple[int, bytes]:
        self._version += 1
        return self._version, self.log.to_bytes()

    def _write(self, version: int, data: bytes) -> None:
        from .savewriter import write_atomic

        with self._lock:
            path = self.path
            if version <= self._written or path is None or not getattr(self.log, "started", True):
                return  # a newer state is already on disk (or no file to write, or nothing played yet)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data, fsync=bool(getattr(self.log, "fsync", True)))
            self._written = version

    async def save(self) -> bool:
        """Write the log as it is now, in a worker thread. False (reported once) if the disk refused."""
        if not self.enabled:
            return True
        try:
            version, data = self._build()
            await trio.to_thread.run_sync(self._write, version, data)
        except Exception as exc:  # SaveIOError, a folder that became a file...: the game goes on
            self._failed(exc)
            return False
        self._worked()
        return True

    def save_blocking(self) -> bool:
        """The same from a plain thread (the final save when the host stops)."""
        if not self.enabled:
            return True
        try:
            self._write(*self._build())
        except Exception as exc:
            self._failed(exc)
            return False
        self._worked()
        return True

    def _failed(self, exc: BaseException) -> None:
        reason = getattr(exc, "message", None) or getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        if self.trouble is None:
            self.trouble = str(reason)
            log.warning("could not save to %s: %s; the game goes on and the next move tries again", self.path, reason)
            if self.on_trouble is not None:
                self.on_trouble(self.trouble)

    def _worked(self) -> None:
        if self.trouble is not None:
            self.trouble = None
            step = getattr(self.log, "step", "?")
            log.warning("saving works again: %s holds every step (%s)", self.path, step)
            if self.on_trouble is not None:
                self.on_trouble(None)
