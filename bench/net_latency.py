"""Network figures: command -> delta at five peers, beside the loopback floor measured in the same run.

    python bench/net_latency.py [--mode main] [--games 8] [--repeat 3] [--parts latency,capacity] [--json]

1. **latency** (in each of `--repeat` rounds, two runs one after the other):
   * *game*: five bot peers (this process) at one table of a host (its own process, as
     `cthulhu host` is), `--games` seeded games played back to back, no think time. Figure:
     the time from a command leaving the deciding peer to its delta having been taken in by
     all five peers (decoded, validated, applied to the mirror, hash checked): median, p99.
     Also the host's CPU per command (its process time between its first and last delta of
     each game, over the commands between; joins and game overs are outside) and the
     peers' CPU per command (this process, the whole run).
   * *floor*: the same traffic with no game in it. A relay in its own process, five peers in
     this one, the same trio and loopback sockets, replaying the very frames the game run
     recorded: the peer that sent command k sends the same bytes, the relay answers every
     command frame by sending the recorded delta frame to all five, and each peer splits and
     decodes its frames (`FrameDecoder`: lengths, bounded msgpack, shape) and does nothing
     else. The relay sends to each peer in turn from the task that read the command (one
     broadcast at a time).
   The ratio game / floor is taken within a round (the two runs a few seconds apart); the
   table shows each round and the median.
2. **capacity**: tables of 4 bot peers, all served by one host process: the number of tables
   grows until the p99 of the same latency passes 50 ms, the count reaches `--max-tables` or
   the time budget runs out. Bot peers "think" for `--think` seconds before each command.

Peers run in this process, the host (or relay) in another, so the two share the 2 cores.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import trio

SEATS = 5


# ---- the host side (a process of its own) ------------------------------------------------------


def _profiled(out: str | None, name: str, run: Any) -> None:
    """`run()`, under cProfile if `out` names a folder (the stats go to out/name.prof)."""
    if out is None:
        run()
        return
    import cProfile

    profile = cProfile.Profile(time.process_time)  # CPU time: time spent descheduled on a busy machine is not ours
    profile.runcall(run)
    profile.dump_stats(os.path.join(out, f"{name}.prof"))


def _host_process(mode: str, seats: int, seeds: list[int], profile: str | None, conn: Any) -> None:
    from cthulhu.core import Setup
    from cthulhu.table import TableSpec, open_table

    cpu: dict[int, list[tuple[int, float]]] = {}  # table -> (seq, process time) at each delta

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            ports = []
            for t, seed in enumerate(seeds):
                host = open_table(TableSpec(start=Setup(mode=mode, seed=seed, players=seats)))
                marks = cpu.setdefault(t, [])

                def on_delta(seq: int, _key: Any, _digest: str, marks: list[tuple[int, float]] = marks) -> None:
                    if not marks or marks[-1][0] != seq:
                        marks.append((seq, time.process_time()))

                host.on_delta = on_delta
                ports.append(await nursery.start(host.serve))
            conn.send(ports)
            await trio.to_thread.run_sync(conn.recv)  # any message: stop
            nursery.cancel_scope.cancel()

    _profiled(profile, "host", lambda: trio.run(main))
    conn.send(_cpu_per_command(cpu))


def _cpu_per_command(marks: dict[int, list[tuple[int, float]]]) -> tuple[float, int]:
    """CPU seconds and commands between each table's first and last delta, summed over tables."""
    seconds, commands = 0.0, 0
    for seq_cpu in marks.values():
        if len(seq_cpu) >= 2:
            seconds += seq_cpu[-1][1] - seq_cpu[0][1]
            commands += seq_cpu[-1][0] - seq_cpu[0][0]
    return seconds, commands


def _relay_process(tables: list[list[bytes]], seats: int, profile: str | None, conn: Any) -> None:
    """The floor's host: no game, no validation; every command frame is answered with the next
    recorded delta frame, sent to every peer of the table."""
    from cthulhu.net.frames import FrameDecoder

    go = _go_frame()
    cpu: dict[int, list[tuple[int, float]]] = {}

    async def serve_table(t: int, deltas: list[bytes], task_status: Any) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        streams: list[trio.SocketStream] = []
        all_in = trio.Event()
        sending = trio.Lock()  # one broadcast at a time: the next command may come in while one is still going out
        marks = cpu.setdefault(t, [])

        async def peer(stream: trio.SocketStream) -> None:
            streams.append(stream)
            if len(streams) == seats:
                all_in.set()
            await all_in.wait()
            if stream is streams[-1]:
                for s in streams:
                    await s.send_all(go)
            decoder = FrameDecoder()
            while True:
                data = await stream.receive_some(65536)
                if not data:
                    return
                for _frame in decoder.feed(data):
                    n = len(marks)
                    if n >= len(deltas):
                        return
                    marks.append((n + 1, time.process_time()))
                    async with sending:
                        for s in streams:
                            await s.send_all(deltas[n])

        async with trio.open_nursery() as nursery:
            task_status.started(listeners[0].socket.getsockname()[1])
            await trio.serve_listeners(peer, listeners, handler_nursery=nursery)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            ports = [await nursery.start(serve_table, t, deltas) for t, deltas in enumerate(tables)]
            conn.send(ports)
            await trio.to_thread.run_sync(conn.recv)
            nursery.cancel_scope.cancel()

    _profiled(profile, "relay", lambda: trio.run(main))
    conn.send(_cpu_per_command(cpu))


