"""Front-door figures: `ssh` to first frame, bytes per turn over SSH (with and without -C), memory per visitor.

    python bench/serve_figures.py [--parts first,bytes,memory,web,inprocess] [--runs 5] [--counts 1,4,16]
                                  [--turns 20] [--byte-runs 3] [--visitors 3]

first: time from starting `ssh -tt CODE@host` (OpenSSH, key auth, 100x32 terminal) to the first
   byte of the interface and to its first full frame (the table's map drawn), median of `--runs`
   fresh connections; beside it, in the same run and alternating with it, the same for a minimal
   Textual app (`serve_minimal.py`) served by the very same doors (same SSH door, same zygote).
bytes: bytes the SSH connection carries while one SSH player plays `--turns` commands (key "1"
   whenever it is their decision; a bot plays the other seat), counted on the wire by a relay, per
   command and per game turn, with and without `ssh -C`; median and range of `--byte-runs` games.
memory: PSS (smem's way, from /proc/PID/smaps_rollup: each shared page split among its sharers) of
   every visitor's interface process and of the zygote they are forked from, with `--counts` SSH
   visitors (4 per client address, `ssh -b`): the first visitor's cost (everything, the zygote
   included) and each one's after it ((total at the last count - total at one) / the visitors
   added); beside it, the same for the minimal app through the same doors (1 and 4), and, alone
   on a pseudo-terminal, a fresh minimal app and a bare `python`.
web: the same for browser tabs (headless Chromium via Playwright, 1 and 4 tabs from one address:
   the doors admit 8 per address).
inprocess: the alternative design, as many interfaces as Textual apps inside one process.

The doors run in this process (the real `FrontDoors`), the host in its own; everything shares
this machine's cores. The memory and first-frame parts also measure the doors before the zygote
(each visitor then a `python -m cthulhu.cli join --kiosk` of its own), by process name and command line.
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


def smaps(pid: int) -> dict[str, int]:
    """smaps_rollup's fields in KiB (smem's way: PSS splits each shared page among its sharers)."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                out[parts[0].rstrip(":")] = int(parts[1])
    return out


def descendants(root: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            kids.setdefault(int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]), []).append(int(proc.name))
        except (OSError, ValueError, IndexError):
            continue
    found, todo = [], [root]
    while todo:
        for kid in kids.get(todo.pop(), []):
            found.append(kid)
            todo.append(kid)
    return found


def door_processes() -> tuple[list[int], list[int]]:
    """(visitors' interfaces, zygotes) under this process: forked by a zygote (named cthulhu-visitor),
    or, before the zygote, started as `python -m cthulhu.cli join --kiosk` / `python -m serve_minimal`."""
    visitors, zygotes = [], []
    for pid in descendants(os.getpid()):
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if comm == "cthulhu-visitor" or b"--kiosk" in cmdline or b"serve_minimal" in cmdline:
            visitors.append(pid)
        elif b"cthulhu.cli.zygote" in cmdline:
            zygotes.append(pid)
    return visitors, zygotes


class Doors:
    """The real front doors (SSH and web) in this process, for the host's table or, with `minimal`,
    serving the minimal Textual app (`serve_minimal.py`) through the very same doors and zygote."""

    def __init__(self, home: Path, table_port: int, minimal: bool = False) -> None:
        from cthulhu.serve.admission import Admission
        from cthulhu.serve.doors import FrontDoors

        class MinimalAdmission(Admission):
            async def admit(self, **kw):  # type: ignore[no-untyped-def]
                visit = await super().admit(**kw)
                visit.argv = [sys.executable, "-m", "serve_minimal"]
                return visit

        kind = MinimalAdmission if minimal else Admission
        folder = Path(tempfile.mkdtemp(prefix="cthulhu-bench-visitors-"))
        self.doors = FrontDoors(bind="127.0.0.1", code=CODE, ssh_port=0, web_port=0, data_dir=home / "doors",
                                admission=kind(code=CODE, folder=folder))
        text = "\n".join(self.doors.start())
        self.doors.open_table("127.0.0.1", table_port)
        if hasattr(self.doors, "warm"):
            self.doors.warm()
        self.ssh_port = int(re.search(r"ssh -p (\d+)", text).group(1))
        self.url = re.search(r"(http://\S+)", text).group(1)

    def stop(self) -> None:
        self.doors.stop()


