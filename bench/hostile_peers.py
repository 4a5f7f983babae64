"""Figures for a host facing hostile peers (README, "A hostile peer cannot hurt a table").

    python bench/hostile_peers.py [--parts text,flood,cpu,conns,disk] [--joins 5000] [--conns 1000]

Every part runs a real `cthulhu host --headless` process on 127.0.0.1 and real peers:

text   injection payloads (OSC 0/8/52, CSI 2J/21t, 8-bit C1, bidi, markup) sent as a
       name and chat by hostile peers, and by a hostile host, to a victim
       `cthulhu join --watch` in a real pseudo-terminal: how often each payload's
       control bytes reached the victim's terminal, and whether its text was shown.
flood  a chat burst (~260 frames per 4 KB write, repeated) and a join/leave flood
       (`--joins` spectators from 100 loopback addresses) while two seated peers play
       a whole game in lockstep: seated peers evicted, final hash == undisturbed run.
cpu    host CPU per frame for the costliest frames anyone can send: in-process
       (decode + validate + handle, as the host does) and end to end (the host
       process's own CPU time per connection carrying one such first frame).
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
import os
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
sys.path.insert(0, str(ROOT / "tests"))  # the real-process helpers the tests use

from hostile import EVIL_NAME, PAYLOADS, Terminal, cthulhu, reached  # noqa: E402
from test_host_crash import CODE, MODE, HostProcess, play, seat_players  # noqa: E402

from cthulhu.net.client import PeerSession, TrioPeer  # noqa: E402
from cthulhu.net.frames import HEADER, encode_frame  # noqa: E402


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
        victim = Terminal(cthulhu("join", f"127.0.0.1:{port}", "--code", CODE, "--watch"), 200, 60)
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
        victim = Terminal(cthulhu("join", f"127.0.0.1:{port}", "--watch"), 200, 60)
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
        {"t": "hello", "proto": 1, "name": "\U0001f419" * 40, "code": "c" * 64, "seat": 0, "token": "t" * 64, "watch": False}),
    "508 random bytes": bytes((i * 131 + 7) % 256 for i in range(508)),
}


def _later_frames() -> dict[str, bytes]:
    wide = {"kind": "move", **{f"a{n:02d}": list(range(16)) for n in range(13)}}
    deep: object = 0
    for _ in range(6):
        deep = [deep] * 16
    return {
        "command, 13 args x 16 ints (the widest allowed)": msgpack.packb({"t": "command", "seq": 1, "version": 0, "command": wide}),
        "command nested 8 deep, 16 wide (cut at 4 KB)": msgpack.packb({"t": "command", "seq": 1, "command": {"kind": "x", "d": deep}})[:4096],
        "chat, 500 control characters": msgpack.packb({"t": "chat", "text": "\x1b" * 500}),
        "chat, 500 four-byte characters": msgpack.packb({"t": "chat", "text": "\U0001f419" * 500}),
        "snapshot request": msgpack.packb({"t": "snapshot_request", "seq": 1, "reason": "x" * 200}),
        "4 KB of nested 16-wide array headers": b"\xdc\x00\x10" * 1365,
    }


def _in_process_costs() -> list[tuple[str, str, float]]:
    """(stage, frame, µs of CPU) for the host's handling of one frame, without the socket."""
    from cthulhu.core import Command, Game, Rejected, Setup
    from cthulhu.net.frames import FrameError, decode_body
    from cthulhu.net.limits import FIRST_FRAME, PEER_FRAME
    from cthulhu.net.messages import Chat, CommandMsg, ProtocolError, parse_to_host
    from cthulhu.net.textclean import clean_chat

    game = Game.new(Setup(seed=1, players=2))

    def handle(body: bytes, limits) -> None:
        try:
            msg = parse_to_host(decode_body(body, limits))
        except (FrameError, ProtocolError):
            return
        if isinstance(msg, CommandMsg):
            try:
                game.apply(game.prompt.seat, Command.from_wire(msg.command), msg.version)
            except Rejected:
                pass
        elif isinstance(msg, Chat):
            clean_chat(msg.text)

    out = []
    for stage, frames, limits in (("before hello", FIRST_FRAMES, FIRST_FRAME), ("after hello", _later_frames(), PEER_FRAME)):
        for name, body in frames.items():
            runs = 200
            t0 = time.process_time()
            for _ in range(runs):
                handle(body, limits)
            out.append((stage, name, (time.process_time() - t0) / runs * 1e6))
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
    print("\n## Host CPU per frame (the costliest frames anyone can send)")
    print("| stage | frame | decode + validate + handle (µs) | host process, per connection carrying it (µs) |")
    print("|---|---|---:|---:|")
    for stage, name, us in costs:
        whole = e2e.get(name)
        print(f"| {stage} | {name} | {us:.1f} | {'' if whole is None else f'{whole:.0f}'} |")
    print(f"costliest in process: {max(us for _, _, us in costs):.1f} µs; end to end: {max(e2e.values()):.0f} µs per connection")


# ---- conns: many silent or dribbling connections ------------------------------------------------------


async def _conns(tmp: Path, total: int) -> dict:
    from cthulhu.net.limits import Limits

    limits = Limits()
    host = HostProcess(tmp, "--seats", "2", "--save", str(tmp / "conns.save"))
    stats: dict = {"closed_at": {}, "opened": {}, "refused": 0}
    hello = encode_frame({"t": "hello", "proto": 1, "name": "quiet", "code": CODE, "watch": True})
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
        subprocess.run(["nsenter", "-t", str(self.proc.pid), "-U", "-m", "--preserve-credentials", *cmd], check=True, capture_output=True)


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
        r = trio.run(_disk, tmp, way, trouble.split()[0])
        print(f"| {trouble} | {r['exit']} | {'yes' if r['final_line'] else 'NO'} | {r['tracebacks']} | {r['warnings']} (2) | "
              f"{r['on_disk_after_mend']} / {r['peers_step_after_mend']} (while broken: {r['on_disk_while_broken']}) |")
        print(f"  first warning: {r['first_warning'][:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default="text,flood,cpu,conns,disk")
    parser.add_argument("--joins", type=int, default=5000)
    parser.add_argument("--conns", type=int, default=1000)
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
        if "conns" in parts:
            part_conns(tmp, args.conns)
        if "disk" in parts:
            part_disk(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n(done; {load_note()})")


if __name__ == "__main__":
    main()
