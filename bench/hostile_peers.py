"""Figures for a host facing hostile peers (bench/RESULTS.md, "Hostile peers").

    python bench/hostile_peers.py [--parts text,flood,cpu,frames,churn,doors,conns,disk] [--joins 5000] [--conns 1000] [--churn 4900]

Every part runs a real `cthulhu host --headless` process on 127.0.0.1 and real peers:

text   injection payloads (OSC 0/8/52, CSI 2J/21t, 8-bit C1, bidi, markup) sent as a
       name and chat by hostile peers, and by a hostile host, to a victim
       `cthulhu join --watch` in a real pseudo-terminal: how often each payload's
       control bytes reached the victim's terminal, and whether its text was shown.
flood  a chat burst (~260 frames per 4 KB write, repeated) and a join/leave flood
       (`--joins` spectators from 100 loopback addresses) while two seated peers play
       a whole game in lockstep: seated peers evicted, final hash == undisturbed run.
cpu    host CPU for the costliest first frames anyone can send before a hello:
       in-process (decode + check, as the host does) and end to end (the host
       process's own CPU time per connection carrying one such first frame).
frames the host process's own CPU time per frame after a hello, for every kind of
       frame a seated player or a spectator can send mid-game (pings, chat, refused
       commands and take-backs, bad and nested frames), the costliest first.
churn  `--churn` new connections a second that never say a word, from 70 loopback
       addresses, each held `--churn-hold` seconds, for 15 s; meanwhile a joiner
       says hello every half second: how long its connect and its welcome took,
       and the host process's CPU.
doors  the front doors (`host --ssh 0 --web 0`) under a crowd, with the real OpenSSH
       client and plain HTTP/websocket clients: a visitor past 64 idle sockets from
       four addresses (and how long it took); 40 simultaneous `ssh` from one address
       (how many got in, how many read a reason, how many a protocol error); 300
       fetches of each page from one address, then a visitor from another; 24 web
       visitors coming and going against the cap of 16 (the most processes at once,
       "Unknown child" lines); a 10 KB nested message from a page.
conns  `--conns` connections that go silent or dribble a frame byte by byte, before
       and after a hello, from many loopback addresses: host RSS growth, a real
       player's join latency meanwhile, and when each connection was closed
       against its deadline.
disk   the save folder fills up (or turns read-only) mid-game and frees up again:
       host exit code, tracebacks, steps on disk once space is back. A real tmpfs
       in a private mount namespace (`unshare -rm`) when that works, otherwise the
       host's RLIMIT_FSIZE; the output says which.

Wall times depend on the machine (2 shared cores here): they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the real-process helpers the tests use (tests/support)
sys.path.insert(0, str(ROOT / "tests" / "e2e"))  # and the hostile peers of its end-to-end tests

from support.hostile import EVIL_NAME, PAYLOADS, cthulhu, reached  # noqa: E402
from support.pty_term import PtyTerm  # noqa: E402
from support.host_proc import CODE, MODE, HostProcess, play, seat_players  # noqa: E402

from cthulhu.net.client import PeerSession, TrioPeer  # noqa: E402
from cthulhu.net.frames import HEADER, FrameDecoder, encode_frame  # noqa: E402
from cthulhu.net.messages import PROTOCOL_VERSION  # noqa: E402


def proc_stat(pid: int) -> tuple[float, int, int]:
    """(CPU seconds used, RSS bytes, peak RSS bytes) of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return cpu, int(status["VmRSS"].split()[0]) * 1024, int(status["VmHWM"].split()[0]) * 1024


def load_note() -> str:
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


# ---- text: what reaches a victim's terminal ---------------------------------------------------------


async def _victim_of_peers(tmp: Path) -> bytes:
    host = HostProcess(tmp, "--seats", "2", "--save", str(tmp / "text.save"))
    victim = None
    peers = []
    try:
        port, _ = await host.start()
        victim = PtyTerm(cthulhu("join", f"127.0.0.1:{port}", "--code", CODE, "--watch"), cols=200, rows=60)
        assert await trio.to_thread.run_sync(victim.read_until, b"watching", 30)
        payloads = [p for p, _, _ in PAYLOADS.values()]
        for n, chunk in enumerate((payloads[:4], payloads[4:8], payloads[8:] + ["END-OF-PAYLOADS"])):
            peer = await TrioPeer.connect("127.0.0.1", port, PeerSession(EVIL_NAME, code=CODE, watch=n > 0))
            peers.append(peer)
            while not peer.session.welcomed:
                await peer.receive()
            for line in chunk:
                peer.session.chat(line)
                await peer.flush()
                await trio.sleep(0.25)
        await trio.to_thread.run_sync(victim.read_until, b"END-OF-PAYLOADS", 20)
        victim.send("L")
        await trio.to_thread.run_sync(victim.read_until, b"open seat(s)", 10)
        await trio.to_thread.run_sync(victim.drain)
    finally:
        for p in peers:
            await p.aclose()
        if victim is not None:
            victim.close()
        host.close()
    return bytes(victim.data)


async def _victim_of_host() -> bytes:
    from test_hostile_text import _hostile_host

    async with trio.open_nursery() as nursery:
        port = await nursery.start(_hostile_host)
        victim = PtyTerm(cthulhu("join", f"127.0.0.1:{port}", "--watch"), cols=200, rows=60)
        try:
            await trio.to_thread.run_sync(victim.read_until, b"END-OF-PAYLOADS", 40)
            victim.send("L")
            await trio.to_thread.run_sync(victim.read_until, b"open seat(s)", 10)
            await trio.to_thread.run_sync(victim.drain)
        finally:
            victim.close()
        nursery.cancel_scope.cancel()
    return bytes(victim.data)


