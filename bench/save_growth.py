"""Does a command cost the host more late in a game than early? Per-command host cost by step range,
autosave bytes written per command, and what a late joiner costs.

    python bench/save_growth.py [--mode main] [--steps 320] [--joins 5,50,150,300] [--fsync both] [--json]

A headless host (its own process, as `cthulhu host` is) autosaves one long game into a real file
while five random-bot peers (this process) play its five seats. The game is the first seed whose
game lasts `--steps` commands (found first, in this process, with the same bots on the same views).
Figures, from the host process:

* its CPU per command (process time between consecutive deltas), median and mean by step range;
  the delta right after a join is left out (it carries the join);
* bytes it wrote to files per command (`wchar` of /proc/PID/io: the save's writes; sockets are
  not counted there), by step range;
* a spectator joining at each step of `--joins` (play waits meanwhile): the host's CPU from its
  hello to its welcome and the game's history having arrived (and the lobby news that follows),
  and the bytes the joiner received.

`--fsync both` runs the game twice: with the save fsynced at every step (a headless host's way)
and without (an interface's own table). Ratios compare ranges within one run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

SEATS = 5
RANGES = ((1, 50), (51, 150), (151, 300), (301, 10**9))


def _wchar() -> int:
    with open("/proc/self/io") as f:
        fields = dict(line.split(": ") for line in f.read().splitlines())
    return int(fields["wchar"])


def _host_process(mode: str, seed: int, path: str, fsync: bool, conn: Any) -> None:
    from cthulhu.core import Setup
    from cthulhu.table import SaveTo, TableSpec, open_table

    marks: list[tuple[int, float, int]] = []  # (seq, process time, bytes written) at each delta

    def on_delta(seq: int, _key: Any, _digest: str) -> None:
        if not marks or marks[-1][0] != seq:
            marks.append((seq, time.process_time(), _wchar()))

    async def main() -> None:
        host = open_table(TableSpec(start=Setup(mode=mode, seed=seed, players=SEATS), save=SaveTo(file=Path(path), fsync=fsync)))
        host.on_delta = on_delta
        async with trio.open_nursery() as nursery:
            conn.send(await nursery.start(host.serve))
            while (ask := await trio.to_thread.run_sync(conn.recv)) != "stop":
                assert ask == "cpu"
                conn.send((time.process_time(), _wchar()))
            host.flush_log()
            nursery.cancel_scope.cancel()

    trio.run(main)
    conn.send(marks)


def long_seed(mode: str, steps: int) -> tuple[int, int]:
    """The first seed whose game, played by the peers' bots on their views, lasts `steps` commands."""
    from cthulhu.core import Command, Game, Setup
    from cthulhu.core.bots import make_bot

    best = (0, -1)
    for seed in range(1, 200):
        game = Game.new(Setup(mode=mode, seed=seed, players=SEATS))
        bots = {s: make_bot("random", mode, seed * 100 + s) for s in range(SEATS)}
        while game.outcome is None and game.step < steps:
            prompt = game.prompt
            assert prompt is not None
            game.apply(prompt.seat, Command.from_wire(bots[prompt.seat].choose_view(game.view(prompt.seat))))
        if game.step >= steps:
            return seed, game.step
        best = max(best, (game.step, seed))
    return best[1], best[0]


async def _ask(conn: Any) -> tuple[float, int]:
    def ask() -> tuple[float, int]:
        conn.send("cpu")
        answer: tuple[float, int] = conn.recv()
        return answer

    return await trio.to_thread.run_sync(ask)


async def _join(port: int, conn: Any) -> dict[str, Any]:
    """A spectator joins: the host's CPU and bytes until its welcome and the whole history are in."""
    from cthulhu.net.client import PeerSession, TrioPeer

    cpu0, _ = await _ask(conn)
    session = PeerSession("late", watch=True)
    received = 0
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    peer = TrioPeer(stream, session)
    await peer.flush()
    async with stream:
        while True:
            data = await stream.receive_some(65536)
            received += len(data)
            session.receive_data(data)
            step = session.record.hashes and max(session.record.hashes)
            if session.welcomed and all(c is not None for c in session.record.commands) and len(session.record.commands) == step:
                break
        await trio.sleep(0.2)  # the lobby news of the new spectator goes out to everyone
        cpu1, _ = await _ask(conn)
    return {"step": step, "host_cpu_ms": round((cpu1 - cpu0) * 1000, 3), "bytes_received": received}


