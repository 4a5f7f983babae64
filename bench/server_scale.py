"""Figures of the table server (`cthulhu server`): memory per table, latency with many active
tables, a restart with many tables, the lobby's listing.

    python bench/server_scale.py [--tables 1000] [--active 200] [--window 30] [--think 2] [--json]

1. Memory: `--tables` tables made through the lobby's `create` in one server (each open, its save
   written), then every one closed as idle (nobody at it: a record each); resident memory per
   table at both points, over the server before the first table (best of the process's own
   readings: one process, one run).
2. Restart: the same data folder opened by a new process: seconds from `open_server` to the
   server listening with every table's record loaded (every table accepts joins from then on: a
   table opens on its first join), the first join's seconds (its save loaded and checked, and
   what every table shares warmed: content, bots) and another table's join after it.
3. Listing: the lobby's first page of `--tables` tables, computed at the server (best of 50).
4. Latency: `--active` tables of 3 bot peers at one server process against one lone `Host` of 3
   bot peers in the same run, saving as `cthulhu host` does (the peers in this process, each host
   in its own): command -> delta at every peer, median and p99. Peers think `--think` seconds
   before each command, as in bench/net_latency.py, whose peers these are; all the peers of 200
   tables share one Python process, so a short think measures that process, not the server.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from net_latency import _pct  # noqa: E402


@dataclass
class TableStats:
    peers: int
    sent: dict[int, float] = field(default_factory=dict)
    arrivals: dict[int, list[float]] = field(default_factory=dict)

    def latencies(self) -> list[float]:
        out = []
        for seq, t0 in self.sent.items():
            got = self.arrivals.get(seq, [])
            if len(got) == self.peers:
                out.append(max(got) - t0)
        return out


async def _peer(port: int, stats: TableStats, think: float, seed: int, table: str | None = None) -> None:
    """A random-bot peer timing its commands (`table`: one of the server's tables; None: a lone host)."""
    from cthulhu.net.client import PeerSession, TrioPeer, ViewBot
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


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _settled_rss_kb() -> int:
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)  # what Python freed goes back, so RSS is what is held
    except (OSError, AttributeError):
        pass
    return _rss_kb()


def _limits(**kw):
    """Every bench peer connects from loopback: the per-address limits are lifted (the server's
    own defaults would let 16 of them in)."""
    from cthulhu.net.limits import Limits
    from cthulhu.server import ServerLimits

    table = Limits(max_connections=4096, max_unverified=4096, max_unverified_per_address=4096, max_per_address=4096,
                   joins=(1e6, 10**6))
    return ServerLimits(table=table.but(prefix_frames=(1e6, 10**6), all_frames=(1e6, 10**6)), creates=(1e9, 10**9), identities=(1e9, 10**9),
                        max_untouched=(10**6, 10**6), **kw)


async def _make(server, n: int, seats: int, bots: int) -> list[str]:
    from cthulhu.net.lobbymessages import CreateTable

    ids = []
    for k in range(n):
        msg = CreateTable(seq=k, mode="shamblers", seats=seats, bots=bots, bot="random", bot_delay_ms=0)
        ids.append((await server.create(msg, None, "127.0.0.1")).id)
    return ids


def _memory_and_listing(data: Path, tables: int, conn) -> None:
    import msgpack

    from cthulhu.server import open_server

    async def main() -> dict:
        server = open_server(data, limits=_limits(idle_close=0.0, sweep_every=1e9))
        base = _settled_rss_kb()
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            await _make(server, tables, 2, 0)
            opened = _settled_rss_kb()
            await server.sweep()  # nobody at any of them: each is closed, its record stays
            await server.flush()
            server.refresh()
            best = float("inf")
            for _ in range(50):
                t0 = time.perf_counter()
                page = msgpack.unpackb(server.listings.page(server.people, None, size=20)[4:])
                best = min(best, time.perf_counter() - t0)
            nursery.cancel_scope.cancel()
        server.store.close()
        return {"tables": tables, "base_rss_kb": base, "open_kb_per_table": round((opened - base) / tables, 1),
                "listing_ms": round(best * 1000, 3),
                "listed": page["total"]}

    conn.send(trio.run(main))


