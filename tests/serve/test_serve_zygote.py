"""Visitors forked by the doors' warm parent (`serve.zygote`): each its own process, session,
controlling terminal, size and TERM; nothing left to import on the way to the first frame; one
killed leaves the others playing, and a zygote that dies is started again without taking anyone.

Real parts: a real `cthulhu host` process, the real zygote program, real pseudo-terminals with the
real `cthulhu join --kiosk` interface on each, read into a terminal emulator (pyte)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pyte

from cthulhu.serve.admission import Admission
from cthulhu.serve.doors import child_env
from cthulhu.serve.zygote import NAME, Zygote

from support.pty_term import set_size, sized_pty
from support.serve_helpers import CODE, HostProcess, parent_of, running

TESTS = Path(__file__).resolve().parents[1]  # the folder of the `support` package
TERMS = ["xterm-256color", "xterm", "screen-256color", "tmux-256color", "xterm-kitty", "alacritty", "foot", "rxvt-unicode-256color"]


class Visitor:
    """One visitor's interface on a pseudo-terminal of its own, and what it has drawn."""

    def __init__(self, cols: int, rows: int, term: str) -> None:
        self.cols, self.rows, self.term = cols, rows, term
        self.master, self.slave = sized_pty(cols, rows)
        self.tty = os.fstat(self.slave).st_rdev
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.child = None
        self.reaped = False
        os.set_blocking(self.master, False)

    def readable(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except (BlockingIOError, OSError):
            return
        self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def fits(self) -> bool:
        """Drawn at its own size: a rule as wide as its terminal, the title on its first row and the
        prompt bar at its foot (an interface that took another size would cut or leave them elsewhere)."""
        rows = self.screen.display
        return "─" * self.cols in rows and rows[0].lstrip().startswith("cthulhu") and any("choose" in row for row in rows[-3:])

    def resize(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows
        self.screen.resize(rows, cols)
        set_size(self.master, cols, rows)


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()  # state, ppid, pgrp, session, tty_nr, ...


async def _until(what, why: str, seconds: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not what():
        assert asyncio.get_running_loop().time() < deadline, why
        await asyncio.sleep(0.05)


def test_eight_visitors_from_the_warm_parent_each_their_own(tmp_path: Path) -> None:
    host = HostProcess(tmp_path / "data", "--seats", "2", "--bots", "1", "--seed", "7")
    logs = tmp_path / "logs"
    logs.mkdir()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        env = child_env(dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])))
        zygote = Zygote(env)
        admission = Admission(code=CODE, folder=tmp_path / "visitors")
        admission.table = ("127.0.0.1", host.port)
        visitors = [Visitor(80 + 6 * n, 24 + n, TERMS[n]) for n in range(8)]

        async def start(n: int, v: Visitor) -> None:
            visit = await admission.admit(address=f"127.0.0.{2 + n}", code=CODE, name=f"v{n}", identity=f"test:{n}", watch=True)
            assert visit.argv[1:3] == ["-m", "cthulhu.cli"]
            argv = [sys.executable, "-m", "support.zygote_probe", *visit.argv[3:]]  # the same command, its imports noted
            child_env_ = visit.env(dict(env, TERM=v.term, ZYGOTE_PROBE_LOG=str(logs / f"{n}.txt")))
            v.child = await zygote.spawn(argv, child_env_, (v.slave,) * 3, tty=True, on_reaped=lambda: setattr(v, "reaped", True))
            os.close(v.slave)
            loop.add_reader(v.master, v.readable)

        try:
            await zygote.warm()
            first_zygote = zygote.pid
            for n, v in enumerate(visitors):
                await start(n, v)
            # (the header may come a frame after the panes: each visitor's whole table, at its own size)
            await _until(lambda: all("Yard Gate" in v.text() and v.fits() for v in visitors), "every visitor to draw the table")
            pids = [v.child.pid for v in visitors]
            assert len(set(pids)) == 8 and os.getpid() not in pids and first_zygote not in pids
            for v in visitors:
                state, ppid, pgrp, session, tty_nr = _stat(v.child.pid)[:5]
                assert int(ppid) == first_zygote  # forked by the warm parent, not started by the doors
                assert int(session) == int(pgrp) == v.child.pid  # a session of its own...
                assert int(tty_nr) == v.tty  # ...whose controlling terminal is its own pseudo-terminal
                assert Path(f"/proc/{v.child.pid}/comm").read_text().strip() == NAME
                given, *imported = (logs / f"{visitors.index(v)}.txt").read_text().splitlines()
                assert given == f"{v.term} {v.cols}x{v.rows}"  # its own TERM and size
                assert imported == []  # nothing to import on its way to the first frame: all done in the parent
                assert v.fits(), (v.cols, v.rows, v.text())

            # One is killed: it alone goes (its exit status comes back); the others still answer, each
            # redrawing at a new size of its own (SIGWINCH from the kernel: its controlling terminal).
            dead, others = visitors[3], visitors[:3] + visitors[4:]
            dead.child.signal(signal.SIGKILL)
            assert await dead.child.reaped == -signal.SIGKILL and dead.reaped
            for n, v in enumerate(others):
                v.screen.reset()
                v.resize(100 + 3 * n, 30 + n)
            await _until(lambda: all("Yard Gate" in v.text() and v.fits() for v in others), "the others to redraw")
            assert all(v.child.running and running(v.child.pid) for v in others)

            # The zygote dies: nobody goes with it; the next visitor is forked by a new one.
            os.kill(first_zygote, signal.SIGKILL)
            await _until(lambda: zygote.pid != first_zygote, "a new zygote")
            ninth = Visitor(90, 28, "xterm-256color")
            await start(8, ninth)
            await _until(lambda: "Yard Gate" in ninth.text(), "the ninth visitor to draw the table")
            assert parent_of(ninth.child.pid) == zygote.pid != first_zygote
            assert all(v.child.running for v in others)
            orphan = others[0]  # its reaper is gone: its pidfd still says when it exits
            orphan.child.signal(signal.SIGTERM)
            assert await asyncio.wait_for(orphan.child.reaped, 30) == -1 and orphan.reaped
            for v in others[1:] + [ninth]:
                assert await v.child.stop() is not None and v.reaped
        finally:
            for v in visitors + ([ninth] if "ninth" in locals() else []):
                loop.remove_reader(v.master)
                if v.child is not None and v.child.running:
                    v.child.signal(signal.SIGKILL)
                    await v.child.reaped
                os.close(v.master)
            await zygote.close()

    try:
        asyncio.run(main())
    finally:
        host.stop()


