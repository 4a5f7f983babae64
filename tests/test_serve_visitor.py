"""Visitors' interface processes are counted from their start to their reaped exit, and only
asyncio's watcher ever reaps them (so it never logs "Unknown child process pid N").

Real processes throughout: a child of this test that exits while the door signals it, and the
real web door (in this process) starting real `cthulhu join --kiosk` processes for real
websocket clients, against a real host process.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import threading
from pathlib import Path

import pytest

from cthulhu.serve.admission import Admission
from cthulhu.serve.doors import FrontDoors
from cthulhu.serve.visitor import Child

from serve_helpers import CODE, HostProcess


class _Asyncio(logging.Handler):
    """What asyncio logs (its child watcher speaks through the "asyncio" logger)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def asyncio_log():
    handler = _Asyncio()
    logger = logging.getLogger("asyncio")
    logger.addHandler(handler)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)


async def _stopped_just_after_it_exited() -> int | str:
    """Start a child that exits by itself, keep asyncio's watcher thread from collecting it (it may
    run only when nothing else would, on the one CPU this thread spins on), and stop the child the
    moment it has exited: the door's signal comes when only a reaper other than the watcher could
    collect it. Its exit status, or "lost" if the watcher collected it first after all."""
    proc = await asyncio.create_subprocess_exec("/bin/sh", "-c", "sleep 0.05; exit 3")
    watcher = max((t for t in threading.enumerate() if "waitpid" in t.name and t.is_alive()), key=lambda t: int(t.name.rsplit("-", 1)[1]))
    assert watcher.native_id is not None
    os.sched_setscheduler(watcher.native_id, os.SCHED_IDLE, os.sched_param(0))
    child = Child(proc, lambda: None)
    try:
        while os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            pass
    except ChildProcessError:
        return "lost"
    child.signal(signal.SIGTERM)
    return await child.stop()


def test_a_visitor_stopped_as_it_exits_is_reaped_by_the_watcher_alone(asyncio_log):
    """asyncio's own `terminate()` polls the child first and so reaps it behind the watcher's back:
    the watcher then logs "Unknown child process pid N, will report returncode 255" and reports 255
    (what the host's log showed for 6 of 24 web visitors). `Child` signals through a pidfd, which
    never reaps: the true exit status comes back, and asyncio says nothing."""
    outcomes: list[int | str] = []

    def one_cpu() -> None:  # this thread, and the watcher threads and children it starts, on one CPU
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        for _ in range(100):
            outcomes.append(asyncio.run(_stopped_just_after_it_exited()))
            if outcomes.count(3) >= 3:
                return

    runner = threading.Thread(target=one_cpu)
    runner.start()
    runner.join(120)
    caught = [o for o in outcomes if o != "lost"]
    assert len(caught) >= 3, outcomes  # the moment was really caught, more than once
    assert caught == [3] * len(caught), outcomes
    assert not [line for line in asyncio_log if "Unknown child" in line], asyncio_log


def _visitor_processes() -> int:
    """This process's children that are visitors' interfaces."""
    count = 0
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent == os.getpid() and b"--kiosk" in (proc / "cmdline").read_bytes():
                count += 1
        except (OSError, ValueError, IndexError):
            continue
    return count


def test_visitors_coming_and_going_never_run_more_processes_than_the_cap(tmp_path, asyncio_log):
    """The small real version of `bench/hostile_peers.py --parts doors` (24 visitors, cap 16): six
    browsers' websockets from six addresses, for a web door with room for two. At no moment do
    more than two visitor processes run; the others are told so; every process is reaped."""
    import aiohttp

    host = HostProcess(tmp_path / "data", "--seats", "2", "--bots", "2", "--bot-delay", "5")
    doors = FrontDoors(bind="127.0.0.1", code=CODE, web_port=0, data_dir=tmp_path / "doors",
                       admission=Admission(code=CODE, folder=tmp_path / "visitors", max_sessions=2))
    peak = 0
    said: list[str] = []
    try:
        (line,) = doors.start()
        doors.open_table("127.0.0.1", host.port)
        base = re.search(r"http://(\S+?)/", line).group(1)

        async def visitor(n: int) -> None:
            connector = aiohttp.TCPConnector(local_addr=(f"127.0.0.{20 + n}", 0))
            async with aiohttp.ClientSession(connector=connector) as session:
                for visit in range(2):
                    async with session.get(f"http://{base}/table?code={CODE}&name=v{n}&as=watch") as page:
                        pass_ = re.search(r"/ws/([\w-]+)", await page.text()).group(1)
                    async with session.ws_connect(f"ws://{base}/ws/{pass_}?width=80&height=24") as ws:
                        await ws.send_str('["resize", {"width": 80, "height": 24}]')
                        deadline = asyncio.get_running_loop().time() + 1.0 + 0.4 * n
                        while not ws.closed and asyncio.get_running_loop().time() < deadline:
                            try:
                                message = await asyncio.wait_for(ws.receive(), 0.2)
                            except asyncio.TimeoutError:
                                continue
                            if message.type == aiohttp.WSMsgType.BINARY and b"cthulhu:" in message.data:
                                said.append(message.data.decode(errors="replace"))

        async def sample() -> None:
            nonlocal peak
            while True:
                peak = max(peak, await asyncio.to_thread(_visitor_processes))
                await asyncio.sleep(0.02)

        async def main() -> None:
            sampler = asyncio.create_task(sample())
            try:
                await asyncio.wait_for(asyncio.gather(*(visitor(n) for n in range(6))), 120)
            finally:
                sampler.cancel()

        asyncio.run(main())
    finally:
        doors.stop()
        host.stop()
    assert 1 <= peak <= 2, peak
    assert any("too many visitors at this table" in s for s in said), said
    assert _visitor_processes() == 0
    assert doors.admission.sessions == []  # each one let go, once reaped
    assert not [line for line in asyncio_log if "Unknown child" in line], asyncio_log
