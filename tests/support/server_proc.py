"""A real `cthulhu server` process on a data folder on disk, and the commands players run at it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLI = [sys.executable, "-m", "cthulhu.cli"]


@dataclass
class ServerProcess:
    data: Path
    port: int = 0
    args: tuple[str, ...] = ()
    proc: subprocess.Popen[str] | None = None
    lines: list[str] = field(default_factory=list)
    ssh_port: int | None = None
    url: str | None = None
    tls_port: int | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> "ServerProcess":
        """Start it (on the port it had, if it ran before) and read its opening lines."""
        self.proc = subprocess.Popen([*CLI, "server", "--data", str(self.data), "--port", str(self.port), *self.args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"the server stopped: {self.proc.wait()} {self.proc.stderr.read()}")
            self.lines.append(line.rstrip("\n"))
            m = re.match(r"Tables:\s+cthulhu tables \S+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
            doors = ("--ssh" in self.args) + ("--web" in self.args) + ("--tls-cert" in self.args)
            if self.port and len(self.lines) >= 3 + doors:
                text = "\n".join(self.lines)
                ssh = re.search(r"ssh -p (\d+) ", text)
                web = re.search(r"(http://\S+)", text)
                self.ssh_port = int(ssh.group(1)) if ssh else None
                self.url = web.group(1) if web else None
                tls = re.search(r"tls://\S+:(\d+)", text)
                self.tls_port = int(tls.group(1)) if tls else None
                return self

    def kill(self) -> None:
        """`kill -9`: no goodbye, no last save."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> tuple[int, str, str]:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, out, err


def player_env(home: Path) -> dict[str, str]:
    """A player of their own: their own data folder (seat tokens, identity keys)."""
    home.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "XDG_DATA_HOME": str(home)}


def tables(address: str, *args: str, home: Path | None = None, check: bool = True) -> Any:
    """`cthulhu tables ADDRESS ... --json`, parsed. A player of their own `home` is named after it
    unless `--name` says otherwise (a server gives each name to one person)."""
    if home is not None and "--name" not in args:
        args = (*args, "--name", home.name)
    result = subprocess.run([*CLI, "tables", address, *args, "--json"], capture_output=True, text=True, timeout=60,
                            env=player_env(home) if home is not None else None)
    if check:
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)
    return result


class LobbyPoll:
    """One lobby session held open, asked again and again (a new connection per look would soon be
    refused for joining too often): the server's tables as the player of `home` sees them (their
    identity key from their seat store), by id, so that a test can follow a fast game closely."""

    def __init__(self, address: str, home: Path) -> None:
        import socket

        from cthulhu.net.lobbyclient import LobbyClient
        from cthulhu.net.seatstore import SeatStore

        host, port = address.rsplit(":", 1)
        self.client = LobbyClient(home.name, SeatStore(home / "cthulhu" / "seats.json").identity(address))
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.answers: list[Any] = []
        self._exchange(lambda: self.client.welcome is not None)

    def _exchange(self, done: Any) -> None:
        while not done():
            self.sock.sendall(self.client.data_to_send())
            data = self.sock.recv(65536)
            if not data:
                raise AssertionError("the server closed the lobby")
            self.answers += self.client.receive_data(data)

    def rows(self) -> dict[str, Any]:
        seq = self.client.tables(size=100)
        self._exchange(lambda: any(a.seq == seq for a in self.answers))
        [page] = [a for a in self.answers if a.seq == seq]
        self.answers.remove(page)
        return {row.id: row for row in page.rows}

    def close(self) -> None:
        self.sock.close()
