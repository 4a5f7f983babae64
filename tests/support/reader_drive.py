"""Driving a real `cthulhu ... --reader` process from pipes: lines out, typed lines in.

The reader says `Choose 1 to N.` (or `Choose 1.`) after every list of choices; a script answers
after that line. Every byte the process writes is kept, so tests can check it for escapes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

CLI = [sys.executable, "-X", "importtime", "-m", "cthulhu.cli"]
CHOOSE = re.compile(r"Choose 1( to (\d+))?\.")
WATCHDOG = 240.0  # seconds before a hung reader is killed (the test then fails on its output)


class ReaderProcess:
    """A reader on pipes; `lines` is everything it said so far, `raw` its bytes."""

    def __init__(self, args: list[str], home: Path, columns: int | None = None, env: dict[str, str] | None = None,
                 argv: list[str] | None = None) -> None:
        """`cthulhu ARGS` (or any `argv`: an `ssh` client to a door) with its data folder in `home`."""
        environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "CTHULHU_CODE")}
        environ.update(XDG_DATA_HOME=str(home), HOME=str(home), **(env or {}))
        if columns is not None:
            environ["COLUMNS"] = str(columns)
        self.proc = subprocess.Popen(argv or [*CLI, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environ)
        self.raw = b""
        self.lines: list[str] = []
        self.stderr = b""
        self._err = threading.Thread(target=self._read_stderr, daemon=True)
        self._err.start()
        self._watchdog = threading.Timer(WATCHDOG, self.proc.kill)
        self._watchdog.start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def next_line(self) -> str | None:
        assert self.proc.stdout is not None
        raw = self.proc.stdout.readline()
        if not raw:
            return None
        self.raw += raw
        line = raw.decode("utf-8").rstrip("\n").removesuffix("\r")  # (a terminal ends lines with CR LF)
        self.lines.append(line)
        return line

    def until(self, wanted: Callable[[str], bool]) -> str:
        """Read lines until one is `wanted`; it, or an AssertionError with the tail if the output ended."""
        while True:
            line = self.next_line()
            if line is None:
                raise AssertionError("the reader ended first:\n" + "\n".join(self.lines[-30:]) + self.stderr_text()[-3000:])
            if wanted(line):
                return line

    def play_out(self, answer: Callable[[list[str]], str] = lambda said: "1") -> int:
        """Answer every list of choices (`answer(the lines since the last answer)`) until the output ends;
        the exit status."""
        since: list[str] = []
        while (line := self.next_line()) is not None:
            since.append(line)
            if CHOOSE.fullmatch(line):
                self.type(answer(since))
                since = []
        return self.wait()

    def wait(self) -> int:
        """Read what is left of the output, then the exit status."""
        while self.next_line() is not None:
            pass
        code = self.proc.wait(timeout=WATCHDOG)
        self._watchdog.cancel()
        self._err.join(10)
        return code

    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", "replace")

    def imported(self) -> set[str]:
        """Module names from `-X importtime` on stderr."""
        return {line.rsplit("|", 1)[1].strip() for line in self.stderr_text().splitlines() if line.startswith("import time:") and "|" in line}

    def kill(self) -> None:
        self._watchdog.cancel()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def plain_bytes(raw: bytes, crlf: bool = False) -> list[str]:
    """Problems with what a reader wrote: any control character but the line feed (an escape, a
    carriage return, a bell) is one; `crlf`: through a terminal, lines end in CR LF."""
    text = raw.decode("utf-8")
    lines = [line.removesuffix("\r") if crlf else line for line in text.split("\n")]
    return [f"{ch!r} in {line!r}" for line in lines for ch in line if not ch.isprintable()]