def part_text(tmp: Path) -> None:
    via_peers = trio.run(_victim_of_peers, tmp)
    via_host = trio.run(_victim_of_host)
    a, b = reached(via_peers), reached(via_host)
    print("\n## Injection payloads -> a victim's real terminal (`cthulhu join --watch` in a pty)")
    print("| payload | reached the terminal, via hostile peers | via a hostile host | text shown (defused) |")
    print("|---|---:|---:|---|")
    for name in PAYLOADS:
        print(f"| {name} | {a[name][0]} | {b[name][0]} | {'yes' if a[name][1] and b[name][1] else 'NO'} |")
    print(f"(victim terminal bytes: {len(via_peers):,} / {len(via_host):,})")


# ---- flood: a seated game under chat bursts and join/leave floods ------------------------------------


def part_flood(tmp: Path, joins: int) -> None:
    from test_hostile_traffic import Flood, chat_bursts, game_under, join_leave_flood, undisturbed

    async def nothing(port: int, flood: Flood) -> None:
        pass

    final, steps = undisturbed()
    rows = [
        ("none (the undisturbed run)", Flood(0), nothing),
        ("chat bursts: 260 frames per 4 KB write, 40 writes", Flood(40 * 260), chat_bursts),
        (f"{joins:,} spectator joins/leaves, 16 at a time, 100 addresses", Flood(joins),
         lambda port, f: join_leave_flood(port, f, workers=16)),
    ]
    print(f"\n## Floods during a seated two-player game ({steps} steps; real host process, lockstep seeded bots,")
    print("## the game paced so the whole flood lands before its last step)")
    print("| flood | sent (joins let in) | seated peers evicted | final hash = undisturbed run | step median / p99 (ms) | host warnings |")
    print("|---|---:|---:|---|---|---:|")
    for name, flood, run in rows:
        try:
            r = trio.run(game_under, tmp, flood, run)
        except BaseException as exc:  # a seated peer was closed, refused or fell out of step
            print(f"| {name} | {flood.sent:,} | 1+ | NO | - | - | {exc!r:.200}")
            continue
        ms = sorted(r.step_ms)
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        let_in = f" ({flood.welcomed:,})" if flood.welcomed else ""
        print(f"| {name} | {flood.sent:,}{let_in} | 0 | {'yes' if r.final == final else 'NO'} | "
              f"{statistics.median(ms):.1f} / {p99:.1f} | {len(r.stderr.splitlines())} |")


# ---- cpu: the costliest frames ------------------------------------------------------------------------


def _nested(header: bytes, n: int) -> bytes:
    return header * n


FIRST_FRAMES = {
    "1,023 nested array16 headers (3 KB, the issue's frame)": b"\xdc\xff\xff" * 1023,
    "169 nested array16 headers (507 B)": b"\xdc\xff\xff" * 169,
    "169 nested map16 headers (507 B)": b"\xde\xff\xff" * 169,
    "508 nested 4-wide arrays": b"\x94" * 508,
    "hello with every string at its longest (emoji name, code, token)": msgpack.packb(
        {"t": "hello", "proto": PROTOCOL_VERSION, "name": "\U0001f419" * 40, "code": "c" * 64, "seat": 0, "token": "t" * 64, "watch": False}),
    "508 random bytes": bytes((i * 131 + 7) % 256 for i in range(508)),
}


def _in_process_costs() -> dict[str, float]:
    """µs of CPU to decode and check each first frame as the host does, without the socket."""
    from cthulhu.net.frames import FrameError, decode_body
    from cthulhu.net.limits import FIRST_FRAME
    from cthulhu.net.messages import ProtocolError, parse_to_host

    out = {}
    for name, body in FIRST_FRAMES.items():
        runs = 200
        t0 = time.process_time()
        for _ in range(runs):
            try:
                parse_to_host(decode_body(body, FIRST_FRAME))
            except (FrameError, ProtocolError):
                pass
        out[name] = (time.process_time() - t0) / runs * 1e6
    return out


async def _end_to_end_first_frames(tmp: Path, per_frame: int) -> dict[str, float]:
    """Host process CPU per connection that carries one such first frame and is refused."""
    host = HostProcess(tmp, "--seats", "2", "--save", str(tmp / "cpu.save"))
    out = {}
    try:
        port, _ = await host.start()
        pid = host.proc.pid
        for name, body in FIRST_FRAMES.items():
            frame = HEADER.pack(len(body)) + body
            cpu0 = proc_stat(pid)[0]
            for n in range(per_frame):
                local = f"127.0.{1 + n // 200}.{1 + n % 200}"  # many addresses: no per-address limit kicks in
                stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=local)
                try:
                    await stream.send_all(frame)
                    while await stream.receive_some(4096):
                        pass
                except trio.BrokenResourceError:
                    pass
                await stream.aclose()
            await trio.sleep(0.5)
            out[name] = (proc_stat(pid)[0] - cpu0) / per_frame * 1e6
    finally:
        host.close()
    return out