async def _seat(port: int, seat: int, seed: int, joins: set[int], joined: list[dict[str, Any]], conn: Any, done: trio.Event) -> None:
    from cthulhu.net.client import PeerSession, TrioPeer, ViewBot

    session = PeerSession(f"p{seat}", seat=seat)
    bot = ViewBot("random", seed * 100 + seat)
    peer = await TrioPeer.connect("127.0.0.1", port, session)
    answered = None
    try:
        while session.game_over is None and not done.is_set():
            if not await peer.receive():
                return
            prompt, view = session.my_prompt, session.mirror.view
            if prompt is None or view is None or prompt["version"] == answered or not (session.table and session.table.started):
                continue
            answered = prompt["version"]
            if view["step"] in joins:
                joins.discard(view["step"])
                joined.append(await _join(port, conn))
            session.send_command(bot.choose(view, session.table.mode), answered)
            await peer.flush()
    finally:
        done.set()
        with trio.CancelScope(shield=True):
            await peer.aclose()


def one_game(mode: str, seed: int, joins: list[int], fsync: bool, folder: str) -> tuple[dict[int, tuple[float, int]], list[dict[str, Any]], int]:
    """One game through a host: per step its (CPU, bytes written), the joins, the save's size."""
    path = os.path.join(folder, f"growth-{int(fsync)}.save")
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_host_process, args=(mode, seed, path, fsync, child), daemon=True)
    proc.start()
    port = parent.recv()
    joined: list[dict[str, Any]] = []

    async def main() -> None:
        done = trio.Event()
        pending = set(joins)
        async with trio.open_nursery() as nursery:
            for s in range(SEATS):
                nursery.start_soon(_seat, port, s, seed, pending, joined, parent, done)
                await trio.sleep(0.01)

    trio.run(main)
    parent.send("stop")
    marks: list[tuple[int, float, int]] = parent.recv()
    proc.join(10)
    if proc.is_alive():
        proc.kill()
    after_join = {j["step"] + 1 for j in joined}
    per_step = {seq: (cpu - marks[i - 1][1], wrote - marks[i - 1][2]) for i, (seq, cpu, wrote) in enumerate(marks) if i and seq not in after_join}
    size = os.path.getsize(path)
    os.unlink(path)
    return per_step, joined, size


def one_run(mode: str, seed: int, joins: list[int], fsync: bool, folder: str, repeat: int) -> dict[str, Any]:
    """`repeat` games; each step's cost is its lowest over them (a busy machine adds, never takes away)."""
    games = [one_game(mode, seed, joins, fsync, folder) for _ in range(repeat)]
    per_step = {k: (min(g[0][k][0] for g in games), games[0][0][k][1]) for k in games[0][0] if all(k in g[0] for g in games)}
    joined = [{**j, "host_cpu_ms": min(g[1][n]["host_cpu_ms"] for g in games)} for n, j in enumerate(games[0][1])]
    ranges = []
    for lo, hi in RANGES:
        rows = [v for k, v in per_step.items() if lo <= k <= hi]
        if not rows:
            continue
        cpu = [r[0] * 1000 for r in rows]
        ranges.append({
            "steps": f"{lo}-{hi}" if hi < 10**9 else f"{lo}+",
            "commands": len(rows),
            "host_cpu_ms_median": round(statistics.median(cpu), 3),
            "host_cpu_ms_mean": round(statistics.mean(cpu), 3),
            "bytes_written_per_command": round(statistics.mean(r[1] for r in rows), 1),
        })
    first, last = ranges[0], ranges[-1]
    return {
        "fsync": fsync,
        "steps": max(per_step),
        "repeat": repeat,
        "save_bytes": games[0][2],
        "ranges": ranges,
        "late_over_early_median": round(last["host_cpu_ms_median"] / first["host_cpu_ms_median"], 2),
        "late_over_early_mean": round(last["host_cpu_ms_mean"] / first["host_cpu_ms_mean"], 2),
        "joins": joined,
        "load": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--mode", choices=["main", "shamblers"], default="main")
    ap.add_argument("--steps", type=int, default=320, help="the game must last this many commands")
    ap.add_argument("--joins", default="5,50,150,300", help="steps at which a spectator joins")
    ap.add_argument("--fsync", choices=["both", "on", "off"], default="both")
    ap.add_argument("--repeat", type=int, default=3, help="games per run; each step counts its cheapest")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    seed, length = long_seed(args.mode, args.steps)
    joins = sorted({int(j) for j in args.joins.split(",") if j and int(j) < length})
    result: dict[str, Any] = {"mode": args.mode, "seed": seed, "game_length": length, "load_before": os.getloadavg(), "runs": []}
    with tempfile.TemporaryDirectory() as folder:
        for fsync in {"both": (True, False), "on": (True,), "off": (False,)}[args.fsync]:
            run = one_run(args.mode, seed, joins, fsync, folder, args.repeat)
            print(json.dumps(run), file=sys.stderr)
            result["runs"].append(run)
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