def _live_children(pid: int) -> list[int]:
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if parent_of(int(proc.name)) == pid and running(int(proc.name)):
                found.append(int(proc.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def test_a_visitor_nobody_waits_for_any_more_does_not_run_unseen(tmp_path: Path) -> None:
    """The door gave up on a visitor (its connection dropped) while the zygote was forking it: that
    child is killed as soon as its pid comes back, never left running with nobody to stop it."""
    sleeper = [sys.executable, "-m", "timeit", "-n", "1", "import time; time.sleep(60)"]

    async def main() -> None:
        env = child_env()
        zygote = Zygote(env)
        null = os.open(os.devnull, os.O_RDWR)
        try:
            await zygote.warm()
            asked = asyncio.create_task(zygote.spawn(sleeper, env, (null, null, null), tty=False, on_reaped=lambda: None))
            await asyncio.sleep(0)  # the request is sent; the answer has not come back
            asked.cancel()
            try:
                await asked
            except asyncio.CancelledError:
                pass
            # The zygote answers in order: by the time the next visitor's answer is in, the first's came
            # back and was killed. Only the wanted one lives on.
            wanted = await zygote.spawn(sleeper, env, (null, null, null), tty=False, on_reaped=lambda: None)
            await _until(lambda: _live_children(zygote.pid) == [wanted.pid], "the unwanted child to be killed", 20)
            assert await wanted.stop() == -signal.SIGTERM
        finally:
            os.close(null)
            await zygote.close()

    asyncio.run(main())