def part_cpu(tmp: Path) -> None:
    costs = _in_process_costs()
    e2e = trio.run(_end_to_end_first_frames, tmp, 400)
    print("\n## Host CPU for the costliest first frames anyone can send (before a hello)")
    print("| frame | decode + check (µs) | host process, per connection carrying it (µs) |")
    print("|---|---:|---:|")
    for name, us in costs.items():
        print(f"| {name} | {us:.1f} | {e2e[name]:.0f} |")
    print(f"costliest in process: {max(costs.values()):.1f} µs; end to end: {max(e2e.values()):.0f} µs per connection")


# ---- frames: host CPU per frame after a hello, mid-game -------------------------------------------------


def host_cpu(pid: int) -> float:
    """CPU seconds of a process's main thread, to the nanosecond (/proc/PID/schedstat): where the
    host reads, checks and answers every frame (its worker threads only write saves)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


ANSWERS = ("pong", "rejected", "error", "snapshot")  # what the host sends back for the frames measured


class _Answers:
    """Reads one connection for as long as it is open (a seated player also answers the host's
    pings, so it is never closed as silent) and counts the answers it gets."""

    def __init__(self, stream: trio.SocketStream, session: PeerSession | None = None) -> None:
        self.stream, self.session, self.count = stream, session, 0
        self.decoder = FrameDecoder()
        self.moved = trio.Event()

    async def run(self) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            while data := await self.stream.receive_some(1 << 20):
                if self.session is not None:  # the player's own session: pings answered, views kept
                    got = [m.t for m in self.session.receive_data(data) if hasattr(m, "t")]
                    if out := self.session.data_to_send():
                        await self.stream.send_all(out)
                else:
                    got = [f.get("t") for f in self.decoder.feed(data) if isinstance(f, dict)]
                self.count += sum(1 for t in got if t in ANSWERS)
                self.moved.set()
                self.moved = trio.Event()

    async def until(self, count: int) -> int:
        with trio.move_on_after(60):
            while self.count < count:
                await self.moved.wait()
        return self.count


def _after_hello_frames(step: int) -> dict[str, tuple[bytes, str]]:
    """name -> (body, who sends it): "decider" (the seat deciding now), "other" (a seated player who
    is not deciding), "bad" (spectators, 40 a connection: a peer is closed after 50 bad frames)."""
    packb = msgpack.packb
    deep: object = 0
    for _ in range(6):
        deep = [deep]
    return {
        "ping": (packb({"t": "ping", "n": 1}), "decider"),
        "snapshot request": (packb({"t": "snapshot_request", "seq": 1, "reason": "x" * 200}), "decider"),
        "chat, 500 four-byte characters": (packb({"t": "chat", "text": "\U0001f419" * 500}), "decider"),
        "undo refused: nothing to take back": (packb({"t": "undo", "seq": 1, "version": step}), "decider"),
        "undo refused: another seat is deciding": (packb({"t": "undo", "seq": 1, "version": step}), "other"),
        "undo refused: stale version": (packb({"t": "undo", "seq": 1, "version": step - 1}), "decider"),
        "command refused: no such command": (packb({"t": "command", "seq": 1, "version": step, "command": {"kind": "nope"}}), "decider"),
        "command refused: not this seat's turn": (packb({"t": "command", "seq": 1, "version": step, "command": {"kind": "nope"}}), "other"),
        "command nested 7 deep": (packb({"t": "command", "seq": 1, "command": {"kind": "x", "d": deep}}), "decider"),
        "command, 13 args x 16 ints (too many values)": (packb({"t": "command", "seq": 1, "version": step,
                                               "command": {"kind": "x", **{f"a{n:02d}": list(range(16)) for n in range(13)}}}), "bad"),
        "command, 2 args x 16 ints (about the widest allowed)": (packb({"t": "command", "seq": 1, "version": step,
                                               "command": {"kind": "x", **{f"a{n:02d}": list(range(16)) for n in range(2)}}}), "decider"),
        "1 KB of nested 15-wide fixarrays": (b"\x9f" * 1024, "bad"),
        "1 KB of nested array16 headers": (b"\xdc\x00\x10" * 341, "bad"),
        "4 KB of nested array16 headers": (b"\xdc\x00\x10" * 1365, "bad"),
        "a map holding 1 KB of nested fixarrays": (b"\x81\xa1t" + b"\x91" * 1021, "bad"),
        "16 arrays of 16 empty arrays": (packb({"t": "command", "seq": 1, "command": {"kind": "x", "d": [[[]] * 16] * 16}}), "bad"),
        "4 KB of random bytes": (bytes((n * 131 + 7) % 256 for n in range(4096)), "bad"),
    }


async def _frame_costs(tmp: Path, runs: int) -> list[tuple[str, float, int]]:
    """(frame kind, host CPU µs per frame, answers seen) for each kind, best of `runs`."""
    host = HostProcess(tmp, "--seats", "2", "--seed", "5", "--save", str(tmp / "frames.save"))
    best: dict[str, tuple[float, int]] = {}
    try:
        port, _ = await host.start()
        players = await seat_players(port, 2, 50)
        await play(players, 12)  # mid-game: a history to take back from, or a reveal that forbids it
        decider = next(p for p in players if p.session.my_prompt is not None)
        readers = {p.name: _Answers(p.link.stream, p.session) for p in players}
        pid = host.proc.pid
        frames = _after_hello_frames(decider.step)

        async def spectator(n: int) -> trio.SocketStream:
            stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=f"127.0.8.{1 + n % 200}")
            await stream.send_all(encode_frame({"t": "hello", "proto": PROTOCOL_VERSION, "name": "bad", "code": CODE, "watch": True}))
            decoder = FrameDecoder()
            while not any(isinstance(f, dict) and f.get("t") == "welcome" for f in decoder.feed(await stream.receive_some(1 << 20))):
                pass
            return stream

        async def spectators(body: bytes | None, conns: int, each: int) -> tuple[float, int]:
            cpu0, got = host_cpu(pid), 0
            for n in range(conns):
                stream = await spectator(n)
                if body is not None:
                    await stream.send_all((HEADER.pack(len(body)) + body) * each)
                    async with trio.open_nursery() as nursery:
                        reader = _Answers(stream)
                        nursery.start_soon(reader.run)
                        got += await reader.until(each)
                        nursery.cancel_scope.cancel()
                await stream.aclose()
            await trio.sleep(0.2)
            return host_cpu(pid) - cpu0, got

        async with trio.open_nursery() as nursery:
            for reader in readers.values():
                nursery.start_soon(reader.run)
            for _ in range(runs):
                empty, _ = await spectators(None, 5, 0)  # what the connections alone cost, to take off
                for name, (body, who) in frames.items():
                    if who == "bad":
                        used, got = await spectators(body, 5, 40)
                        used -= empty
                        count = 5 * 40
                    else:
                        sender = decider if who == "decider" else next(p for p in players if p is not decider)
                        reader = readers[sender.name]
                        await trio.sleep(2.1)  # its frame budget (100 a second, 200 at once) full again
                        count, before = 200, reader.count
                        cpu0 = host_cpu(pid)
                        await sender.link.stream.send_all((HEADER.pack(len(body)) + body) * count)
                        got = 0 if name.startswith("chat") else await reader.until(before + count) - before
                        await trio.sleep(0.2)
                        used = host_cpu(pid) - cpu0
                    us = used / count * 1e6
                    if name not in best or us < best[name][0]:
                        best[name] = (us, got)
            nursery.cancel_scope.cancel()
        for p in players:
            await p.close()
    finally:
        host.close()
    dropped = [line for line in host.stderr().splitlines() if "disconnected" in line]
    assert not dropped, dropped  # a seated player closed by the host would spoil the figures
    return sorted(((name, us, got) for name, (us, got) in best.items()), key=lambda row: -row[1])


def part_frames(tmp: Path, runs: int) -> None:
    rows = trio.run(_frame_costs, tmp, runs)
    print(f"\n## Host process CPU per frame after a hello, mid-game (best of {runs}; costliest first)")
    print("| frame | µs of host CPU per frame | answered |")
    print("|---|---:|---:|")
    for name, us, got in rows:
        print(f"| {name} | {us:.0f} | {got} |")
    print(f"costliest: {rows[0][0]}, {rows[0][1]:.0f} µs")


# ---- churn: a crowd of new connections before hello ---------------------------------------------------


def _churner(port: int, rate: float, addresses: list[str], hold: float, until: float, sent) -> None:
    """Open `rate` connections a second (round the addresses), never write, close each after `hold` s."""
    import socket

    held: list[tuple[float, socket.socket]] = []
    count, start = 0, time.monotonic()
    while (now := time.monotonic()) < until:
        while count < (now - start) * rate:
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.bind((addresses[count % len(addresses)], 0))
                sock.connect_ex(("127.0.0.1", port))
                held.append((now + hold, sock))
            except OSError:
                sock.close()
            count += 1
        while held and held[0][0] <= now:
            held.pop(0)[1].close()
        time.sleep(0.002)
    for _, sock in held:
        sock.close()
    with sent.get_lock():
        sent.value += count


def _join_once(port: int) -> tuple[str, float, float]:
    """(outcome, seconds to connect, seconds to the welcome) for one spectator's hello."""
    import socket

    t0 = time.monotonic()
    with socket.socket() as sock:
        sock.bind(("127.0.200.1", 0))
        sock.settimeout(20)
        try:
            sock.connect(("127.0.0.1", port))
            connected = time.monotonic() - t0
            session = PeerSession("joiner", code=CODE, watch=True)
            sock.sendall(session.data_to_send())
            while not session.welcomed and session.closed is None:
                data = sock.recv(1 << 16)
                if not data:
                    return "closed", connected, time.monotonic() - t0
                session.receive_data(data)
        except OSError as exc:
            return type(exc).__name__, time.monotonic() - t0, time.monotonic() - t0
    return ("welcome" if session.welcomed else session.closed.code), connected, time.monotonic() - t0


