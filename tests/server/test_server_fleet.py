"""Several real `cthulhu server` processes on one PostgreSQL database (the tests' own throwaway
cluster): any lobby lists every table, a hello at the wrong process is redirected, a table whose
owner died or stalled is taken by another from the database, and a SIGTERM hands its tables on."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from cthulhu.net.client import PeerSession, play_seat
from cthulhu.net.lobbyclient import open_lobby
from cthulhu.net.lobbymessages import Created
from cthulhu.net.messages import Delta, Welcome

pytestmark = pytest.mark.trio


class ServerProcess:
    """`cthulhu server --store URL` in a process of its own, its printed lines read."""

    def __init__(self, folder: Path, url: str, *args: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.stderr_path = folder / "server.stderr"
        self._stderr = open(self.stderr_path, "wb")
        env = dict(os.environ, XDG_DATA_HOME=str(folder), PYTHONUNBUFFERED="1")
        argv = [sys.executable, "-m", "cthulhu.cli", "server", "--store", url, "--port", "0", "--data", str(folder / "data"), *args]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self._stderr, env=env, text=True)
        lines: list[str] = []
        deadline = time.monotonic() + 60
        while not any(line.startswith("Fleet:") for line in lines) and time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            lines.append(line)
        found = re.search(r"cthulhu join 127\.0\.0\.1:(\d+)", "".join(lines))
        if found is None or not any(line.startswith("Fleet:") for line in lines):
            self.stop()
            pytest.fail(f"the server did not start: {''.join(lines)}\n{self.stderr}")
        self.port = int(found.group(1))

    @property
    def stderr(self) -> str:
        if not self._stderr.closed:
            self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()
        return self.proc.returncode


@pytest.fixture
def fleet(tmp_path, pg_url):
    """Start processes on one database (`fleet(name, *args)`); all stopped at the end."""
    started: list[ServerProcess] = []

    def start(name: str, *args: str) -> ServerProcess:
        process = ServerProcess(tmp_path / name, pg_url, "--lease", "2", *args)
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()


async def _make_table(port: int, **kw) -> str:
    async with open_lobby("127.0.0.1", port, "Maker", "key-maker") as lobby:
        args = dict(mode="main", options={}, seats=2, bots=1, bot="random", bot_delay_ms=0)
        args.update(kw)
        created = await lobby.create(**args)
        assert isinstance(created, Created), created
        return created.id


async def _listed(port: int, table: str) -> dict:
    async with open_lobby("127.0.0.1", port, "Looker", "key-looker") as lobby:
        while True:
            page = await lobby.tables()
            rows = {row.id: row for row in page.rows}
            if table in rows:
                return rows[table]
            await trio.sleep(0.005)


class Seat:
    """A bot playing seat 1 of `table` from `port` (its home), in the background; what it was told."""

    def __init__(self, port: int, table: str) -> None:
        self.port = port
        self.session = PeerSession("Ann", table_id=table, ident="key-ann")
        self.welcomes = 0
        self.told = -1  # the newest step it was told
        self.gaps: list[tuple[int, int]] = []  # (told, welcomed at) where a welcome came back to an older step
        self.done = trio.Event()

    def _messages(self, session: PeerSession, messages: list) -> None:
        for msg in messages:
            if isinstance(msg, Welcome):
                self.welcomes += 1
                if msg.view["step"] < self.told:
                    self.gaps.append((self.told, msg.view["step"]))
                self.told = max(self.told, msg.view["step"])
            elif isinstance(msg, Delta) and msg.cmd is not None:
                self.told = max(self.told, msg.step)

    async def run(self) -> None:
        try:
            await play_seat("127.0.0.1", self.port, session=self.session, reconnect_for=120, on_messages=self._messages)
        finally:
            self.done.set()

    async def until(self, check, timeout: float = 60) -> None:
        with trio.fail_after(timeout):
            while not check():
                await trio.sleep(0.02)


async def test_a_table_made_at_one_process_is_listed_by_both_and_played_through_the_other(fleet, nursery):
    a = fleet("a")
    b = fleet("b", "--lease", "2")
    table = await _make_table(a.port)
    started = trio.current_time()
    rows = [await _listed(b.port, table), await _listed(a.port, table)]
    took = trio.current_time() - started
    print(f"both lobbies listed the new table {took * 1000:.0f} ms after its creation was acknowledged")
    assert all(row.seats[0].status == "open" for row in rows) and all(row.seats[1].status == "bot" for row in rows)
    seat = Seat(b.port, table)  # at the process that does not run it
    nursery.start_soon(seat.run)
    await seat.until(lambda: seat.session.deltas >= 3)
    assert seat.welcomes == 1 and seat.session.seat == 0 and seat.session.closed is None
    row = await _listed(b.port, table)
    with trio.fail_after(90):  # (a net against a hang only: four processes and a cluster share the cores under load)
        while row.seats[0].status != "person":  # B lists what A plays
            await trio.sleep(0.3)  # (each look is a new lobby session: below the server's 5 hellos a second from one address)
            row = await _listed(b.port, table)
    assert "Ann sat down at seat 1" in a.stderr and "sat down" not in b.stderr  # played at A, through B


async def test_kill_9_of_the_owner_hands_its_table_to_another_process_and_nothing_told_is_lost(fleet, nursery):
    a = fleet("a")
    b = fleet("b")
    table = await _make_table(a.port)
    seat = Seat(b.port, table)  # redirected to A; home is B
    nursery.start_soon(seat.run)
    await seat.until(lambda: seat.session.deltas >= 2)
    a.signal(signal.SIGKILL)
    a.proc.wait()
    told = seat.told
    await seat.until(lambda: seat.welcomes >= 2 and seat.told > told + 2, timeout=90)  # B took it from the database
    assert seat.gaps == []  # no step it was told was lost: B's welcome was at the newest or later
    assert seat.session.resyncs == 0 and not seat.session.mirror.stale  # and every hash since agrees with B's
    assert seat.session.seat == 0 and seat.session.closed is None
    assert "Ann is back at seat 1" in b.stderr


async def test_a_stalled_owner_is_refused_after_another_took_its_table(fleet, nursery):
    a = fleet("a")
    b = fleet("b")
    table = await _make_table(a.port)
    seat = Seat(a.port, table)  # at the owner itself, home A
    nursery.start_soon(seat.run)
    await seat.until(lambda: seat.session.deltas >= 2)
    a.signal(signal.SIGSTOP)
    try:
        await trio.sleep(3)  # past its 2 s lease (on the database's clock)
        watcher = PeerSession("Wes", table_id=table, watch=True)
        with trio.move_on_after(60) as waited:
            await play_seat("127.0.0.1", b.port, session=watcher,
                            on_messages=lambda s, m: any(isinstance(x, Welcome) for x in m) and waited.cancel())
        assert watcher.welcomed, "B did not take the table over"
    finally:
        a.signal(signal.SIGCONT)
    with trio.fail_after(60):
        while "another process of this server took it over" not in a.stderr:
            await trio.sleep(0.05)
    assert "Traceback" not in a.stderr


async def test_sigterm_sends_the_owners_peers_to_another_process_at_once(fleet, nursery):
    a = fleet("a")
    b = fleet("b")
    await _make_table(b.port)  # (B holds a lease: a live process A can send its peers to)
    table = await _make_table(a.port)
    seat = Seat(a.port, table)  # at the owner, and home there too: only A's redirect can take it to B
    nursery.start_soon(seat.run)
    await seat.until(lambda: seat.session.deltas >= 2)
    stopped = trio.current_time()
    a.signal(signal.SIGTERM)
    await seat.until(lambda: seat.welcomes >= 2, timeout=30)
    took = trio.current_time() - stopped
    print(f"the peer was welcomed at B {took * 1000:.0f} ms after A's SIGTERM")
    assert a.proc.wait(30) == 0
    assert f"handed off 1 table to 127.0.0.1:{b.port}" in a.stderr, a.stderr
    assert "Ann is back at seat 1" in b.stderr
    told = seat.told
    await seat.until(lambda: seat.told > told + 2)  # and plays on there
    assert seat.gaps == [] and seat.session.resyncs == 0



async def test_sigterm_hands_a_turn_clock_on_with_only_the_time_it_had_left(fleet, nursery):
    """Ann must decide at a turn-based table at A; A is stopped (SIGTERM) and she takes her time
    to follow its redirect to B. B's clock gives her what she had when A stopped, not less: the
    hand-off and her way to B cost her none (a clock kept as a wall-clock deadline would)."""
    from cthulhu.net.client import TrioPeer

    a = fleet("a")
    b = fleet("b")
    await _make_table(b.port)  # (B holds a lease: a live process A can send its peers to)
    table = await _make_table(a.port, turn_time=60, on_timeout="stand-in")
    session = PeerSession("Ann", table_id=table, ident="key-ann")
    ann = await TrioPeer.connect("127.0.0.1", a.port, session)
    with trio.fail_after(30):  # (her clock starts once she is seated: the news after her welcome)
        while not session.welcomed or session.table.clock is None or session.table.clock.seat is None:
            assert await ann.receive()
    clock = session.table.clock
    assert clock.seat == session.seat and clock.left_ms is not None, clock
    told_at, left_at_a = trio.current_time(), clock.left_ms / 1000
    await trio.sleep(1.5)  # her clock runs at A
    stopped = trio.current_time()
    a.signal(signal.SIGTERM)
    with trio.fail_after(30):
        while session.redirect is None and await ann.receive():
            pass
    await ann.aclose()
    to = session.redirect
    assert to is not None and to.port == b.port, session.closed
    assert a.proc.wait(30) == 0
    dawdled = 3.0
    await trio.sleep(dawdled)  # she takes her time on the way: the table waits, stopped
    session.restart()
    ann = await TrioPeer.connect(to.host, to.port, session)
    with trio.fail_after(30):
        while not session.welcomed or session.table.clock is None or session.table.clock.seat is None:
            assert await ann.receive()
    await ann.aclose()
    clock = session.table.clock
    assert clock.seat == session.seat and clock.left_ms is not None, clock
    left_at_b = clock.left_ms / 1000
    ran_at_a = stopped - told_at  # at least this ran before A stopped it (and A stops it within a moment)
    print(f"left at A {left_at_a:.2f} s, ran there {ran_at_a:.2f} s, left at B {left_at_b:.2f} s after {dawdled} s away")
    assert left_at_b <= left_at_a - ran_at_a + 0.05  # what ran at A stays spent
    assert left_at_b >= left_at_a - ran_at_a - 1.0  # and nothing more than A's moment to stop it: not the time away


async def test_a_closed_tables_deadline_is_met_once_with_three_processes_up(fleet, nursery):
    """Ann sits at a turn-based table with a webhook and goes; its owner stops (SIGTERM: the table
    is closed and nobody's). With three processes up, each rings the deadline; one takes the table,
    one stand-in plays each turn that runs out, and each notice is posted once."""
    import json

    from cthulhu.net.client import TrioPeer

    from support.http_sink import Sink

    sink = Sink()
    await nursery.start(sink.serve)
    allow = ("--notify-allow", f"http://127.0.0.1:{sink.port}/hook/*")
    others = [fleet(name, *allow) for name in "bcd"]
    a = fleet("a", *allow)
    table = await _make_table(a.port, turn_time=5, on_timeout="stand-in", notify=sink.url)  # (A hands off well before)
    ann = await TrioPeer.connect("127.0.0.1", a.port, PeerSession("Ann", table_id=table, ident="key-ann"))
    with trio.fail_after(30):
        while not ann.session.welcomed:
            assert await ann.receive()
    await ann.aclose()  # she goes: the clock runs on for her
    a.signal(signal.SIGTERM)
    assert a.proc.wait(30) == 0 and "handed off 1 table" in a.stderr
    stood: list[str] = []
    paused = False
    with trio.move_on_after(180):  # (a net against a hang only: five processes and a cluster share the cores under load)
        while not stood or not paused:  # (a round nobody played: it pauses)
            if stood:
                paused = (await _listed(others[0].port, table)).paused
            await trio.sleep(0.3)  # (each look is a new lobby session: below the server's 5 hellos a second from one address)
            stood = [line for p in others for line in p.stderr.splitlines() if f"table {table}: a stand-in decided step" in line]
    row = await _listed(others[0].port, table)
    assert stood and paused, f"{row.step=} {row.to_move=} {row.deadline=} {row.paused=} {row.seats=}; " + "no process met the deadline: " + "\n".join(f"{p.port}: {p.stderr[-1500:]}" for p in [a, *others])
    steps = [re.search(r"decided step (\d+)", line).group(1) for line in stood]
    assert len(steps) == len(set(steps))  # every deadline met once, across the processes
    assert sum(f"table {table}: a stand-in" in p.stderr for p in others) == 1  # by the one that took it
    told = [(post["json"]["kind"], post["json"]["turn"]) for post in sink.posts]
    assert len(told) == len(set(told)) and len(told) >= 2, json.dumps(sink.posts)[:2000]  # each notice once


async def test_a_deadline_that_rings_while_a_dead_owner_still_holds_the_lease_is_met_after_it(fleet, nursery):
    """Ann sits at a turn-based table at A and goes; A is killed (-9) while it still holds the
    table's lease, a lease longer than her clock. B's alarm rings at her deadline, finds the lease
    A's, and looks again once a lease could have run out: a stand-in plays her turn there."""
    from cthulhu.net.client import TrioPeer

    b = fleet("b")
    a = fleet("a", "--lease", "8")
    table = await _make_table(a.port, turn_time=3, on_timeout="stand-in")
    ann = await TrioPeer.connect("127.0.0.1", a.port, PeerSession("Ann", table_id=table, ident="key-ann"))
    with trio.fail_after(30):
        while not ann.session.welcomed:
            assert await ann.receive()
    await ann.aclose()
    with trio.fail_after(30):  # B knows her deadline (from A's notice) before A dies
        while (await _listed(b.port, table)).deadline is None:
            await trio.sleep(0.3)
    a.signal(signal.SIGKILL)
    a.proc.wait()
    with trio.fail_after(90):  # (8 s of A's lease, then B's next look: a net against a hang only)
        while f"table {table}: a stand-in decided step" not in b.stderr:
            await trio.sleep(0.3)
