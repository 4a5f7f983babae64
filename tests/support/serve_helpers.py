"""Real parts for the front-door tests: a `cthulhu host` process, a watching peer, tmux terminals.

Nothing here is a mock: the host is the real command in its own process, the
watcher speaks the real protocol over a socket, and the terminals are tmux
panes running the real OpenSSH client.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cthulhu.net.client import PeerSession

CODE = "Tbl4code"


def need(tool: str, package: str) -> str:
    """The path of a system tool the test is about; a loud failure (never a skip) without it."""
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"{tool} is not installed: this test needs the real {tool} (apt-get install -y {package}; .ci/run does it)")
    return path


VISITOR = "cthulhu-visitor"  # the process name of a visitor's interface (serve.zygote.NAME)


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])  # the field after the state letter


def ancestors(pid: int) -> set[int]:
    found: set[int] = set()
    while pid > 1 and pid not in found:
        found.add(pid)
        pid = parent_of(pid)
    return found


def running(pid: int) -> bool:
    """`pid` is a live process (not gone, not a zombie waiting for its parent)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def visitor_pids(under: int | None = None) -> list[int]:
    """The visitors' interface processes running now (forked by the doors' zygote; with `under`, only
    that process's descendants: other suites, or other pytest workers, may run the same test at once)."""
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if (proc / "comm").read_text().strip() == VISITOR and (under is None or under in ancestors(int(proc.name))):
                pids.append(int(proc.name))
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return pids


class HostProcess:
    """`cthulhu host --headless ...` in its own process, with its printed lines parsed."""

    def __init__(self, data_dir: Path, *args: str, save: Path | None = None) -> None:
        env = dict(os.environ, XDG_DATA_HOME=str(data_dir), PYTHONUNBUFFERED="1")
        self.stderr_path = data_dir / "host.stderr"
        data_dir.mkdir(parents=True, exist_ok=True)
        self._stderr = open(self.stderr_path, "wb")
        keep = ["--save", str(save)] if save is not None else ["--no-save"]
        argv = [sys.executable, "-m", "cthulhu.cli", "host", "--headless", "--port", "0", "--code", CODE, *keep, *args]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self._stderr, env=env, text=True)
        self.lines: list[str] = []
        deadline = time.monotonic() + 30
        wanted = 2 + ("--ssh" in args) + ("--web" in args) + (save is not None)
        while len(self.lines) < wanted and time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line.rstrip("\n"))
        text = "\n".join(self.lines)
        if len(self.lines) < wanted:
            self.stop()
            pytest.fail(f"the host did not start: {text}\n{self.stderr}")
        self.port = int(re.search(r"cthulhu join \S+:(\d+)", text).group(1))
        ssh = re.search(r"ssh -p (\d+) (\S+)@\S+\s+\(host key (SHA256:\S+)\)", text)
        self.ssh_port, self.ssh_user, self.fingerprint = (int(ssh.group(1)), ssh.group(2), ssh.group(3)) if ssh else (None, None, None)
        web = re.search(r"(http://\S+)", text)
        self.url = web.group(1) if web else None

    @property
    def stderr(self) -> str:
        if not self._stderr.closed:
            self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()
        return self.proc.returncode