def part_churn(tmp: Path, rate: int, hold: float, seconds: float = 15.0, workers: int = 2) -> None:
    import multiprocessing

    host = HostProcess(tmp, "--seats", "2", "--save", str(tmp / "churn.save"))
    try:
        port, _ = trio.run(host.start)
        cpu0 = proc_stat(host.proc.pid)[0]
        addresses = [f"127.0.1.{n}" for n in range(1, 71)]
        sent = multiprocessing.Value("i", 0)
        until = time.monotonic() + seconds
        crowd = [multiprocessing.Process(target=_churner, args=(port, rate / workers, addresses[k::workers], hold, until, sent))
                 for k in range(workers)]
        for p in crowd:
            p.start()
        time.sleep(1.0)
        joins = []
        while time.monotonic() < until - 0.5:
            joins.append(_join_once(port))
            time.sleep(0.5)
        for p in crowd:
            p.join()
        cpu = proc_stat(host.proc.pid)[0] - cpu0
    finally:
        host.close()
    welcomed = sorted(w for outcome, _, w in joins if outcome == "welcome")
    connects = sorted(c for _, c, _ in joins)
    print(f"\n## A churn of new connections that never say hello ({sent.value / seconds:,.0f} a second from 70 addresses, "
          f"each held {hold} s, {seconds:.0f} s), and a joiner saying hello every half second")
    print(f"joiners welcomed: {len(welcomed)} of {len(joins)} (others: {sorted({o for o, _, _ in joins} - {'welcome'})})")
    if welcomed:
        print(f"connect: median {statistics.median(connects) * 1e3:.0f} ms, max {connects[-1] * 1e3:.0f} ms; "
              f"connect to welcome: median {statistics.median(welcomed) * 1e3:.0f} ms, max {welcomed[-1] * 1e3:.0f} ms")
    print(f"host process CPU: {cpu:.1f} s over {seconds:.0f} s ({cpu / seconds:.0%} of a core)")
    lines = host.stderr().splitlines()
    print(f"host log: {len(lines)} lines, {host.stderr().count('Traceback')} tracebacks")


