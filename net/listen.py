"""Accepting connections, including at the open-file limit.

`trio.serve_listeners` logs a full traceback every 100 ms while the process is
out of file descriptors, and the waiting clients hang in the backlog. Here the
first `EMFILE` of an episode is one WARNING line, and every client that arrives
meanwhile still gets a clean refusal: one descriptor is kept in reserve, given
up to accept the newcomer, who is told ``host_full`` and closed, and taken back.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Awaitable, Callable

import trio

log = logging.getLogger("cthulhu.net.host")

_OUT_OF_RESOURCES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


def _spare() -> int | None:
    try:
        return os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return None


async def refuse(stream: trio.abc.Stream, refusal: bytes, grace: float = 0.5) -> None:
    """Send one last frame and close so that the peer gets to read it: half-close (where the
    stream can), then drain what it had already sent for up to `grace` seconds (closing a socket
    with unread input would reset the connection, and the peer might never see why)."""
    try:
        with trio.move_on_after(grace):
            await stream.send_all(refusal)
            if isinstance(stream, trio.abc.HalfCloseableStream):
                await stream.send_eof()
            while await stream.receive_some(4096):
                pass
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass
    finally:
        await stream.aclose()


async def accept_forever(
    listener: trio.SocketListener,
    handler: Callable[[trio.SocketStream], Awaitable[None]],
    refusal: bytes,
    nursery: trio.Nursery,
) -> None:
    """Start `handler(stream)` for each connection; at the descriptor limit send `refusal` and close."""
    spare = _spare()
    exhausted = False
    try:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno not in _OUT_OF_RESOURCES:
                    raise
                if not exhausted:
                    exhausted = True
                    log.warning("out of file descriptors (%s); refusing new connections until some close", errno.errorcode.get(exc.errno or 0, exc.errno))
                if spare is None:
                    await trio.sleep(0.1)
                else:
                    os.close(spare)
                    spare = None
                    try:
                        with trio.move_on_after(1):
                            await refuse(await listener.accept(), refusal, grace=0.2)
                    except OSError:  # someone else took the descriptor first
                        await trio.sleep(0.1)
                    spare = _spare()
                continue
            exhausted = False
            nursery.start_soon(handler, stream)
    finally:
        if spare is not None:
            os.close(spare)
