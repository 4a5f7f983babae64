"""A fleet of `cthulhu server` processes on one PostgreSQL database against one process, same run
(issue 38's figure): command -> delta at every bot peer, median and p99.

    python bench/fleet_scale.py [--processes 3] [--per-process 100] [--window 20] [--think 2] [--json]

1. One server process on the database with `--per-process` active tables of 3 bot peers.
2. `--processes` server processes on the same database, each with `--per-process` tables (made
   at that process, so it owns them), their peers spread the same way.

Every server is its own process with a lease of 15 s (the default); the peers of each server run
in a process of their own, as in bench/server_scale.py (whose peers and limits these are), so the
peers of one server are not slowed by another's. The database is a throwaway cluster
(tests/support/pgcluster.py: a temporary folder, a Unix socket, fsync off). The goal: the fleet's median
<= 1.3x the lone process's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from net_latency import _pct  # noqa: E402
from server_scale import TableStats, _in_process, _limits, _make, _peer  # noqa: E402


def _fleet_server(data: Path, url: str, tables: int, conn) -> None:
    from cthulhu.server import open_server
    from cthulhu.server.fleet import Fleet
    from cthulhu.server.lease import Me

    async def main() -> None:
        server = open_server(data, limits=_limits(), store_url=url)
        server.fleet = Fleet(server.store, Me.new("127.0.0.1", 0), 15.0)  # type: ignore[arg-type]
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.serve, 0, "127.0.0.1")
            ids = await _make(server, tables, 3, 0)
            conn.send((port, ids))
            ready = time.process_time()
            await trio.to_thread.run_sync(conn.recv)
            conn.send(time.process_time() - ready)
            nursery.cancel_scope.cancel()
        server.store.close()

    trio.run(main)


def _peers(port: int, ids: list[str], think: float, window: float, seed: int, conn) -> None:
    stats = [TableStats(peers=3) for _ in ids]

    async def main() -> None:
        with trio.move_on_after(window):
            async with trio.open_nursery() as nursery:
                for t, table in enumerate(ids):
                    for s in range(3):
                        nursery.start_soon(_peer, port, stats[t], think, seed + t * 3 + s, table)

    trio.run(main)
    conn.send([x for s in stats for x in s.latencies()])


def _run(url: str, root: Path, processes: int, per_process: int, think: float, window: float) -> dict:
    servers = [_in_process(_fleet_server, root / f"p{n}", url, per_process) for n in range(processes)]
    made = [conn.recv() for _, conn in servers]
    peers = [_in_process(_peers, port, ids, think, window, 7000 + 10_000 * n) for n, (port, ids) in enumerate(made)]
    lat = [x for _, conn in peers for x in conn.recv()]
    cpu = []
    for proc, conn in servers:
        conn.send("stop")
        cpu.append(round(conn.recv(), 2))
        proc.join(30)
    for proc, _ in peers:
        proc.join(30)
    return {"processes": processes, "tables": processes * per_process, "commands": len(lat),
            "median_ms": round(statistics.median(lat) * 1000, 3) if lat else None,
            "p99_ms": round(_pct(lat, 0.99) * 1000, 3) if lat else None, "server_cpu_s": cpu, "window_s": window}


def main(argv: list[str] | None = None) -> int:
    import tempfile

    from support import pgcluster

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--per-process", type=int, default=100)
    ap.add_argument("--window", type=float, default=20.0, help="seconds of play per measurement")
    ap.add_argument("--think", type=float, default=2.0, help="seconds a bot peer waits before each command")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cluster = pgcluster.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            one = _run(cluster.database(), root / "one", 1, args.per_process, args.think, args.window)
            fleet = _run(cluster.database(), root / "fleet", args.processes, args.per_process, args.think, args.window)
    finally:
        cluster.stop()
    ratio = round(fleet["median_ms"] / one["median_ms"], 2) if one["median_ms"] and fleet["median_ms"] else None
    result = {"one_process": one, "fleet": fleet, "median_ratio": ratio}
    if args.json:
        print(json.dumps(result))
    else:
        for name, r in (("one process", one), (f"{args.processes} processes", fleet)):
            print(f"{name:>12}: {r['tables']} tables, {r['commands']} commands, command->delta median {r['median_ms']} ms, "
                  f"p99 {r['p99_ms']} ms, server CPU {r['server_cpu_s']} s in {r['window_s']:g} s")
        print(f"median ratio (fleet / one): {ratio} (goal <= 1.3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