# ---- doors: the SSH and web doors under a crowd -------------------------------------------------------


def _ancestors(pid: int) -> set[int]:
    found: set[int] = set()
    while pid > 1 and pid not in found:
        found.add(pid)
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return found


def _door_host(tmp: Path):
    from support.serve_helpers import HostProcess as DoorHost

    return DoorHost(tmp / "doors-data", "--seats", "2", "--bots", "1", "--seed", "7", "--ssh", "0", "--web", "0")


def _ssh(host, key: Path, *extra: str) -> list[str]:
    return ["ssh", "-p", str(host.ssh_port), "-o", f"UserKnownHostsFile={key.parent / 'known_hosts'}", "-o", "StrictHostKeyChecking=accept-new",
            "-o", "ConnectTimeout=20", "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-i", str(key), *extra]


def _ssh_crowds(tmp: Path, key: Path) -> dict:
    """A visitor past 64 idle sockets; then 40 simultaneous `ssh -N` from one address."""
    import socket

    from support.serve_helpers import CODE as DOOR_CODE, Watcher

    out: dict = {}
    host = _door_host(tmp)
    try:
        idle = []
        for n in range(64):
            sock = socket.socket()
            sock.bind((f"127.0.0.{2 + n // 16}", 0))
            sock.connect(("127.0.0.1", host.ssh_port))
            idle.append(sock)
        watcher = Watcher(host.port)
        t0 = time.monotonic()
        visitor = subprocess.Popen(_ssh(host, key, "-tt", "-b", "127.0.0.6", f"vera+{DOOR_CODE}@127.0.0.1"),
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            watcher.until(lambda: any(name == "vera" and on for _, name, on in watcher.seats().values()), "the visitor seated", 60)
            out["visitor_seated_s"] = time.monotonic() - t0
        except AssertionError:
            out["visitor_seated_s"] = None
        visitor.kill()
        visitor.wait()
        watcher.close()
        for sock in idle:
            sock.close()

        crowd = [subprocess.Popen(_ssh(host, key, "-N", "-o", "LogLevel=VERBOSE", "-b", "127.0.0.7", f"{DOOR_CODE}@127.0.0.1"),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(40)]
        outcomes = {"logged in": 0, "read why not (Received disconnect ...)": 0, "a protocol error": 0}
        reasons: set[str] = set()
        for client in crowd:
            said = ""
            while "Authenticated to" not in said and "Received disconnect" not in said:
                line = client.stderr.readline()
                if not line:
                    break
                said += line
            if "Authenticated to" in said:
                outcomes["logged in"] += 1
            elif "Received disconnect" in said:
                outcomes["read why not (Received disconnect ...)"] += 1
                reasons.add(said.split("Received disconnect", 1)[1].split(":", 2)[-1].strip())
            else:
                outcomes["a protocol error"] += 1
        for client in crowd:
            client.kill()
            client.wait()
        out["ssh40"], out["ssh40_reasons"] = outcomes, sorted(reasons)
    finally:
        host.stop()
    out["ssh_log"] = host.stderr
    return out


async def _web_crowds(tmp: Path) -> dict:
    """300 fetches of each page from one address, then a visitor from another; 24 visitors against
    the cap; a nested message."""
    import aiohttp

    out: dict = {}
    host = _door_host(tmp)
    base = host.url.split("://", 1)[1].split("/", 1)[0]
    query = host.url.split("?", 1)[1]
    pid = host.proc.pid

    def kiosks() -> int:
        count = 0
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                if (proc / "comm").read_text().strip() == "cthulhu-visitor" and pid in _ancestors(int(proc.name)):  # forked by the doors' zygote
                    count += 1
            except (OSError, ValueError, IndexError):
                continue
        return count

    def session(address: str) -> aiohttp.ClientSession:
        return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))

    async def pass_for(web: aiohttp.ClientSession, name: str, as_: str = "sit") -> str | None:
        async with web.get(f"http://{base}/table?{query}&name={name}&as={as_}") as page:
            found = re.search(r"/ws/([\w-]+)", await page.text()) if page.status == 200 else None
        return found.group(1) if found else None

    try:
        statuses: dict[int, int] = {}
        async with session("127.0.0.2") as looper:
            for path in (f"/?{query}", f"/table?{query}&name=loop&as=sit"):
                for _ in range(300):
                    async with looper.get(f"http://{base}{path}") as page:
                        await page.read()
                        statuses[page.status] = statuses.get(page.status, 0) + 1
        out["fetch_statuses"] = statuses
        async with session("127.0.0.3") as web:
            pass_ = await pass_for(web, "ann")
            seated = False
            if pass_:
                async with web.ws_connect(f"ws://{base}/ws/{pass_}?width=80&height=24") as ws:
                    end = time.monotonic() + 20
                    while time.monotonic() < end and not seated:
                        message = await ws.receive(timeout=20)
                        seated = message.type == aiohttp.WSMsgType.BINARY and len(message.data) > 100  # the interface drew
                    await ws.send_str("[" * 5000 + "]" * 5000)
                    notice = None
                    while notice is None and time.monotonic() < end + 10:
                        message = await ws.receive(timeout=10)
                        if message.type == aiohttp.WSMsgType.TEXT and "notice" in message.data:
                            notice = json.loads(message.data)[1]
                    await ws.send_str('["stdin", "x"]')
                    out["nested_notice"], out["nested_still_open"] = notice, not ws.closed
            out["visitor_after_fetches"] = seated

        peak = 0
        said: list[str] = []

        async def visitor(n: int) -> None:
            rng = __import__("random").Random(n)
            async with session(f"127.0.1.{10 + n}") as web:
                for _ in range(2):
                    pass_ = await pass_for(web, f"v{n}", "watch")
                    if pass_ is None:
                        continue
                    async with web.ws_connect(f"ws://{base}/ws/{pass_}?width=80&height=24") as ws:
                        end = time.monotonic() + rng.uniform(0.5, 6)
                        while time.monotonic() < end and not ws.closed:
                            try:
                                message = await ws.receive(timeout=0.5)
                            except asyncio.TimeoutError:
                                continue
                            if message.type == aiohttp.WSMsgType.BINARY and b"cthulhu:" in message.data:
                                said.append(message.data.decode(errors="replace").strip())
                    await asyncio.sleep(rng.uniform(0, 0.5))

        async def sample() -> None:
            nonlocal peak
            while True:
                peak = max(peak, await asyncio.to_thread(kiosks))
                await asyncio.sleep(0.05)

        sampler = asyncio.create_task(sample())
        await asyncio.gather(*(visitor(n) for n in range(24)))
        sampler.cancel()
        left = time.monotonic()
        while kiosks() and time.monotonic() - left < 30:  # each is asked to quit, then stopped (3 s), then killed (3 s)
            await asyncio.sleep(0.1)
        out["peak"], out["left_running"], out["refusals"] = peak, kiosks(), sorted(set(said))
        out["last_gone_s"] = time.monotonic() - left
    finally:
        host.stop()
    log = host.stderr
    out["unknown_child"] = log.count("Unknown child")
    out["nested_log_lines"] = sum("refused a message from the page" in line for line in log.splitlines())
    out["tracebacks"] = log.count("Traceback")
    return out


