"""A program in a real pseudo-terminal, every byte it writes kept (tmux would interpret them first):
the one pty spawner of the tests (and of bench/hostile_peers.py).

Waiting is by polling the output, with a generous safety limit that is a net against
hangs, never an assertion about speed.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time

SAFETY = 60.0
CLI = [sys.executable, "-m", "cthulhu.cli"]


def set_size(fd: int, cols: int, rows: int) -> None:
    """Tell the pseudo-terminal behind `fd` (either end) its size."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def sized_pty(cols: int, rows: int) -> tuple[int, int]:
    """A new pseudo-terminal of `cols` x `rows`: (master, slave), for a program another process starts on it."""
    master, slave = pty.openpty()
    set_size(slave, cols, rows)
    return master, slave


class PtyTerm:
    """A program started on a pseudo-terminal of its own (its controlling terminal), `cols` x `rows`."""

    def __init__(self, args: list[str], *, cols: int = 80, rows: int = 24, env: dict[str, str] | None = None) -> None:
        environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "LC_ALL", "LC_CTYPE", "TMUX")}
        environment.update({"TERM": "xterm-256color", "COLORTERM": "truecolor", "LANG": "C.UTF-8"})
        environment.update(env or {})
        pid, fd = pty.fork()
        if pid == 0:  # the child: becomes the program
            os.execvpe(args[0], args, environment)
        self.pid, self.fd = pid, fd
        self.resize(cols, rows)
        self.data = bytearray()
        self.status: int | None = None

    def resize(self, cols: int, rows: int) -> None:
        set_size(self.fd, cols, rows)

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the program has gone
            return False
        self.data += chunk
        return bool(chunk)

    def wait_for(self, needle: bytes, since: int = 0) -> None:
        end = time.monotonic() + SAFETY
        while needle not in self.data[since:]:
            if time.monotonic() > end:
                raise AssertionError(f"never saw {needle!r}; last output: {bytes(self.data[-400:])!r}")
            self._read(0.05)

    def read_until(self, needle: bytes, timeout: float) -> bool:
        """Read until `needle` is in the output (True), `timeout` passes or the program ends (False)."""
        end = time.monotonic() + timeout
        while needle not in self.data and time.monotonic() < end:
            if not self._read(0.05) and self._ended():
                break
        return needle in self.data

    def _ended(self) -> bool:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status is not None

    def drain(self, quiet: float = 0.5, limit: float = 5.0) -> None:
        """Read until the program has been quiet for `quiet` seconds, for `limit` seconds at most."""
        end = time.monotonic() + limit
        while time.monotonic() < end and self._read(quiet):
            pass

    def settle(self, quiet: float = 0.4) -> None:
        """Read until the program has been quiet for `quiet` seconds."""
        end = time.monotonic() + SAFETY
        while self._read(quiet) and time.monotonic() < end:
            pass

    def send(self, keys: str) -> int:
        """Type `keys`; the output offset before them (for `wait_for(..., since=)`)."""
        mark = len(self.data)
        os.write(self.fd, keys.encode())
        return mark

    def close(self) -> int | None:
        """Quit the program (ctrl+q), killed if it has not gone within 10 seconds; its exit status."""
        try:
            os.write(self.fd, b"\x11")  # ctrl+q
        except OSError:
            pass
        end = time.monotonic() + 10
        while not self._ended():
            if time.monotonic() > end:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
                break
            self._read(0.05)
        os.close(self.fd)
        return self.status

    def __enter__(self) -> "PtyTerm":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.status is None:
            self.close()
