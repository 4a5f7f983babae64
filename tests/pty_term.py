"""A program in a real pseudo-terminal, every byte it writes kept (tmux would interpret them first).

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


class PtyTerm:
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
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

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
        try:
            os.write(self.fd, b"\x11")  # ctrl+q
        except OSError:
            pass
        end = time.monotonic() + 10
        while time.monotonic() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                break
            self._read(0.05)
        else:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        os.close(self.fd)
        return self.status

    def __enter__(self) -> "PtyTerm":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.status is None:
            self.close()
