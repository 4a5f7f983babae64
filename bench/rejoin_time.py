"""Host restarts: time from a restarted host listening to every joiner playing again.

    python bench/rejoin_time.py [--bots 3] [--restarts 5] [--seed 7]

A headless `cthulhu host` (its own process, a fixed port, autosaving) serves
`--bots` headless bot joiners (`cthulhu join --headless`, each its own process)
and one person's interface (`cthulhu join` in a real terminal, tmux; the bench
presses its first option whenever it is its turn). Each round the host is
killed with SIGKILL, restarted with `--load` after a pause drawn between 0 and
1.5 s (someone typing the command again), and the bench times, from the moment
the new host prints its join line (it prints it once it listens):

* every bot joiner's "Back at seat" line (it reclaimed its seat with its token);
* the interface's "Back at the table" line in its Log.

It also prints what the interface showed while the host was away. Nothing here
is a test: the figures go in bench/RESULTS.md with the command that made them.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.tmux_term import Terminal  # noqa: E402  (the tests' real-terminal driver)

CLI = [sys.executable, "-m", "cthulhu.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Host:
    def __init__(self, port: int, save: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*CLI, "host", "--headless", "--port", str(port), "--code", "bench", "--save", str(save), "--bot", "random", *args],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        for _ in range(3):
            line = self.proc.stdout.readline()
            if line.startswith("Join with:"):
                self.listening = time.monotonic()
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


class BotJoiner:
    """A headless bot joiner; `backs` collects the times of its "Back at seat" lines."""

    def __init__(self, port: int, n: int) -> None:
        self.proc = subprocess.Popen(
            [*CLI, "join", f"127.0.0.1:{port}", "--code", "bench", "--bot", "random", "--seed", str(n), "--headless"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        self.backs: list[float] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        self.lines: list[str] = []
        for line in self.proc.stderr:
            self.lines.append(line)
            if line.startswith("Back at seat"):
                self.backs.append(time.monotonic())

    def back_after(self, since: float, timeout: float = 60) -> float | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            later = [t for t in self.backs if t >= since]
            if later:
                return later[0] - since
            if self.proc.poll() is not None:
                return None  # the game ended
            time.sleep(0.01)
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=3, help="headless bot joiners (plus one interface)")
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("bench/rejoin_time.py needs tmux", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="rejoin-"))
    os.environ["XDG_DATA_HOME"] = str(work / "data")  # never the real home's seat tokens
    save, port = work / "table.save", free_port()
    host = Host(port, save, "--seats", str(args.bots + 1), "--seed", str(args.seed))
    term = Terminal([*CLI, "join", f"127.0.0.1:{port}", "--code", "bench", "--name", "Ann"], cols=110, rows=34)
    bots = [BotJoiner(port, n) for n in range(args.bots)]
    stop = threading.Event()

    def play_interface() -> None:  # Ann presses her first option whenever she has choices
        while not stop.is_set():
            try:
                lines = term.screen().splitlines()
                if len(lines) > 2 and " 1  " in lines[-2]:
                    term.keys("1")
            except Exception:
                pass
            time.sleep(0.15)

    rows: list[tuple[float, float, float]] = []
    meanwhile = ""
    try:
        term.wait_for("Story Board", "  step ")
        player = threading.Thread(target=play_interface, daemon=True)
        player.start()
        for r in range(args.restarts):
            time.sleep(2.0)
            if host.proc.poll() is not None:
                print(f"the game ended after {r} restart(s)")
                break
            host.kill()
            pause = rng.uniform(0.0, 1.5)
            time.sleep(pause)
            if not meanwhile:
                meanwhile = term.wait_for("reconnecting to")
            host = Host(port, save, "--load", str(save))
            since = host.listening
            bot_times = [b.back_after(since) for b in bots]
            deadline = time.monotonic() + 60
            while "reconnecting to" in term.screen() and time.monotonic() < deadline:
                time.sleep(0.02)  # the status line goes when the interface is welcomed back
            ui = time.monotonic() - since
            done = [t for t in bot_times if t is not None]
            rows.append((max(done) if done else float("nan"), statistics.median(done) if done else float("nan"), ui))
            print(f"restart {r + 1}: host down {pause:.2f} s; after it listens: bots back in "
                  f"{', '.join(f'{t:.2f}' for t in done)} s, interface back in {ui:.2f} s", flush=True)
        for b in bots:
            if b.proc.poll() is not None:
                print(f"a bot joiner ended (status {b.proc.returncode}):", "".join(b.lines[-5:]))
    finally:
        stop.set()
        for b in bots:
            b.proc.kill()
        host.proc.kill()
        term.close()
        shutil.rmtree(work, ignore_errors=True)
    if rows:
        everyone = [max(b, u) for b, _, u in rows]
        print(f"\n{len(rows)} restarts, {args.bots} bot joiners + 1 interface: every joiner playing again "
              f"{min(everyone):.2f}-{max(everyone):.2f} s after the host listens (median {statistics.median(everyone):.2f} s)")
    lines = meanwhile.splitlines()
    print("\nWhat the interface showed while the host was away (status bar and prompt bar):")
    for line in [lines[0], *lines[-4:-1]] if lines else []:
        print("  " + re.sub(r"\s+$", "", line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
