"""Front-door figures: `ssh` to first frame, bytes per turn over SSH (with and without -C), memory per visitor.

    python bench/serve_figures.py [--runs 5] [--turns 20] [--visitors 3] [--byte-runs 3]

1. Time from starting `ssh -tt CODE@host` (OpenSSH, key auth, 100x32 terminal)
   to the first byte of the interface and to the first full frame of the table
   (the map drawn), median of `--runs` fresh connections.
2. Bytes the SSH connection carries while one SSH player plays `--turns`
   commands (key "1" whenever it is their decision; a bot plays the other seat),
   counted on the wire by a relay between client and server, per command and per
   game turn, with and without `ssh -C`; median and range of `--byte-runs` games
   (the same seed and keys, but Textual's frames depend on timing).
3. Memory on the host per visitor: resident (RSS) and proportional (PSS, shared
   pages split) size of each visitor's interface process, and the growth of the
   host process itself, for `--visitors` SSH players and as many browser tabs
   (headless Chromium via Playwright). For comparison, the alternative design:
   as many interfaces as Textual apps inside one process (what an in-process
   driver per visitor would cost), RSS per extra app.

The host, the visitors' processes and the clients share this machine's cores.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import select
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import fcntl
import termios
from pathlib import Path

from cthulhu.net.client import PeerSession

CODE = "BenchCode"


class Host:
    def __init__(self, data: Path, *args: str) -> None:
        env = dict(os.environ, XDG_DATA_HOME=str(data), PYTHONUNBUFFERED="1")
        argv = [sys.executable, "-m", "cthulhu.cli", "host", "--headless", "--port", "0", "--code", CODE, "--no-save", *args]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        lines = [self.proc.stdout.readline() for _ in range(2 + ("--ssh" in args) + ("--web" in args))]
        text = "".join(lines)
        self.port = int(re.search(r"cthulhu join \S+:(\d+)", text).group(1))
        m = re.search(r"ssh -p (\d+)", text)
        self.ssh_port = int(m.group(1)) if m else None
        m = re.search(r"(http://\S+)", text)
        self.url = m.group(1) if m else None

    def children(self) -> list[int]:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(30)


def memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in KiB."""
    rss = pss = 0
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    return rss, pss


class Watcher:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.s = PeerSession("bench watcher", code=CODE, watch=True)
        self.sock.sendall(self.s.data_to_send())

    def poll(self) -> None:
        self.sock.settimeout(0.05)
        try:
            data = self.sock.recv(1 << 16)
        except socket.timeout:
            return
        self.s.receive_data(data)
        out = self.s.data_to_send()
        if out:
            self.sock.sendall(out)

    def until(self, pred, seconds: float = 60, also=None) -> None:
        """Wait for `pred`; `also` keeps a client reading meanwhile (an unread terminal stalls its interface)."""
        end = time.monotonic() + seconds
        while not pred():
            if time.monotonic() > end:
                raise TimeoutError("bench: the table did not get there in time")
            self.poll()
            if also is not None:
                also()

    @property
    def view(self) -> dict:
        return self.s.mirror.view or {}