def _go_frame() -> bytes:
    from cthulhu.net.frames import encode_frame

    return encode_frame({"t": "go"})


# ---- the peers' side (this process) ------------------------------------------------------------


@dataclass
class Run:
    """Times of one run: per (table, seq) the send time and the five arrival times."""

    peers: int
    sent: dict[tuple[int, int], float] = field(default_factory=dict)
    arrivals: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    delta_bytes: list[int] = field(default_factory=list)
    view_bytes: list[int] = field(default_factory=list)
    host_cpu: tuple[float, int] = (0.0, 0)
    peer_cpu: float = 0.0
    commands: dict[int, list[tuple[int, bytes]]] = field(default_factory=dict)  # per table: (peer, command frame) in order

    def latencies(self) -> list[float]:
        out = []
        for key, t0 in self.sent.items():
            got = self.arrivals.get(key, [])
            if len(got) == self.peers:
                out.append(max(got) - t0)
        return out


@dataclass
class Trace:
    """What the game run put on the wire, per table: the delta frames in order and, for each,
    which peer sent the command before it and that command's frame."""

    deltas: list[list[bytes]] = field(default_factory=list)
    commands: list[list[tuple[int, bytes]]] = field(default_factory=list)


def _spawn(target: Any, *args: Any) -> tuple[Any, Any, list[int]]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=target, args=(*args, child), daemon=True)
    proc.start()
    return proc, parent, parent.recv()


def _stop(proc: Any, parent: Any) -> tuple[float, int]:
    parent.send("stop")
    cpu = parent.recv()
    proc.join(10)
    if proc.is_alive():
        proc.kill()
    return (float(cpu[0]), int(cpu[1]))


async def _game_peer(port: int, t: int, index: int, run: Run, raw: list[bytes] | None, think: float, seed: int) -> None:
    """One bot peer. `raw` (peer 0 of the latency part): every chunk of bytes it read, kept to be
    looked at after the run (decoding them twice here would slow the peer the figures are about)."""
    from cthulhu.net.client import PeerSession, TrioPeer, ViewBot
    from cthulhu.net.messages import Delta

    session = PeerSession(f"b{seed}")
    bot = ViewBot("random", seed)
    peer = await TrioPeer.connect("127.0.0.1", port, session)
    answered = None
    try:
        while session.game_over is None:
            data = await peer.stream.receive_some(65536)  # TrioPeer.receive, with `raw` kept
            if not data:
                return
            if raw is not None:
                raw.append(data)
            msgs = session.receive_data(data)
            await peer.flush()
            now = time.perf_counter()
            for m in msgs:
                if isinstance(m, Delta):
                    run.arrivals.setdefault((t, m.seq), []).append(now)
            prompt = session.my_prompt
            if prompt is not None and prompt["version"] != answered and session.table and session.table.started:
                answered = prompt["version"]
                if think:
                    await trio.sleep(think)
                command = bot.choose(session.mirror.view, session.table.mode)
                session.send_command(command, answered)
                data = session.data_to_send()
                run.sent[(t, session.mirror.seq + 1)] = time.perf_counter()
                await peer.stream.send_all(data)
                run.commands.setdefault(t, []).append((index, data))
    finally:
        with trio.CancelScope(shield=True):
            await peer.aclose()


async def _floor_peer(port: int, t: int, index: int, run: Run, commands: list[tuple[int, bytes]]) -> None:
    from cthulhu.net.frames import FrameDecoder

    stream = await trio.open_tcp_stream("127.0.0.1", port)
    decoder = FrameDecoder()
    seq = 0
    async with stream:

        async def send_if_mine() -> None:
            if seq < len(commands) and commands[seq][0] == index:
                run.sent[(t, seq + 1)] = time.perf_counter()
                await stream.send_all(commands[seq][1])

        while seq < len(commands):
            data = await stream.receive_some(65536)
            if not data:
                return
            for frame in decoder.feed(data):
                if isinstance(frame, dict) and frame.get("t") == "go":
                    await send_if_mine()
                    continue
                seq += 1
                run.arrivals.setdefault((t, seq), []).append(time.perf_counter())
                await send_if_mine()