def part_doors(tmp: Path) -> None:
    import asyncio as _asyncio

    key = tmp / "ssh" / "visitor"
    key.parent.mkdir(exist_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    ssh = _ssh_crowds(tmp, key)
    web = _asyncio.run(_web_crowds(tmp))
    print("\n## The front doors under a crowd (real OpenSSH client, plain HTTP and websocket clients)")
    print("| | measured |")
    print("|---|---|")
    seated = ssh["visitor_seated_s"]
    print(f"| `ssh` visitor from a fifth address while 64 idle sockets (16 from each of four addresses) are held | "
          f"{'seated in %.1f s' % seated if seated is not None else 'NOT seated'} |")
    print(f"| 40 simultaneous `ssh -N` from one address | " + ", ".join(f"{v} {k}" for k, v in ssh["ssh40"].items()) + " |")
    print(f"| ... the reasons they read | {'; '.join(ssh['ssh40_reasons'])} |")
    print(f"| 300 fetches of the link and 300 of the sit-down page from one address | statuses {web['fetch_statuses']} |")
    print(f"| a visitor from another address right after | {'sat down' if web['visitor_after_fetches'] else 'NOT admitted'} |")
    print(f"| a 10 KB nested message from that page | page told: {web['nested_notice']!r}; session still open: "
          f"{web['nested_still_open']}; host log lines: {web['nested_log_lines']} |")
    print(f"| 24 web visitors coming and going, cap 16 | at most {web['peak']} visitor processes at once; the last one gone "
          f"{web['last_gone_s']:.1f} s after the last visitor left ({web['left_running']} still running); "
          f"refusals read: {web['refusals'][:2]} |")
    print(f"| \"Unknown child process\" lines in the host log | {web['unknown_child']} |")
    print(f"| tracebacks in the host logs | {web['tracebacks'] + ssh['ssh_log'].count('Traceback')} |")


# ---- conns: many silent or dribbling connections ------------------------------------------------------


async def _conns(tmp: Path, total: int) -> dict:
    from cthulhu.net.limits import Limits

    limits = Limits()
    host = HostProcess(tmp, "--seats", "2", "--save", str(tmp / "conns.save"))
    stats: dict = {"closed_at": {}, "opened": {}, "refused": 0}
    hello = encode_frame({"t": "hello", "proto": PROTOCOL_VERSION, "name": "quiet", "code": CODE, "watch": True})
    kinds = ["silent before hello", "dribbling before hello", "silent after hello", "dribbling after hello"]
    deadline = {
        kinds[0]: limits.hello_timeout, kinds[1]: limits.hello_timeout,
        kinds[2]: limits.idle_timeout + limits.pong_timeout, kinds[3]: limits.idle_timeout + limits.pong_timeout,
    }
    try:
        port, _ = await host.start()
        pid = host.proc.pid
        await trio.sleep(0.5)
        _, rss0, _ = proc_stat(pid)
        latencies: list[float] = []
        token: list[str | None] = [None]

        async def real_player() -> None:
            t0 = time.perf_counter()
            peer = await TrioPeer.connect("127.0.0.1", port, PeerSession("real", code=CODE, seat=0, token=token[0]))
            while not peer.session.welcomed:
                if not await peer.receive():
                    raise RuntimeError(f"the real player was refused: {peer.session.closed}")
            latencies.append(time.perf_counter() - t0)
            token[0] = peer.session.token
            await peer.aclose()

        async def attacker(n: int, kind: str) -> None:
            local = f"127.0.{1 + n // 250}.{1 + n % 250}"  # 4 connections per address
            t0 = time.perf_counter()
            try:
                stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=local)
            except OSError:
                stats["refused"] += 1
                return
            stats["opened"][n] = kind
            try:
                if "after" in kind:
                    await stream.send_all(hello)
                if "dribbling" in kind:  # one byte a second of a frame it never finishes
                    for byte in HEADER.pack(500 if "before" in kind else 4000) + b"\x80" * 4000:
                        await stream.send_all(bytes([byte]))
                        with trio.move_on_after(1):
                            if await stream.receive_some(65536) == b"":
                                break
                else:  # reads what comes (a ping, after a hello), never says a thing
                    while await stream.receive_some(65536):
                        pass
                stats["closed_at"][n] = (kind, time.perf_counter() - t0)
            except (trio.BrokenResourceError, OSError):
                stats["closed_at"][n] = (kind, time.perf_counter() - t0)
            finally:
                await stream.aclose()

        peak = rss0
        async with trio.open_nursery() as nursery:
            await real_player()
            for n in range(total):
                nursery.start_soon(attacker, n, kinds[n % 4])
                if n % 50 == 49:
                    await trio.sleep(0.05)
            t_attack = time.perf_counter()
            while time.perf_counter() - t_attack < deadline[kinds[2]] + 5 and len(stats["closed_at"]) < len(stats["opened"]):
                await real_player()
                peak = max(peak, proc_stat(pid)[1])
                await trio.sleep(1.0)
            # Silent post-hello connections neither read nor answer: the host must close them itself.
            nursery.cancel_scope.deadline = trio.current_time() + 5
        _, rss1, hwm = proc_stat(pid)
        stats.update(rss0=rss0, rss_peak=max(peak, hwm), rss_after=rss1, latencies=latencies, deadline=deadline)
    finally:
        host.close()
    stats["stderr_lines"] = len(host.stderr().splitlines())
    stats["tracebacks"] = host.stderr().count("Traceback")
    return stats


