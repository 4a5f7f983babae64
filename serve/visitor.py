"""A visitor's interface process, from its start to its exit.

Each visitor's `cthulhu join --kiosk` is a child of the visitors' zygote
(`zygote.Zygote`), which alone reaps it and reports its exit status. The door
holds a pidfd for it: signals go through the pidfd, which names this very
process for as long as it is open (never a recycled pid), and a zygote that
dies leaves the pidfd to say when the process exits.

`Child.reaped` finishes when the exit status is in, and only then is the
visit released (`on_reaped`): the doors' cap counts every visitor process
from its start to its exit, whatever stops it and however its session
ends (a closed tab, a dropped connection, the doors closing).

Its connection to the host closes with it, so the seat waits for its token as for any dropped joiner.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable

STOP_GRACE = 3.0  # seconds a join process gets to leave before it is killed


class Child:
    """One visitor process (already started): signal it, stop it, know when it is reaped."""

    def __init__(self, pid: int, pidfd: int, status: asyncio.Future[int], on_reaped: Callable[[], None]) -> None:
        """`status`: its exit status, as its reaper tells it (negative: killed by that signal; -1 also unknown)."""
        self.pid = pid
        self.pidfd: int | None = pidfd
        self._status = status
        self._on_reaped = on_reaped
        self.reaped: asyncio.Task[int] = asyncio.get_running_loop().create_task(self._reap())

    async def _reap(self) -> int:
        try:
            return await asyncio.shield(self._status)
        finally:
            if self.pidfd is not None:
                os.close(self.pidfd)
                self.pidfd = None
            self._on_reaped()

    @property
    def running(self) -> bool:
        return not self.reaped.done() and not self._status.done()

    def signal(self, signum: int) -> None:
        """Send `signum` if it is still running; never reaps it, never reaches another process."""
        if not self.running:
            return
        try:
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd, signum)
        except ProcessLookupError:
            pass  # it exited; its reaper will say so

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