class Watcher:
    """A spectator on the real protocol: tells whose decision it is, the step, and who sits where."""

    def __init__(self, port: int, table: str | None = None) -> None:
        """`table`: at a server, the table to watch (its tables are open: no code)."""
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.session = PeerSession("test watcher", code=None if table else CODE, watch=True, table_id=table)
        self.sock.sendall(self.session.data_to_send())
        self.until(lambda: self.session.welcomed, "no welcome")

    def poll(self, seconds: float = 0.1) -> None:
        self.sock.settimeout(seconds)
        try:
            data = self.sock.recv(1 << 16)
        except (socket.timeout, BlockingIOError):
            return
        if not data:
            raise AssertionError("the host closed the watcher's connection")
        self.session.receive_data(data)
        out = self.session.data_to_send()
        if out:
            self.sock.sendall(out)

    def until(self, predicate: Any, what: str, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out: {what}")
            self.poll()

    @property
    def view(self) -> dict[str, Any]:
        return self.session.mirror.view or {}

    @property
    def step(self) -> int:
        return int(self.view.get("step", 0))

    @property
    def deciding(self) -> int | None:
        prompt = self.view.get("prompt") or {}
        return prompt.get("seat")

    def seats(self) -> dict[int, tuple[str, str | None, bool]]:
        table = self.session.table
        return {s.seat: (s.kind, s.name, s.connected) for s in table.seats} if table else {}

    def close(self) -> None:
        self.sock.close()


def fill_spectators(port: int, spectators: int = 64) -> list[socket.socket]:
    """Take every spectator's place at the host (its cap), from other loopback addresses (16 per
    address is the host's own cap): the next watcher is refused. Close the sockets to let them go."""
    crowd = []
    for n in range(spectators):
        sock = socket.socket()
        sock.bind((f"127.0.0.{2 + n // 16}", 0))
        sock.connect(("127.0.0.1", port))
        sock.sendall(PeerSession(f"watcher {n}", code=CODE, watch=True).data_to_send())
        crowd.append(sock)
    for sock in crowd:  # every one of them welcomed (hellos that arrive together are admitted in no set order)
        session = PeerSession("watcher")
        sock.settimeout(30)
        while not session.welcomed:
            assert session.closed is None, session.closed
            session.receive_data(sock.recv(1 << 16))
    probe = PeerSession("probe", code=CODE, watch=True)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(probe.data_to_send())
        while probe.closed is None and not probe.welcomed:
            probe.receive_data(sock.recv(1 << 16))
    assert probe.closed is not None and probe.closed.code == "table_full", probe.closed
    return crowd


class Tmux:
    """Terminals on a tmux server of our own (its own socket), so no one else's sessions are touched."""

    def __init__(self, name: str) -> None:
        self.tmux = need("tmux", "tmux")
        self.socket = f"{name}-{os.getpid()}"
        self.started = False

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run([self.tmux, "-L", self.socket, *args], capture_output=True, text=True, timeout=20)
        if check and done.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {done.stderr}")
        return done.stdout

    def open(self, window: str, command: str, cols: int = 100, rows: int = 32) -> None:
        """A new terminal (a tmux window of its own size) running `command`."""
        if self.started:
            self.run("new-window", "-d", "-t", "t", "-n", window, command)
            self.resize(window, cols, rows)
        else:
            self.run("new-session", "-d", "-s", "t", "-n", window, "-x", str(cols), "-y", str(rows), command)
            self.run("set-option", "-t", "t", "window-size", "manual")
            self.started = True

    def screen(self, window: str) -> str:
        return self.run("capture-pane", "-p", "-t", f"t:{window}")

    def keys(self, window: str, *keys: str) -> None:
        self.run("send-keys", "-t", f"t:{window}", *keys)

    def resize(self, window: str, cols: int, rows: int) -> None:
        self.run("resize-window", "-t", f"t:{window}", "-x", str(cols), "-y", str(rows))

    def kill(self, window: str) -> None:
        self.run("kill-window", "-t", f"t:{window}", check=False)

    def wait_for(self, window: str, text: str, seconds: float = 30) -> str:
        deadline = time.monotonic() + seconds
        while True:
            shown = self.screen(window)
            if text in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{window!r} never showed {text!r}; it shows:\n{shown}")
            time.sleep(0.2)

    def wait_for_notice(self, window: str, text: str, seconds: float = 30) -> str:
        """Wait for a notification (Textual's toast, drawn after a '▌') saying `text`, wrapped as it may be.
        The terminal's last column is outside the toast: what shows there (after the toast's padding)
        belongs to the screen beneath it, not to the notice."""
        deadline = time.monotonic() + seconds
        while True:
            shown = self.screen(window)
            toast = [re.sub(r"\s{2,}\S$", "", line.split("▌", 1)[1]).rstrip(" │─╮╯") for line in shown.splitlines() if "▌" in line]
            said = " ".join(" ".join(toast).split())
            if text in said:
                return said
            if time.monotonic() > deadline:
                raise AssertionError(f"{window!r} never said {text!r}; it shows:\n{shown}")
            time.sleep(0.2)

    def close(self) -> None:
        subprocess.run([self.tmux, "-L", self.socket, "kill-server"], capture_output=True)
