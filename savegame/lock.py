"""One process at a time per save file: an OS lock on a small file next to it.

``.NAME.save.lock`` is locked with ``flock``; the kernel drops that lock when
its process ends in any way, ``kill -9`` included, so a lock left by a dead
process is simply free and the next process takes it over. The file holds one
line naming the holder (pid, machine, command), which a refused process prints.

Locks are per process: taking a save this process already holds (say a title
screen loading the game it just left) counts a reference instead of
deadlocking against ourselves. Every lock is released, and its file removed, at
a clean exit.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from .file import SaveError


class SaveLocked(SaveError):
    """Another process holds this save; the message names it."""

    problem = "locked"


def lock_path(save: str | Path) -> Path:
    path = Path(save)
    return path.with_name(f".{path.name}.lock")


def _holder_line() -> str:
    command = " ".join(["cthulhu", *sys.argv[1:]]) if sys.argv and sys.argv[0] else "python"
    return f"process {os.getpid()} ({command[:200]}) on {socket.gethostname()}"


@dataclass
class _Held:
    fd: int
    path: Path  # the lock file
    count: int = 1


_held: dict[Path, _Held] = {}
_mutex = threading.Lock()


def _key(save: str | Path) -> Path:
    return Path(os.path.abspath(save))


def _open_locked(path: Path, save: Path) -> int:
    """An fd on `path` holding its exclusive lock, or `SaveLocked` naming the holder."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 400, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise SaveLocked(f"in use by {holder}", path=save) from None
        except BaseException:
            os.close(fd)
            raise
        # The holder we waited on may have removed the file as it let go: then the lock we got
        # is on a file nobody else will open. Only a lock on the file at `path` counts.
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def hold(save: str | Path) -> Path | None:
    """Hold `save` for this process (again, if it already does); `SaveLocked` if another one does.

    Returns the lock file's path, or None where no lock file can be made (a read-only
    folder, where nobody can write the save either). The save itself is never opened."""
    key = _key(save)
    with _mutex:
        held = _held.get(key)
        if held is not None:
            held.count += 1
            return held.path
        path = lock_path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = _open_locked(path, key)
        except OSError:  # e.g. a read-only folder: no process can write the save there either
            return None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (_holder_line() + "\n").encode(), 0)
        except OSError:  # a full disk: the lock holds all the same (the save itself says why it cannot be written)
            pass
        _held[key] = _Held(fd, path)
        return path


def release(save: str | Path) -> None:
    """Let go of one hold; the last one removes the lock file and unlocks."""
    key = _key(save)
    with _mutex:
        held = _held.get(key)
        if held is None:
            return
        held.count -= 1
        if held.count > 0:
            return
        del _held[key]
        try:
            os.unlink(held.path)  # before unlocking, so a waiter sees the file is gone (see _open_locked)
        except OSError:
            pass
        os.close(held.fd)


def holds(save: str | Path) -> bool:
    """Whether this process holds `save`."""
    return _key(save) in _held


@atexit.register
def _release_all() -> None:
    for key in list(_held):
        _held[key].count = 1
        release(key)