def game_run(mode: str, seeds: list[int], *, profile: str | None = None) -> tuple[Run, Trace]:
    proc, parent, ports = _spawn(_host_process, mode, SEATS, seeds, profile)
    run = Run(peers=SEATS)
    raw: list[list[bytes]] = [[] for _ in ports]
    cpu0 = time.process_time()

    async def main() -> None:
        for t, port in enumerate(ports):
            async with trio.open_nursery() as nursery:
                for s in range(SEATS):
                    nursery.start_soon(_game_peer, port, t, s, run, raw[t] if s == 0 else None, 0.0, seeds[t] * 100 + s)
                    await trio.sleep(0.01)  # peers sit down in order: peer s takes seat s

    _profiled(profile, "peers", lambda: trio.run(main))
    run.peer_cpu = time.process_time() - cpu0
    run.host_cpu = _stop(proc, parent)
    trace = Trace()
    for t, chunks in enumerate(raw):
        trace.deltas.append(_delta_frames(chunks))
        trace.commands.append(run.commands.get(t, []))
        run.delta_bytes += [len(f) for f in trace.deltas[-1]]
        run.view_bytes += _snapshot_sizes(chunks)
    return run, trace


def _frames(raw: list[bytes]) -> list[tuple[bytes, dict[str, Any]]]:
    """The frames in the bytes a peer read, each as sent and decoded."""
    from cthulhu.net.frames import HEADER, decode_body

    data, out, pos = b"".join(raw), [], 0
    while pos < len(data):
        (length,) = HEADER.unpack_from(data, pos)
        end = pos + HEADER.size + length
        out.append((data[pos:end], decode_body(data[pos + HEADER.size : end])))
        pos = end
    return out


def _delta_frames(raw: list[bytes]) -> list[bytes]:
    """The delta frames, byte for byte as the host sent them."""
    return [frame for frame, body in _frames(raw) if body["t"] == "delta"]


def _snapshot_sizes(raw: list[bytes]) -> list[int]:
    """The size of the snapshot frame the host would have sent at each delta: the welcome's view
    with every delta applied in turn."""
    from cthulhu.net.delta import apply
    from cthulhu.net.frames import encode_frame

    view: Any = None
    sizes = []
    for _frame, body in _frames(raw):
        if body["t"] == "welcome":
            view = body["view"]
        elif body["t"] == "delta" and view is not None:
            view = apply(view, body["ops"])
            sizes.append(len(encode_frame({"t": "snapshot", "seq": body["seq"], "view": view, "hash": body["hash"]})))
    return sizes


def floor_run(trace: Trace, profile: str | None = None) -> Run:
    # A delta sent after the last command (none: every delta answers a command) is dropped.
    tables = [deltas[: len(commands)] for deltas, commands in zip(trace.deltas, trace.commands)]
    proc, parent, ports = _spawn(_relay_process, tables, SEATS, profile)
    run = Run(peers=SEATS)
    cpu0 = time.process_time()

    async def main() -> None:
        for t, port in enumerate(ports):
            async with trio.open_nursery() as nursery:
                for s in range(SEATS):
                    nursery.start_soon(_floor_peer, port, t, s, run, trace.commands[t][: len(tables[t])])

    _profiled(profile, "floor-peers", lambda: trio.run(main))
    run.peer_cpu = time.process_time() - cpu0
    run.host_cpu = _stop(proc, parent)
    return run


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def _summary(run: Run) -> dict[str, Any]:
    lat = run.latencies()
    seconds, commands = run.host_cpu
    return {
        "commands": len(lat),
        "p50_ms": round(statistics.median(lat) * 1000, 3),
        "p99_ms": round(_pct(lat, 0.99) * 1000, 3),
        "host_cpu_ms_per_command": round(seconds / commands * 1000, 3) if commands else None,
        "peers_cpu_ms_per_command": round(run.peer_cpu / len(lat) * 1000, 3) if lat else None,
    }


