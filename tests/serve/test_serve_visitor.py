"""Visitors' interface processes are counted from their start to their reaped exit, and nothing
ever reports a made-up exit status for one ("Unknown child process pid N").

Real processes throughout: the real web door (in this process) has its zygote fork real
`cthulhu join --kiosk` processes for real websocket clients, against a real host process.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re

import pytest

from cthulhu.serve.admission import Admission
from cthulhu.serve.doors import FrontDoors

from support.serve_helpers import CODE, HostProcess, visitor_pids


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


def _visitor_processes() -> int:
    """This process's descendants that are visitors' interfaces."""
    return len(visitor_pids(under=os.getpid()))


def test_visitors_coming_and_going_never_run_more_processes_than_the_cap(tmp_path, asyncio_log):
    """The small real version of `bench/hostile_peers.py --parts doors` (24 visitors, cap 16): six
    browsers' websockets from six addresses, for a web door with room for two. At no moment do
    more than two visitor processes run; the others are told so (on the form, before a pass, or by the
    terminal, when the room went between the two); every process is reaped."""
    import aiohttp

    host = HostProcess(tmp_path / "data", "--seats", "2", "--bots", "2", "--bot-delay", "5")
    doors = FrontDoors(bind="127.0.0.1", code=CODE, web_port=0, data_dir=tmp_path / "doors",
                       admission=Admission(code=CODE, folder=tmp_path / "visitors", max_sessions=2))
    peak = 0
    said: list[str] = []
    try:
        (line,) = doors.start()
        doors.open_table("127.0.0.1", host.port)
        doors.warm()  # so that the first visitors do not spend their second waiting for it
        base = re.search(r"http://(\S+?)/", line).group(1)

        async def visitor(n: int) -> None:
            connector = aiohttp.TCPConnector(local_addr=(f"127.0.0.{20 + n}", 0))
            async with aiohttp.ClientSession(connector=connector) as session:
                for visit in range(2):
                    async with session.get(f"http://{base}/table?code={CODE}&name=v{n}&as=watch") as page:
                        text = await page.text()
                    given = re.search(r"/ws/([\w-]+)", text)
                    if given is None:  # no room now: said on the form, before any pass (a blank terminal)
                        assert page.status == 503 and "too many visitors at this table" in text, text
                        said.append(text)
                        continue
                    pass_ = given.group(1)
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
