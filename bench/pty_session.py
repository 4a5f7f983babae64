"""A program in a pseudo-terminal of a given size, keeping every byte it writes (the terminal benches)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import termios
import time


class Pty:
    def __init__(self, argv: list[str], cols: int, rows: int, env: dict[str, str] | None = None) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the size is set before the program starts (ssh reads it once, at the start)
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.environ.update(env or {"TERM": "xterm-256color", "COLORTERM": "truecolor"})
            os.execvp(argv[0], argv)
        self.pid, self.fd = pid, fd
        self.data = bytearray()

    def read_until(self, needle: bytes, timeout: float) -> float | None:
        """Seconds until `needle` was written, or None if it never was within `timeout`."""
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if self._read(0.05) and needle in self.data:
                return time.perf_counter() - start
        return None

    def drain(self, quiet: float = 0.3, limit: float = 10.0) -> int:
        """Read until nothing arrives for `quiet` seconds; the bytes read."""
        before = len(self.data)
        end = time.perf_counter() + limit
        while time.perf_counter() < end and self._read(quiet):
            pass
        return len(self.data) - before

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:
            return False
        self.data += chunk
        return bool(chunk)

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def close(self) -> None:
        try:
            self.send("\x11")  # ctrl+q
            self.drain(0.3, 5)
        finally:
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            os.close(self.fd)
