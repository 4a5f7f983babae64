"""Save file figures: size per 100 commands, autosave cost, load+verify and seek times.

    python bench/saves_bench.py [--mode main] [--steps 1000] [--every 25] [--out DIR]

Plays seeded random-bot games (4 players, so they last) until one reaches
`--steps` commands, autosaving after every command exactly as the host does,
then times loading, verifying and seeking in that save. Wall-clock figures
depend on the machine; the command and the machine go in bench/RESULTS.md with them.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from cthulhu.content import builtin
from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.savegame import SaveWriter, load, replay, seek


def long_game(mode: str, steps: int, players: int) -> tuple[Setup, list[tuple[int, dict, str]]]:
    """The first seeded bot game that lasts `steps` commands, else the longest of 300 seeds x 2 bots.

    Rules with fast losses rarely give 1,000-command games; then the figures
    are for the longest game found, and the per-step costs scale linearly.
    """
    content = builtin()
    best: tuple[Setup, list] | None = None
    for seed in range(300):
        for kind in ("random", "heuristic"):
            setup = Setup(mode=mode, seed=seed, players=players)
            game = Game.new(setup, content)
            try:
                bot = make_bot(kind, mode, seed)
            except ImportError:
                continue
            log = []
            while game.outcome is None and len(log) < steps:
                seat = game.prompt.seat
                command = bot.choose(game, seat)
                game.apply(seat, command)
                log.append((seat, command.wire(), game.state_hash()))
            if best is None or len(log) > len(best[1]):
                best = (setup, log)
            if len(log) >= steps:
                return best
    assert best is not None
    return best


def autosave(path: Path, setup: Setup, log: list, every: int, fsync: bool) -> list[float]:
    """Replay `log` into a SaveWriter the way the host does; per-command append times."""
    game = Game.new(setup, builtin())
    writer = SaveWriter(path, game, snapshot_every=every, fsync=fsync, players=[{"seat": s, "name": f"P{s + 1}"} for s in range(setup.players)])
    times = []
    for seat, wire, state_hash in log:
        legal = {c.wire().__repr__(): c for c in game.legal(seat)}
        game.apply(seat, legal[repr(wire)])
        t0 = time.perf_counter()
        writer.append(seat, wire, state_hash)
        times.append(time.perf_counter() - t0)
    return times


def ms(x: float) -> str:
    return f"{x * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default="main")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--every", type=int, default=None, help="snapshot interval (default: the writer's)")
    parser.add_argument("--out", default=None, help="folder for the save files (default: a temp folder)")
    args = parser.parse_args()
    from cthulhu.savegame.writer import DEFAULT_SNAPSHOT_EVERY

    every = args.every or DEFAULT_SNAPSHOT_EVERY
    content = builtin()
    out = Path(args.out or tempfile.mkdtemp(prefix="cthulhu-saves-bench-"))
    out.mkdir(parents=True, exist_ok=True)

    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus; mode {args.mode}, snapshot every {every}")
    setup, log = long_game(args.mode, args.steps, args.players)
    n = len(log)
    print(f"game: seed {setup.seed}, {setup.players} players, {n} commands")

    path = out / "bench.save"
    fsynced = autosave(path, setup, log, every, fsync=True)
    plain = autosave(out / "bench-nofsync.save", setup, log, every, fsync=False)
    print(f"autosave per command (fsync):    mean {ms(statistics.fmean(fsynced))}, median {ms(statistics.median(fsynced))}, "
          f"max {ms(max(fsynced))}; {n} commands in {sum(fsynced):.2f} s")
    print(f"autosave per command (no fsync): mean {ms(statistics.fmean(plain))}, median {ms(statistics.median(plain))}")

    # Size: the whole file, and the log alone (a save with snapshots only at step 0 and the end).
    size = path.stat().st_size
    log_only = out / "bench-logonly.save"
    autosave(log_only, setup, log, n + 1, fsync=False)
    per100 = size / n * 100
    per100_log = log_only.stat().st_size / n * 100
    print(f"size: {size:,} bytes for {n} commands = {per100:,.0f} bytes per 100 commands "
          f"({per100_log:,.0f} without the periodic snapshots)")

    load_times, verify_times = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        save = load(path)
        t1 = time.perf_counter()
        game = replay(save, content, verify=True)
        t2 = time.perf_counter()
        load_times.append(t1 - t0)
        verify_times.append(t2 - t0)
    assert game.state_hash() == log[-1][2]
    print(f"load (read + checksum + validate): best {ms(min(load_times))}")
    print(f"load + verify every hash ({n} steps): best {ms(min(verify_times))}, median {ms(statistics.median(verify_times))}"
          f"  (target < 500 ms)")

    save = load(path)
    seek_times = []
    for step in range(n + 1):
        t0 = time.perf_counter()
        seek(save, step, content)
        seek_times.append(time.perf_counter() - t0)
    worst = max(range(n + 1), key=lambda k: seek_times[k])
    print(f"seek to each of the {n + 1} steps (hashes checked from the snapshot on): mean {ms(statistics.fmean(seek_times))}, "
          f"max {ms(seek_times[worst])} at step {worst}  (target < 50 ms)")
    print(f"files in {out}")


if __name__ == "__main__":
    main()
