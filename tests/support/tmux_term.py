"""A real terminal for tests: a program in its own tmux server, keys in, screen text out.

Each `Terminal` runs one command in a detached tmux session on a private server
socket (`tmux -L`), so tests never touch anyone's tmux. The pane stays after the
program exits (its last screen and exit status can be read). Waiting is by
polling the screen, with a generous safety limit that is never an assertion
about speed.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid

SAFETY = 60.0  # seconds before a wait gives up: a net against hangs only

CLI = [sys.executable, "-m", "cthulhu.cli"]


def tmux_path() -> str:
    path = shutil.which("tmux")
    if path is None:  # CI installs it (.ci/run); a missing tool is a failure, never a skip
        raise RuntimeError("these tests need tmux (apt-get install tmux)")
    return path


class Terminal:
    def __init__(self, args: list[str], *, cols: int = 110, rows: int = 34, env: dict[str, str] | None = None) -> None:
        self.tmux = tmux_path()
        self.server = f"cthulhu-test-{uuid.uuid4().hex[:10]}"
        self.session = "t"
        self.args = args
        environment = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
        environment.update(env or {})
        environment["TERM"] = "xterm-256color"
        self.env = environment
        # A shell waits for the program and prints its exit status, then holds the pane open:
        # tmux itself (3.3a) sometimes never reaps a pane's process, so its exit is never seen.
        program = " ".join(shlex.quote(a) for a in args)
        command = f"{program}; status=$?; printf '\\n[exited %s]\\n' \"$status\"; exec sleep 86400"
        self._tmux("new-session", "-d", "-s", self.session, "-x", str(cols), "-y", str(rows), command)
        self._tmux("set-option", "-s", "escape-time", "0")  # Escape reaches the app at once

    def _tmux(self, *args: str) -> str:
        out = subprocess.run([self.tmux, "-L", self.server, *args], capture_output=True, text=True, env=self.env, timeout=30)
        if out.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.session)

    def output(self) -> str:
        """Everything the terminal showed on its main screen, scrolled-off lines included, unwrapped."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", self.session)

    def keys(self, *keys: str) -> None:
        """tmux key names: "1", "Enter", "Escape", "C-q", "L"..."""
        for key in keys:
            self._tmux("send-keys", "-t", self.session, key)
            time.sleep(0.05)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", self.session, "-l", text)

    def wait_for(self, *texts: str, timeout: float = SAFETY, gone: bool = False) -> str:
        """The screen once it shows every one of `texts` (or, `gone`, none of them)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            found = [t in screen for t in texts]
            if (not any(found)) if gone else all(found):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"the terminal never {'lost' if gone else 'showed'} {texts!r}; it shows:\n{screen}")

    @property
    def pid(self) -> int:
        """The program's process (the shell's child)."""
        shell = self._tmux("display-message", "-p", "-t", self.session, "#{pane_pid}").strip()
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if fields[1] == shell:
                    return int(entry)
        raise AssertionError(f"{self.args!r} is not running; it shows:\n{self.output()}")

    @property
    def exited(self) -> bool:
        return "[exited " in self.output()

    def exit_status(self, timeout: float = SAFETY) -> int:
        """The program's exit status as a shell gives it (128 + N after signal N)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(r"\[exited (\d+)\]", self.output())
            if found:
                return int(found.group(1))
            time.sleep(0.1)
        raise AssertionError(f"{self.args!r} did not exit; it shows:\n{self.output()}")

    def kill(self, signum: int) -> None:
        """Kill the program the way a closed terminal or a crash would."""
        os.kill(self.pid, signum)
        assert self.exit_status() == 128 + signum

    def close(self) -> None:
        subprocess.run([self.tmux, "-L", self.server, "kill-server"], capture_output=True, env=self.env, timeout=30)

    def __enter__(self) -> "Terminal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
