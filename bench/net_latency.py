"""Network figures: command -> delta latency, delta vs snapshot size, tables one host serves.

    python bench/net_latency.py [--mode shamblers] [--window 5] [--max-tables 200] [--think 0.25]

1. Five bot peers on loopback at one table (host in its own process): time from a
   command leaving the deciding peer to its delta having arrived at all five
   peers (median, p99), and mean delta frame size against the full view size.
2. Tables of 4 bot peers, all served by one host process: the number of tables
   grows until the p99 of the same latency passes 50 ms, the count reaches
   `--max-tables` or the time budget runs out. Bot peers "think" for `--think`
   seconds before each command (a table of instant bots would saturate any host
   by itself), so this measures a host under many realistic tables.

Peers run in this process, the host in another, so the two share the 2 cores.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import time
from dataclasses import dataclass, field

import trio


def _host_process(mode: str, seats: int, tables: int, seed: int, conn) -> None:
    from cthulhu.core import Game, Setup
    from cthulhu.net.table import TableSpec, open_table

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            ports = []
            for t in range(tables):
                game = Game.new(Setup(mode=mode, seed=seed + t, players=seats))
                host = open_table(TableSpec(start=game))
                ports.append(await nursery.start(host.serve))
            conn.send(ports)
            await trio.to_thread.run_sync(conn.recv)  # any message: stop
            nursery.cancel_scope.cancel()

    trio.run(main)


@dataclass
class TableStats:
    peers: int
    sent: dict[int, float] = field(default_factory=dict)
    arrivals: dict[int, list[float]] = field(default_factory=dict)
    delta_bytes: list[int] = field(default_factory=list)
    view_bytes: list[int] = field(default_factory=list)

    def latencies(self) -> list[float]:
        out = []
        for seq, t0 in self.sent.items():
            got = self.arrivals.get(seq, [])
            if len(got) == self.peers:
                out.append(max(got) - t0)
        return out


async def _peer(port: int, stats: TableStats, think: float, seed: int, measure_sizes: bool, table: str | None = None) -> None:
    """A bot peer (`table`: one of a server's tables, bench/server_scale.py)."""
    from cthulhu.net.client import PeerSession, TrioPeer, ViewBot
    from cthulhu.net.frames import encode_frame
    from cthulhu.net.messages import Delta

    session = PeerSession(f"b{seed}", table_id=table)
    bot = ViewBot("random", seed)
    peer = await TrioPeer.connect("127.0.0.1", port, session)
    answered = None
    try:
        while session.game_over is None:
            msgs = await peer.receive()
            now = time.perf_counter()
            if not msgs:
                return
            for m in msgs:
                if isinstance(m, Delta):
                    stats.arrivals.setdefault(m.seq, []).append(now)
                    if measure_sizes:
                        stats.delta_bytes.append(len(encode_frame(m.wire())))
                        stats.view_bytes.append(len(encode_frame({"t": "snapshot", "seq": m.seq, "view": session.mirror.view, "hash": m.hash})))
            prompt = session.my_prompt
            if prompt is not None and prompt["version"] != answered and session.table and session.table.started:
                answered = prompt["version"]
                if think:
                    await trio.sleep(think)
                command = bot.choose(session.mirror.view, session.table.mode)
                stats.sent[session.mirror.seq + 1] = time.perf_counter()
                session.send_command(command, answered)
                await peer.flush()
    finally:
        with trio.CancelScope(shield=True):
            await peer.aclose()


def _run_level(mode: str, seats: int, tables: int, think: float, window: float, seed: int, sizes: bool) -> list[TableStats]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_host_process, args=(mode, seats, tables, seed, child), daemon=True)
    proc.start()
    ports = parent.recv()
    stats = [TableStats(peers=seats) for _ in ports]

    async def main() -> None:
        with trio.move_on_after(window):
            async with trio.open_nursery() as nursery:
                for t, port in enumerate(ports):
                    for s in range(seats):
                        nursery.start_soon(_peer, port, stats[t], think, seed * 100 + t * seats + s, sizes)

    trio.run(main)
    parent.send("stop")
    proc.join(10)
    if proc.is_alive():
        proc.kill()
    return stats


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=["main", "shamblers"], default="shamblers")
    ap.add_argument("--window", type=float, default=5.0, help="seconds of play per measurement")
    ap.add_argument("--think", type=float, default=0.25, help="bot think time per command in the capacity run")
    ap.add_argument("--max-tables", type=int, default=200)
    ap.add_argument("--budget", type=float, default=120.0, help="seconds for the whole capacity search")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    # 1. five peers, no think time: latency and sizes
    one = _run_level(args.mode, 5, 1, 0.0, args.window, 1, True)[0]
    lat = one.latencies()
    result = {
        "mode": args.mode,
        "five_peers": {
            "commands": len(lat),
            "median_ms": round(statistics.median(lat) * 1000, 3),
            "p99_ms": round(_pct(lat, 0.99) * 1000, 3),
            "mean_delta_bytes": round(statistics.mean(one.delta_bytes), 1),
            "mean_snapshot_bytes": round(statistics.mean(one.view_bytes), 1),
            "delta_over_snapshot": round(statistics.mean(one.delta_bytes) / statistics.mean(one.view_bytes), 4),
        },
        "tables": [],
    }
    print(json.dumps(result["five_peers"]), file=sys.stderr)

    # 2. capacity: tables of 4 bot peers in one host process
    started = time.monotonic()
    best = 0
    for tables in (1, 10, 25, 50, 75, 100, 150, 200, 300, 400, 600, 800):
        if tables > args.max_tables or time.monotonic() - started > args.budget:
            break
        stats = _run_level(args.mode, 4, tables, args.think, args.window, 1000 + tables, False)
        lat = [x for s in stats for x in s.latencies()]
        row = {
            "tables": tables,
            "commands": len(lat),
            "median_ms": round(statistics.median(lat) * 1000, 3) if lat else None,
            "p99_ms": round(_pct(lat, 0.99) * 1000, 3) if lat else None,
        }
        result["tables"].append(row)
        print(json.dumps(row), file=sys.stderr)
        if not lat or row["p99_ms"] >= 50:
            break
        best = tables
    result["max_tables_p99_under_50ms"] = best
    result["think_s"] = args.think
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