class Relay:
    """A TCP relay that counts the bytes each way (what the SSH connection costs on the wire)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.down = 0  # host -> client
        self.up = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pipe, args=(client, server, "up"), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, "down"), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, way: str) -> None:
        try:
            while data := src.recv(65536):
                setattr(self, way, getattr(self, way) + len(data))
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


class SSHPlayer:
    """The real `ssh` client on a pseudo-terminal of 100x32 (as a player's terminal would be)."""

    def __init__(self, port: int, home: Path, name: str, *options: str, cols: int = 100, rows: int = 32) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        argv = ["ssh", "-tt", "-p", str(port), "-o", f"UserKnownHostsFile={home / 'kh'}", "-o", "StrictHostKeyChecking=accept-new",
                "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-i", str(home / "key"), *options,
                f"{name}+{CODE}@127.0.0.1"]
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True, env=dict(os.environ, TERM="xterm-256color"))
        os.close(slave)
        self.out = bytearray()

    def read(self, seconds: float = 0.05) -> None:
        r, _, _ = select.select([self.master], [], [], seconds)
        if r:
            try:
                self.out += os.read(self.master, 65536)
            except OSError:
                pass

    def wait_for(self, marker: bytes, seconds: float = 60) -> float:
        end = time.monotonic() + seconds
        while marker not in self.out:
            if time.monotonic() > end:
                raise TimeoutError(f"bench: {marker!r} never arrived")
            self.read()
        return time.perf_counter() - self.t0

    def keys(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        os.close(self.master)


def first_frame(host: Host, home: Path, runs: int) -> dict:
    firsts, frames = [], []
    for n in range(runs):
        player = SSHPlayer(host.ssh_port, home, f"timing{n}")
        firsts.append(player.wait_for(b"\x1b[?1049h"))  # the interface takes the screen
        frames.append(player.wait_for(b"Yard Gate"))  # the map is drawn: the table is on screen
        player.close()
        time.sleep(0.5)
    return {"first_byte_s": statistics.median(firsts), "first_frame_s": statistics.median(frames), "runs": runs}


def bytes_per_turn(home: Path, turns: int, compress: bool) -> dict:
    host = Host(home / "data", "--seats", "2", "--bots", "1", "--seed", "7", "--ssh", "0")
    relay = Relay(host.ssh_port)
    watcher = Watcher(host.port)
    player = SSHPlayer(relay.port, home, "bench", *(["-C"] if compress else []))
    try:
        player.wait_for(b"Yard Gate")
        drain = lambda: player.read(0)
        watcher.until(lambda: (watcher.view.get("prompt") or {}).get("seat") == 0, also=drain)
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            player.read(0.05)
        down0, up0 = relay.down, relay.up
        turn0, played = watcher.view.get("turn", 0), 0
        while played < turns and not watcher.view.get("outcome"):
            watcher.until(lambda: (watcher.view.get("prompt") or {}).get("seat") == 0 or watcher.view.get("outcome"), also=drain)
            if watcher.view.get("outcome"):
                break
            step = watcher.view["step"]
            player.keys(b"1")
            # The watcher may see the prompt before the player's interface does (a key it then ignores):
            # press again if nothing happened for a while.
            pressed = time.monotonic()

            def again() -> None:
                nonlocal pressed
                drain()
                if time.monotonic() - pressed > 3 and watcher.view["step"] == step:
                    player.keys(b"1")
                    pressed = time.monotonic()

            watcher.until(lambda: watcher.view["step"] > step, also=again)
            played += 1
            player.read(0)
        end = time.monotonic() + 1.0
        while time.monotonic() < end:  # the last frame reaches the client
            player.read(0.05)
        down, up = relay.down - down0, relay.up - up0
        game_turns = max(1, watcher.view.get("turn", 0) - turn0)
        return {"compress": compress, "commands": played, "game_turns": game_turns, "down_bytes": down, "up_bytes": up,
                "per_command": round(down / max(1, played)), "per_game_turn": round(down / game_turns)}
    finally:
        player.close()
        host.stop()


def bytes_summary(runs: list[dict]) -> dict:
    """Median and range over runs: how many frames Textual sends for the same game varies with timing."""
    per = sorted(r["per_command"] for r in runs)
    turn = sorted(r["per_game_turn"] for r in runs)
    return {"compress": runs[0]["compress"], "runs": len(runs), "commands": runs[0]["commands"], "game_turns": runs[0]["game_turns"],
            "per_command_median": statistics.median(per), "per_command_range": [per[0], per[-1]],
            "per_game_turn_median": statistics.median(turn), "per_game_turn_range": [turn[0], turn[-1]],
            "up_bytes_per_command": round(statistics.median(r["up_bytes"] / max(1, r["commands"]) for r in runs))}


def ssh_memory(home: Path, visitors: int) -> dict:
    host = Host(home / "data", "--seats", "2", "--bots", "1", "--seed", "7", "--ssh", "0")
    time.sleep(1.0)
    host0 = memory(host.proc.pid)
    players = []
    try:
        for n in range(visitors):
            p = SSHPlayer(host.ssh_port, home, f"mem{n}")
            p.wait_for(b"Yard Gate")
            players.append(p)
        time.sleep(2.0)
        kids = [memory(pid) for pid in host.children()]
        host1 = memory(host.proc.pid)
        return {"visitors": visitors, "children": len(kids), "child_rss_kib": statistics.median(k[0] for k in kids),
                "child_pss_kib": statistics.median(k[1] for k in kids), "host_growth_kib_per_visitor": round((host1[0] - host0[0]) / visitors)}
    finally:
        for p in players:
            p.close()
        host.stop()


def web_memory(home: Path, visitors: int) -> dict:
    from playwright.sync_api import sync_playwright

    host = Host(home / "data", "--seats", "2", "--bots", "1", "--seed", "7", "--web", "0")
    time.sleep(1.0)
    host0 = memory(host.proc.pid)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync"]
    try:
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(tempfile.mkdtemp(), executable_path="/usr/bin/chromium", args=flags, headless=True)
            t0 = time.perf_counter()
            pages = []
            for _ in range(visitors):
                page = context.new_page()
                page.goto(host.url)
                page.wait_for_selector("body.-first-byte", timeout=60000)
                pages.append(page)
            first_tabs = (time.perf_counter() - t0) / visitors
            time.sleep(2.0)
            kids = [memory(pid) for pid in host.children()]
            host1 = memory(host.proc.pid)
            context.close()
        return {"visitors": visitors, "children": len(kids), "child_rss_kib": statistics.median(k[0] for k in kids),
                "child_pss_kib": statistics.median(k[1] for k in kids), "host_growth_kib_per_visitor": round((host1[0] - host0[0]) / visitors),
                "page_to_first_byte_s": round(first_tabs, 2)}
    finally:
        host.stop()


def _inprocess_probe(port: int, apps: int) -> None:
    """(Child process) `apps` game interfaces in ONE process, each its own Textual app and peer: what an
    in-process driver per visitor would cost. Prints the process's RSS after imports and after the apps."""
    import asyncio
    import contextlib

    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.options import PlayOptions

    async def run() -> None:
        base = memory(os.getpid())[0]
        async with contextlib.AsyncExitStack() as stack:
            for n in range(apps):
                app = CthulhuApp(PlayOptions(join=("127.0.0.1", port), code=CODE, name=f"probe{n}", watch=True, skip_title=True, kiosk=True))
                pilot = await stack.enter_async_context(app.run_test(size=(100, 32)))
                for _ in range(300):
                    if getattr(app.screen, "updates_seen", 0):
                        break
                    await pilot.pause(0.02)
            await asyncio.sleep(1.0)
            print(json.dumps({"base_kib": base, "after_kib": memory(os.getpid())[0]}))

    asyncio.run(run())


def inprocess_memory(home: Path, visitors: int) -> dict:
    host = Host(home / "data", "--seats", "2", "--bots", "1", "--seed", "7")
    try:
        out = subprocess.run([sys.executable, __file__, "--inprocess-probe", str(host.port), str(visitors)], capture_output=True, text=True, timeout=300)
        probe = json.loads(out.stdout.strip().splitlines()[-1])
        return {"visitors": visitors, "process_rss_after_imports_kib": probe["base_kib"],
                "rss_per_extra_app_kib": round((probe["after_kib"] - probe["base_kib"]) / visitors)}
    finally:
        host.stop()


def main() -> None:
    if sys.argv[1:2] == ["--inprocess-probe"]:
        return _inprocess_probe(int(sys.argv[2]), int(sys.argv[3]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--visitors", type=int, default=3)
    parser.add_argument("--byte-runs", type=int, default=3, help="games played for the bytes figures (Textual's frame timing varies)")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="cthulhu-bench-serve-"))
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(home / "key")], check=True)
    out: dict = {"load": os.getloadavg()}
    host = Host(home / "data", "--seats", "4", "--seed", "7", "--ssh", "0")
    try:
        out["ssh_first_frame"] = first_frame(host, home, args.runs)
    finally:
        host.stop()
    out["ssh_bytes"] = [bytes_summary([bytes_per_turn(home, args.turns, c) for _ in range(args.byte_runs)]) for c in (False, True)]
    out["ssh_memory"] = ssh_memory(home, args.visitors)
    out["web_memory"] = web_memory(home, args.visitors)
    out["inprocess_alternative"] = inprocess_memory(home, args.visitors)
    out["load_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
