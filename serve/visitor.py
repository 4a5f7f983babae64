"""A visitor's interface process, from its start to its reaped exit.

Each visitor's `cthulhu join --kiosk` is a child of the host, started with
asyncio, whose watcher thread collects the child's exit status (it waits on
that one pid). Anything else that collects it first leaves that thread with
nothing to collect: it logs "Unknown child process pid N, will report
returncode 255" and reports a made-up exit code. asyncio's own
`Process.send_signal/terminate/kill` are such a thing: `Popen.send_signal`
polls the child before signalling it (so as not to signal a recycled pid),
and that poll reaps a child that has just exited, under the watcher's nose.
So signals here go through a pidfd, which names this very process for as long
as it is open and never reaps it (Linux; elsewhere `kill` while no exit status
is known), and only the watcher reaps.

`Child.reaped` finishes when the exit status is in, and only then is the
visit released (`on_reaped`): the doors' cap counts every visitor process
from its start to its reaped exit, whatever stops it and however its session
ends (a closed tab, a dropped connection, the doors closing).

Its connection to the host closes with it, so the seat waits for its token as for any dropped joiner.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable

STOP_GRACE = 3.0  # seconds a join process gets to leave before it is killed


def _pidfd(pid: int) -> int | None:
    open_ = getattr(os, "pidfd_open", None)
    if open_ is None:
        return None
    try:
        return int(open_(pid))
    except OSError:  # gone already (then nothing will be signalled), or no pidfds here
        return None


class Child:
    """One visitor process (already started): signal it, stop it, know when it is reaped."""

    def __init__(self, proc: asyncio.subprocess.Process, on_reaped: Callable[[], None]) -> None:
        self.proc = proc
        self.pid = proc.pid
        self._pidfd = _pidfd(proc.pid)
        self._on_reaped = on_reaped
        self.reaped: asyncio.Task[int] = asyncio.get_running_loop().create_task(self._reap())

    async def _reap(self) -> int:
        try:
            return await self.proc.wait()  # the watcher thread's waitpid: the one reaper
        finally:
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None
            self._on_reaped()

    @property
    def running(self) -> bool:
        return not self.reaped.done() and self.proc.returncode is None

    def signal(self, signum: int) -> None:
        """Send `signum` if it is still running; never reaps it, never reaches another process."""
        if not self.running:
            return
        try:
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signum)
            else:
                os.kill(self.pid, signum)
        except ProcessLookupError:
            pass  # it exited; the watcher will say so

    async def stop(self) -> int:
        """SIGTERM, then SIGKILL after `STOP_GRACE` seconds; returns its exit status once reaped.
        Cancelling the caller does not cancel the reaping (nor the release that follows it)."""
        if self.running:
            self.signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(asyncio.shield(self.reaped), STOP_GRACE)
            except asyncio.TimeoutError:
                self.signal(signal.SIGKILL)
        return await asyncio.shield(self.reaped)