def first_frames(home: Path, runs: int) -> dict:
    """`ssh` to the first full frame: the game's table, and the minimal app, through the same doors
    (alternating, so both see the same load); median of `runs` fresh connections each."""
    from serve_minimal import MARKER

    host = Host(home / "data", "--seats", "4", "--seed", "7")
    game, minimal = Doors(home, host.port), Doors(home, host.port, minimal=True)
    times: dict[str, dict[str, list[float]]] = {"game": {"byte": [], "frame": []}, "minimal": {"byte": [], "frame": []}}
    try:
        for n in range(runs):
            for kind, doors, marker in (("game", game, b"Yard Gate"), ("minimal", minimal, MARKER.encode())):
                player = SSHPlayer(doors.ssh_port, home, f"timing{n}")
                times[kind]["byte"].append(player.wait_for(b"\x1b[?1049h"))  # the interface takes the screen
                times[kind]["frame"].append(player.wait_for(marker))  # its first frame is on screen
                player.close()
                time.sleep(0.5)
    finally:
        game.stop()
        minimal.stop()
        host.stop()
    out = {k: {"first_byte_s": round(statistics.median(v["byte"]), 3), "first_frame_s": round(statistics.median(v["frame"]), 3),
               "frames_s": [round(t, 3) for t in v["frame"]]} for k, v in times.items()}
    out["ratio"] = round(out["game"]["first_frame_s"] / out["minimal"]["first_frame_s"], 2)
    out["runs"] = runs
    return out


def _tally(count: int) -> dict:
    visitors, zygotes = door_processes()
    each = [smaps(pid) for pid in visitors]
    zyg = [smaps(pid) for pid in zygotes]
    return {"visitors": len(visitors), "zygotes": len(zygotes),
            "total_pss_kib": sum(m["Pss"] for m in each + zyg),
            "zygote_pss_kib": sum(m["Pss"] for m in zyg),
            "visitor_pss_kib_median": statistics.median(m["Pss"] for m in each) if each else 0,
            "visitor_private_kib_median": statistics.median(m["Private_Clean"] + m["Private_Dirty"] for m in each) if each else 0,
            "visitor_rss_kib_median": statistics.median(m["Rss"] for m in each) if each else 0,
            "expected": count}


def _per_visitor(tallies: list[dict]) -> dict:
    first, last = tallies[0], tallies[-1]
    after = (last["total_pss_kib"] - first["total_pss_kib"]) / max(1, last["visitors"] - first["visitors"])
    return {"first_visitor_pss_mb": round(first["total_pss_kib"] / 1024, 1), "each_after_pss_mb": round(after / 1024, 1),
            "tallies": tallies}


def ssh_memory(home: Path, counts: list[int], minimal: bool = False) -> dict:
    """Total PSS of the visitors' processes and their zygote with 1, 4, 16... SSH visitors (4 per
    client address: the doors allow 8 per address): the first visitor's cost, and each one's after."""
    from serve_minimal import MARKER

    host = Host(home / "data", "--seats", "2", "--bots", "1", "--seed", "7")
    doors = Doors(home, host.port, minimal=minimal)
    players: list[SSHPlayer] = []
    tallies = []
    try:
        for count in counts:
            while len(players) < count:
                n = len(players)
                players.append(SSHPlayer(doors.ssh_port, home, f"mem{n}", "-b", f"127.0.0.{10 + n // 4}"))
            for p in players:
                p.wait_for(MARKER.encode() if minimal else b"Yard Gate")
            end = time.monotonic() + 3.0
            while time.monotonic() < end:  # settle, reading every terminal (an unread one stalls its interface)
                for p in players:
                    p.read(0.01)
            tallies.append(_tally(count))
    finally:
        for p in players:
            p.close()
        doors.stop()
        host.stop()
    return _per_visitor(tallies)