def _restart(data: Path, conn) -> None:
    from cthulhu.net.client import PeerSession, TrioPeer
    from cthulhu.server import open_server

    async def main() -> dict:
        with tempfile.TemporaryDirectory() as empty:  # the same code paths warmed on no tables: the base
            open_server(Path(empty), limits=_limits()).store.close()
        base = _settled_rss_kb()
        t0 = time.perf_counter()
        server = open_server(data, limits=_limits())
        loading = time.perf_counter() - t0
        idle = (_settled_rss_kb() - base) / max(1, len(server.tables))  # (not timed)
        async with trio.open_nursery() as nursery:
            t0 = time.perf_counter()
            port = await nursery.start(server.serve, 0, "127.0.0.1")
            listening = loading + time.perf_counter() - t0
            count = len(server.tables)
            first = next(iter(server.tables))
            t1 = time.perf_counter()
            peer = await TrioPeer.connect("127.0.0.1", port, PeerSession("bench", table_id=first))
            while not peer.session.welcomed and peer.session.closed is None:
                await peer.receive()
            joined = time.perf_counter() - t1
            await peer.aclose()
            t2 = time.perf_counter()
            other = await TrioPeer.connect("127.0.0.1", port, PeerSession("bench", table_id=list(server.tables)[-1]))
            while not other.session.welcomed and other.session.closed is None:
                await other.receive()
            another = time.perf_counter() - t2
            await other.aclose()
            nursery.cancel_scope.cancel()
        server.store.close()
        return {"tables": count, "idle_kb_per_table": round(idle, 1), "restart_to_listening_s": round(listening, 3), "first_join_s": round(joined, 3), "another_join_s": round(another, 3),
                "welcomed": peer.session.welcomed and other.session.welcomed}

    conn.send(trio.run(main))


def _server_process(data: Path, tables: int, conn) -> None:
    from cthulhu.server import open_server

    async def main() -> None:
        server = open_server(data, limits=_limits())
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.serve, 0, "127.0.0.1")
            ids = await _make(server, tables, 3, 0)
            conn.send((port, ids))
            ready = time.process_time()
            await trio.to_thread.run_sync(conn.recv)  # any message: stop
            conn.send(time.process_time() - ready)  # the CPU it took to serve the peers
            nursery.cancel_scope.cancel()
        server.store.close()

    trio.run(main)


def _lone_process(data: Path, tables: int, conn) -> None:
    """The reference: one `Host` saving its game as `cthulhu host` does (fsynced), on its own."""
    from cthulhu.core import Setup
    from cthulhu.table import SaveTo, TableSpec, open_table

    async def main() -> None:
        data.mkdir(parents=True, exist_ok=True)
        host = open_table(TableSpec(start=Setup(mode="shamblers", seed=7, players=3), save=SaveTo(file=data / "lone.save")))
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.serve)
            conn.send((port, [None]))
            ready = time.process_time()
            await trio.to_thread.run_sync(conn.recv)
            conn.send(time.process_time() - ready)
            nursery.cancel_scope.cancel()

    trio.run(main)


def _in_process(target, *args):
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=target, args=(*args, child), daemon=True)
    proc.start()
    return proc, parent


def _active(process, data: Path, tables: int, think: float, window: float) -> dict:
    """Tables of 3 bot peers (in this process) at a server (or the lone host) in its own process:
    the latencies, and the CPU seconds each side spent in the window (which side is the limit)."""
    proc, conn = _in_process(process, data, tables)
    port, ids = conn.recv()
    stats = [TableStats(peers=3) for _ in ids]
    started = time.process_time()

    async def main() -> None:
        with trio.move_on_after(window):
            async with trio.open_nursery() as nursery:
                for t, table in enumerate(ids):
                    for s in range(3):
                        nursery.start_soon(_peer, port, stats[t], think, 7000 + t * 3 + s, table)

    trio.run(main)
    peers_cpu = time.process_time() - started
    conn.send("stop")
    host_cpu = conn.recv()
    proc.join(30)
    if proc.is_alive():
        proc.kill()
    lat = [x for s in stats for x in s.latencies()]
    return {"commands": len(lat), "median_ms": round(statistics.median(lat) * 1000, 3) if lat else None,
            "p99_ms": round(_pct(lat, 0.99) * 1000, 3) if lat else None,
            "host_cpu_s": round(host_cpu, 2), "peers_cpu_s": round(peers_cpu, 2), "window_s": window}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--active", type=int, default=200)
    ap.add_argument("--window", type=float, default=30.0, help="seconds of play per latency measurement")
    ap.add_argument("--think", type=float, default=2.0, help="seconds a bot peer waits before each command")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    result: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "idle"
        proc, conn = _in_process(_memory_and_listing, data, args.tables)
        result["memory_and_listing"] = conn.recv()
        proc.join(30)
        print(json.dumps(result["memory_and_listing"]), file=sys.stderr)
        proc, conn = _in_process(_restart, data)
        result["restart"] = conn.recv()
        proc.join(30)
        print(json.dumps(result["restart"]), file=sys.stderr)
        if args.active:
            lone = _active(_lone_process, Path(tmp) / "lone", 1, args.think, args.window)
            server = _active(_server_process, Path(tmp) / "active", args.active, args.think, args.window)
            ratio = round(server["median_ms"] / lone["median_ms"], 2) if lone["median_ms"] and server["median_ms"] else None
            result["latency"] = {"think_s": args.think, "lone_host_3_peers": lone, f"server_{args.active}_tables_3_peers": server,
                                 "median_ratio": ratio}
            print(json.dumps(result["latency"]), file=sys.stderr)
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