def latency(mode: str, games: int, repeat: int, first_seed: int, profile: str | None = None) -> dict[str, Any]:
    rounds = []
    for r in range(repeat):
        seeds = [first_seed + r * games + g for g in range(games)]
        game, trace = game_run(mode, seeds, profile=profile)
        floor = floor_run(trace, profile)
        g, f = _summary(game), _summary(floor)
        row = {
            "round": r + 1,
            "game": g,
            "floor": f,
            "p50_ratio": round(g["p50_ms"] / f["p50_ms"], 2),
            "p99_ratio": round(g["p99_ms"] / f["p99_ms"], 2),
            "mean_delta_bytes": round(statistics.mean(game.delta_bytes), 1),
            "mean_view_bytes": round(statistics.mean(game.view_bytes), 1),
            "load": os.getloadavg()[0],
        }
        print(json.dumps(row), file=sys.stderr)
        rounds.append(row)

    def med(get: Any) -> float:
        return round(statistics.median(get(x) for x in rounds), 3)

    return {
        "rounds": rounds,
        "median": {
            "game_p50_ms": med(lambda x: x["game"]["p50_ms"]),
            "game_p99_ms": med(lambda x: x["game"]["p99_ms"]),
            "floor_p50_ms": med(lambda x: x["floor"]["p50_ms"]),
            "floor_p99_ms": med(lambda x: x["floor"]["p99_ms"]),
            "p50_ratio": med(lambda x: x["p50_ratio"]),
            "p99_ratio": med(lambda x: x["p99_ratio"]),
            "host_cpu_ms_per_command": med(lambda x: x["game"]["host_cpu_ms_per_command"]),
            "floor_host_cpu_ms_per_command": med(lambda x: x["floor"]["host_cpu_ms_per_command"]),
            "peers_cpu_ms_per_command": med(lambda x: x["game"]["peers_cpu_ms_per_command"]),
            "floor_peers_cpu_ms_per_command": med(lambda x: x["floor"]["peers_cpu_ms_per_command"]),
        },
    }


# ---- capacity -------------------------------------------------------------------------------------


def _capacity_level(mode: str, tables: int, think: float, window: float, seed: int) -> Run:
    seeds = [seed + t for t in range(tables)]
    proc, parent, ports = _spawn(_host_process, mode, 4, seeds, None)
    run = Run(peers=4)

    async def main() -> None:
        with trio.move_on_after(window):
            async with trio.open_nursery() as nursery:
                for t, port in enumerate(ports):
                    for s in range(4):
                        nursery.start_soon(_game_peer, port, t, s, run, None, think, seed * 100 + t * 4 + s)

    trio.run(main)
    _stop(proc, parent)
    return run


def capacity(mode: str, think: float, window: float, max_tables: int, budget: float) -> dict[str, Any]:
    started = time.monotonic()
    best = 0
    rows = []
    for tables in (1, 10, 25, 50, 75, 100, 150, 200, 300, 400, 600, 800):
        if tables > max_tables or time.monotonic() - started > budget:
            break
        lat = _capacity_level(mode, tables, think, window, 1000 + tables).latencies()
        row = {
            "tables": tables,
            "commands": len(lat),
            "median_ms": round(statistics.median(lat) * 1000, 3) if lat else None,
            "p99_ms": round(_pct(lat, 0.99) * 1000, 3) if lat else None,
        }
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
        if not lat or row["p99_ms"] >= 50:
            break
        best = tables
    return {"tables": rows, "max_tables_p99_under_50ms": best, "think_s": think}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--mode", choices=["main", "shamblers"], default="main")
    ap.add_argument("--games", type=int, default=8, help="games per round of the latency part")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of the latency part (game run + floor run each)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the first game")
    ap.add_argument("--parts", default="latency", help="comma-separated: latency, capacity")
    ap.add_argument("--window", type=float, default=5.0, help="seconds of play per capacity level")
    ap.add_argument("--think", type=float, default=0.25, help="bot think time per command in the capacity part")
    ap.add_argument("--max-tables", type=int, default=200)
    ap.add_argument("--budget", type=float, default=120.0, help="seconds for the whole capacity search")
    ap.add_argument("--profile", metavar="DIR", help="write cProfile stats of the latency part's processes to DIR (figures then mean little)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    parts = set(args.parts.split(","))
    unknown = parts - {"latency", "capacity"}
    if unknown:
        ap.error(f"unknown part {sorted(unknown)[0]!r} (latency, capacity)")
    result: dict[str, Any] = {"mode": args.mode, "load_before": os.getloadavg()}
    if "latency" in parts:
        result["latency"] = latency(args.mode, args.games, args.repeat, args.seed, args.profile)
    if "capacity" in parts:
        result["capacity"] = capacity(args.mode, args.think, args.window, args.max_tables, args.budget)
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