def web_memory(home: Path, counts: list[int]) -> dict:
    """The same for browser tabs (headless Chromium), which watch the table."""
    from playwright.sync_api import sync_playwright

    host = Host(home / "data", "--seats", "2", "--bots", "1", "--seed", "7")
    doors = Doors(home, host.port)
    origin = doors.url.split("/?", 1)[0]
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync"]
    tallies = []
    try:
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(tempfile.mkdtemp(), executable_path="/usr/bin/chromium", args=flags, headless=True)
            pages = []
            try:
                for count in counts:
                    while len(pages) < count:
                        page = context.new_page()
                        page.goto(f"{origin}/table?code={CODE}&name=tab{len(pages)}&as=watch")
                        page.wait_for_selector("body.-first-byte", timeout=60000)
                        pages.append(page)
                    time.sleep(3.0)
                    tallies.append(_tally(count))
            finally:
                context.close()
    finally:
        doors.stop()
        host.stop()
    return _per_visitor(tallies)


def lone_process(argv: list[str], marker: bytes | None) -> int:
    """PSS (KiB) of one fresh process on a 100x32 pseudo-terminal, once it has drawn `marker` (or after 2 s)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 32, 100, 0, 0))
    env = dict(os.environ, TERM="xterm-256color")
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True, env=env)
    os.close(slave)
    out = bytearray()
    end = time.monotonic() + (60 if marker else 2)
    try:
        while time.monotonic() < end and not (marker and marker in out):
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                out += os.read(master, 65536)
        time.sleep(1.0)
        return smaps(proc.pid)["Pss"]
    finally:
        proc.kill()
        proc.wait()
        os.close(master)


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


PARTS = ("first", "bytes", "memory", "web", "inprocess")


def main() -> None:
    if sys.argv[1:2] == ["--inprocess-probe"]:
        return _inprocess_probe(int(sys.argv[2]), int(sys.argv[3]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--visitors", type=int, default=3, help="apps in one process, for the in-process alternative")
    parser.add_argument("--counts", default="1,4,16", help="how many visitors the memory figures are taken at")
    parser.add_argument("--byte-runs", type=int, default=3, help="games played for the bytes figures (Textual's frame timing varies)")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"which figures ({', '.join(PARTS)})")
    args = parser.parse_args()
    parts = args.parts.split(",")
    counts = [int(c) for c in args.counts.split(",")]
    bench = str(Path(__file__).resolve().parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (bench, os.environ.get("PYTHONPATH")) if p)  # serve_minimal, for the doors
    sys.path.insert(0, bench)
    home = Path(tempfile.mkdtemp(prefix="cthulhu-bench-serve-"))
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(home / "key")], check=True)
    out: dict = {"load": os.getloadavg()}
    if "first" in parts:
        out["ssh_first_frame"] = first_frames(home, args.runs)
    if "bytes" in parts:
        out["ssh_bytes"] = [bytes_summary([bytes_per_turn(home, args.turns, c) for _ in range(args.byte_runs)]) for c in (False, True)]
    if "memory" in parts:
        out["reference_bare_python_pss_kib"] = lone_process([sys.executable, "-c", "import time; time.sleep(30)"], None)
        out["reference_minimal_app_alone_pss_kib"] = lone_process([sys.executable, str(Path(bench) / "serve_minimal.py")], b"Minimal app")
        out["ssh_memory_minimal_app"] = ssh_memory(home, [c for c in counts if c <= 4], minimal=True)
        out["ssh_memory"] = ssh_memory(home, counts)
    if "web" in parts:
        out["web_memory"] = web_memory(home, [c for c in counts if c <= 4])
    if "inprocess" in parts:
        out["inprocess_alternative"] = inprocess_memory(home, args.visitors)
    out["load_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