def part_conns(tmp: Path, total: int) -> None:
    s = trio.run(_conns, tmp, total)
    lat = sorted(s["latencies"])
    print(f"\n## {total:,} silent or dribbling connections (a quarter of each kind, 4 per loopback address)")
    print(f"host RSS: {s['rss0'] / 1e6:.1f} MB before, peak {s['rss_peak'] / 1e6:.1f} MB (+{(s['rss_peak'] - s['rss0']) / 1e6:.1f} MB), "
          f"{s['rss_after'] / 1e6:.1f} MB after")
    print(f"a real player's join (connect -> welcome) while they are held: median {statistics.median(lat) * 1e3:.1f} ms, "
          f"max {max(lat) * 1e3:.1f} ms over {len(lat)} joins")
    print("| kind | connections | closed by the host: median / latest (s) | deadline (s) | still open at the end |")
    print("|---|---:|---:|---:|---:|")
    for kind, deadline in s["deadline"].items():
        opened = [n for n, k in s["opened"].items() if k == kind]
        closed = sorted(t for n, (k, t) in s["closed_at"].items() if k == kind)
        print(f"| {kind} | {len(opened)} | {statistics.median(closed):.1f} / {max(closed):.1f} | {deadline:.0f} | {len(opened) - len(closed)} |")
    print(f"host stderr: {s['stderr_lines']} lines, {s['tracebacks']} tracebacks")


# ---- disk: the save folder fills up or turns read-only ------------------------------------------------


def _tmpfs_works() -> bool:
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d"],
                           capture_output=True, timeout=20)
    return probe.returncode == 0 and shutil.which("nsenter") is not None


class TmpfsHost(HostProcess):
    """`cthulhu host` in a private mount namespace with its save folder on a small tmpfs."""

    def __init__(self, tmp: Path, folder: Path, size_kb: int, *args: str) -> None:
        self.folder = folder
        inner = " ".join(["exec", *map(_quote, [sys.executable, "-m", "cthulhu.cli", "host", "--headless", "--port", "0",
                                                 "--code", CODE, *args])])
        script = f"mount -t tmpfs -o size={size_kb}k tmpfs {_quote(str(folder))} && {inner}"
        self.err_path = tmp / f"host-{id(self)}.err"
        self._err = open(self.err_path, "w")
        self.proc = subprocess.Popen(["unshare", "-rm", "sh", "-c", script], stdout=subprocess.PIPE, stderr=self._err, text=True)
        self.lines = []

    def inside(self, name: str) -> Path:
        return Path(f"/proc/{self.proc.pid}/root") / str(self.folder).lstrip("/") / name

    def nsenter(self, *cmd: str) -> None:
        for _ in range(50):  # a remount waits out a save being written (EBUSY)
            done = subprocess.run(["nsenter", "-t", str(self.proc.pid), "-U", "-m", "--preserve-credentials", *cmd], capture_output=True)
            if done.returncode == 0:
                return
            time.sleep(0.1)
        done.check_returncode()


