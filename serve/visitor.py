"""Ending a visitor's interface process: SIGTERM, then SIGKILL after a grace period, always reaped.

Its connection to the host closes with it, so the seat waits for its token as for any dropped joiner.
"""

from __future__ import annotations

import asyncio

STOP_GRACE = 3.0  # seconds a join process gets to leave before it is killed


async def stop_process(proc: asyncio.subprocess.Process | None) -> None:
    if proc is None:
        return
    if proc.returncode is None:
        try:
            proc.terminate()
            await asyncio.wait_for(proc.wait(), STOP_GRACE)
        except asyncio.TimeoutError:
            proc.kill()
        except ProcessLookupError:
            pass
    await proc.wait()  # reaped while the loop is open: no transport outlives it