def _quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


async def _disk(tmp: Path, how: str, trouble: str) -> dict:
    from cthulhu.savegame import load

    seed, seats = 11, 2
    folder = tmp / f"saves-{how}-{trouble}"
    folder.mkdir()
    args = ["--mode", MODE, "--seats", str(seats), "--seed", str(seed), "--save", str(folder / "t.save")]
    host = TmpfsHost(tmp, folder, 512, *args) if how == "tmpfs" else HostProcess(tmp, *args)
    path = (lambda name: host.inside(name)) if how == "tmpfs" else (lambda name: folder / name)
    players = []
    out: dict = {}
    try:
        port, _ = await host.start()
        players = await seat_players(port, seats, seed * 10)
        await play(players, 8)

        def break_disk() -> None:
            if how == "rlimit":
                resource.prlimit(host.proc.pid, resource.RLIMIT_FSIZE, (os.path.getsize(path("t.save")), resource.RLIM_INFINITY))
            elif trouble == "full":
                fd = os.open(path("filler"), os.O_WRONLY | os.O_CREAT, 0o600)
                try:
                    while os.write(fd, b"\0" * 4096):
                        pass
                except OSError:  # ENOSPC: the folder is full
                    pass
                finally:
                    os.close(fd)
            else:
                host.nsenter("mount", "-o", "remount,ro", str(folder))

        def mend_disk() -> None:
            if how == "rlimit":
                resource.prlimit(host.proc.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            elif trouble == "full":
                os.unlink(path("filler"))
            else:
                host.nsenter("mount", "-o", "remount,rw", str(folder))

        break_disk()
        await play(players, 10)
        out["steps_while_broken"] = 10
        out["on_disk_while_broken"] = load(path("t.save")).last_step
        mend_disk()
        await play(players, 1)
        out["peers_step_after_mend"] = players[0].step
        out["on_disk_after_mend"] = load(path("t.save")).last_step
        break_disk()
        await play(players)  # to the end, the disk broken again: the final save fails too
        for p in players:
            await p.close()
        code, stdout = await host.wait()
        out["exit"] = code
        out["final_line"] = any(line.startswith("Game over at step") for line in stdout.splitlines())
    finally:
        for p in players:
            await p.close()
        host.close()
    err = host.stderr()
    out["tracebacks"] = err.count("Traceback")
    out["warnings"] = err.count("could not save")
    out["first_warning"] = next((line for line in err.splitlines() if "could not save" in line), "")
    return out


def part_disk(tmp: Path) -> None:
    how = "tmpfs" if _tmpfs_works() else "rlimit"
    cases = [("full", how), ("read-only", "tmpfs")] if how == "tmpfs" else [("full (RLIMIT_FSIZE)", "rlimit")]
    print(f"\n## Disk trouble mid-game ({'a 512 KB tmpfs in a private mount namespace' if how == 'tmpfs' else 'RLIMIT_FSIZE: no tmpfs here'})")
    print("| save folder | exit code | final line | tracebacks | warnings (episodes) | steps on disk once writable again / steps played |")
    print("|---|---:|---|---:|---:|---|")
    for trouble, way in cases:
        try:
            r = trio.run(_disk, tmp, way, trouble.split()[0])
        except subprocess.CalledProcessError as exc:  # `mount -o remount,ro` refuses while a file there is open for writing
            print(f"| {trouble} | - | - | - | - | not measured: {' '.join(exc.cmd[-4:])} failed ({exc.returncode}); "
                  "the host holds its save's lock file open for writing |")
            continue
        print(f"| {trouble} | {r['exit']} | {'yes' if r['final_line'] else 'NO'} | {r['tracebacks']} | {r['warnings']} (2) | "
              f"{r['on_disk_after_mend']} / {r['peers_step_after_mend']} (while broken: {r['on_disk_while_broken']}) |")
        print(f"  first warning: {r['first_warning'][:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default="text,flood,cpu,frames,churn,doors,conns,disk")
    parser.add_argument("--joins", type=int, default=5000)
    parser.add_argument("--conns", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3, help="frames: best of this many runs per frame kind")
    parser.add_argument("--churn", type=int, default=4900, help="churn: new connections a second")
    parser.add_argument("--churn-hold", type=float, default=0.5, help="churn: seconds each one is held open")
    args = parser.parse_args()
    parts = args.parts.split(",")
    print(f"# bench/hostile_peers.py --parts {args.parts} ({load_note()})")
    tmp = Path(tempfile.mkdtemp(prefix="cthulhu-hostile-"))
    try:
        if "text" in parts:
            part_text(tmp)
        if "flood" in parts:
            part_flood(tmp, args.joins)
        if "cpu" in parts:
            part_cpu(tmp)
        if "frames" in parts:
            part_frames(tmp, args.runs)
        if "churn" in parts:
            part_churn(tmp, args.churn, args.churn_hold)
        if "doors" in parts:
            part_doors(tmp)
        if "conns" in parts:
            part_conns(tmp, args.conns)
        if "disk" in parts:
            part_disk(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n(done; {load_note()})")


if __name__ == "__main__":
    main()
