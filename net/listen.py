"""Accepting connections: a doorstep where newcomers wait for their first frame, fairly, without a task each.

A connection that has not sent a whole first frame has proved nothing, and a
crowd of them is the cheapest way to keep a table busy: thousands of new
connections a second from a few dozen addresses. So the accept loop takes every
pending connection at once (the kernel's queue never overflows and drops a real
joiner's), and each one waits on the `Doorstep`: one selector for all of them,
no task, no cancel scope, only its socket. Only a connection whose first frame
has arrived whole (or whose length header is already wrong) becomes a task of
the host (`handler(stream, first_bytes)`). The doorstep is a `Crowd`: at most
`max_unverified_per_address` from one address and `max_unverified` in all; the
oldest of an address over its share, or of the address holding the most, is
told `too_many_connections` and closed, so a joiner from another address is
never the one pushed out by someone else's crowd. (The crowd is the gate's:
connections on other streams, `Host.handle`, wait in it too, each in its task.) One waiting longer than the
hello deadline is told `timeout` and closed.

At the open-file limit, `trio.serve_listeners` would log a traceback every
100 ms while clients hang in the backlog; here the first `EMFILE` of an episode
is one WARNING line, and every client that arrives meanwhile still gets a clean
refusal: one descriptor is kept in reserve, given up to accept the newcomer,
who is told ``host_full`` and closed, and taken back.
"""

from __future__ import annotations

import errno
import logging
import math
import os
import selectors
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import trio

from .frames import HEADER, FrameDecoder, FrameError, FrameTooLarge, encode_frame
from .gate import CROWDED, Gate
from .limits import Limits

if TYPE_CHECKING:
    from .messages import Hello

log = logging.getLogger("cthulhu.net.host")

_OUT_OF_RESOURCES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
REFUSAL_WAIT = 0.25  # at the descriptor limit, how long a refused newcomer's first bytes are awaited (one at a time)
ACCEPT_BATCH = 256  # connections taken from the kernel's queue before other tasks get a turn

Handler = Callable[[trio.SocketStream, bytes], Awaitable[None]]


def error_frame(code: str, reason: str) -> bytes:
    """The fatal `error` a connection is closed with (built here from the same message model)."""
    return _fatal(code, reason)


def _fatal(code: str, reason: str, details: list[str] | None = None) -> bytes:
    from .messages import Error

    return encode_frame(Error(code=code, reason=reason, fatal=True, details=details or []).wire())


async def read_hello(stream: trio.abc.Stream, address: str, first: bytes, limits: Limits, gate: Gate) -> tuple[Hello, FrameDecoder] | None:
    """A connection's hello: from `first` (a whole first frame read on the doorstep), else read
    within the hello deadline, the connection meanwhile waiting among those that have said nothing
    yet (`Gate.unverified`: if too many wait, someone's oldest is closed to make room). Anything
    else is refused with one fatal frame, logged once a flood, and None returned. The decoder
    holds whatever came after the hello, still to be decoded (under the limits its reader sets)."""
    from .messages import Hello, ProtocolError, parse_to_host

    first_limits = limits.first_frame
    decoder = FrameDecoder(first_limits)
    try:
        frames = decoder.feed(first, max_frames=1)
        if not frames:
            key = object()
            turned_away = False

            def turn_away() -> None:
                nonlocal turned_away
                turned_away = True
                waiting.cancel()

            with trio.CancelScope() as waiting:
                gate.unverified(key, address, turn_away)
                try:
                    with trio.move_on_after(limits.hello_timeout):
                        while not frames:
                            data = await stream.receive_some(first_limits.frame + 4)
                            if not data:
                                return None
                            frames = decoder.feed(data, max_frames=1)
                finally:
                    gate.verified(key)
            if turned_away:
                await refuse(stream, _fatal(CROWDED.code, CROWDED.reason))
                return None
    except FrameTooLarge as exc:
        await refuse(stream, _fatal(exc.code, exc.reason))
        return None
    if not frames:
        gate.quiet.warn("hello timeout", trio.current_time(), "closed a connection from %s: no hello in time", address)
        await refuse(stream, _fatal("timeout", "no hello in time"))
        return None
    try:
        frame = frames[0]
        if isinstance(frame, FrameError):
            raise frame
        hello = parse_to_host(frame)
        if not isinstance(hello, Hello):
            raise ProtocolError("the first message must be a hello")
    except (FrameError, ProtocolError) as exc:
        gate.quiet.warn("first frame", trio.current_time(), "closed a connection from %s: its first frame was no hello (%s)", address, exc.code)
        await refuse(stream, _fatal(exc.code, exc.reason, exc.details if isinstance(exc, ProtocolError) else None))
        return None
    return hello, decoder


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


def _say_and_close(sock: socket.socket, frame: bytes) -> None:
    """A last frame, then close. What the peer sent meanwhile is read first: a socket closed with
    input unread is reset, and the peer might lose the frame before reading it."""
    try:
        sock.setblocking(False)
        sock.recv(65536)
    except OSError:
        pass
    try:
        sock.send(frame)
    except OSError:
        pass
    sock.close()


@dataclass(eq=False, slots=True)
class _Newcomer:
    sock: socket.socket
    address: str
    since: float
    data: bytearray


class Doorstep:
    """Connections waiting for their first frame (see the module's docstring), in the gate's
    crowd of those that have said nothing yet (`Gate.unverified`). Not thread-safe: only the
    host's trio tasks use it."""

    def __init__(self, limits: Limits, gate: Gate) -> None:
        self.limits = limits
        self.gate = gate
        self.waiting: dict[int, _Newcomer] = {}  # by file descriptor, in the order they came
        self.selector = selectors.DefaultSelector()
        self._frame = limits.first_frame.frame + HEADER.size  # the most a first frame can take
        self._crowded = error_frame(CROWDED.code, CROWDED.reason)
        self._late = error_frame("timeout", "no hello in time")

    def arrive(self, sock: socket.socket, address: str) -> None:
        sock.setblocking(False)
        fd = sock.fileno()
        self.waiting[fd] = _Newcomer(sock, address, self.gate.clock(), bytearray())
        self.selector.register(fd, selectors.EVENT_READ)
        self.gate.unverified(("doorstep", fd), address, lambda: _say_and_close(self._leave(fd).sock, self._crowded))

    def _leave(self, fd: int) -> _Newcomer:
        self.gate.verified(("doorstep", fd))
        self.selector.unregister(fd)
        return self.waiting.pop(fd)

    def ready(self) -> list[_Newcomer]:
        """Read what arrived; the connections whose first frame is whole (or can never be) leave."""
        out = []
        for key, _ in self.selector.select(0):
            newcomer = self.waiting.get(int(key.fd))
            if newcomer is None:
                continue
            try:
                data = newcomer.sock.recv(self._frame - len(newcomer.data))
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:  # gone before it said anything
                self._leave(int(key.fd)).sock.close()
                continue
            newcomer.data += data
            if len(newcomer.data) >= HEADER.size:
                (length,) = HEADER.unpack_from(newcomer.data)
                if not 0 < length <= self.limits.first_frame.frame or len(newcomer.data) >= HEADER.size + length:
                    out.append(self._leave(int(key.fd)))
        return sorted(out, key=lambda newcomer: newcomer.since)  # first come, first handed on

    def expire(self) -> float:
        """Close those past the hello deadline; when the next one will be (inf: nobody waits)."""
        now = self.gate.clock()
        while (fd := next(iter(self.waiting), None)) is not None:
            newcomer = self.waiting[fd]
            due = newcomer.since + self.limits.hello_timeout
            if due > now:
                return due
            self.gate.quiet.warn("hello timeout", now, "closed a connection from %s: no hello in time", newcomer.address)
            _say_and_close(self._leave(fd).sock, self._late)
        return math.inf

    def close(self) -> None:
        for fd in list(self.waiting):
            self._leave(fd).sock.close()
        self.selector.close()

    async def watch(self, handler: Handler, nursery: trio.Nursery) -> None:
        """Hand each connection whose first frame arrived to `handler`, as a task of `nursery`."""
        try:
            while True:
                with trio.move_on_at(self.expire()):
                    await trio.lowlevel.wait_readable(self.selector.fileno())
                for newcomer in self.ready():
                    stream = trio.SocketStream(trio.socket.from_stdlib_socket(newcomer.sock))
                    nursery.start_soon(handler, stream, bytes(newcomer.data))
        finally:
            self.close()


async def accept_forever(listener: trio.SocketListener, doorstep: Doorstep, refusal: bytes) -> None:
    """Take every connection the kernel has queued onto the doorstep; at the descriptor limit
    send `refusal` and close."""
    raw = socket.socket(fileno=os.dup(listener.socket.fileno()))  # ours to accept on without a checkpoint each
    raw.setblocking(False)
    spare = _spare()
    exhausted = False
    try:
        while True:
            await trio.lowlevel.wait_readable(raw)
            for _ in range(ACCEPT_BATCH):
                try:
                    sock, peer = raw.accept()
                except (BlockingIOError, InterruptedError):
                    break
                except OSError as exc:
                    if exc.errno not in _OUT_OF_RESOURCES:
                        if exc.errno in (errno.ECONNABORTED, errno.EPROTO):
                            continue  # gone before we took it
                        raise
                    if not exhausted:
                        exhausted = True
                        log.warning("out of file descriptors (%s); refusing new connections until some close",
                                    errno.errorcode.get(exc.errno or 0, exc.errno))
                    if spare is None:
                        await trio.sleep(0.1)
                    else:
                        os.close(spare)
                        spare = None
                        try:
                            sock, _ = raw.accept()
                            with trio.move_on_after(REFUSAL_WAIT):  # its hello, read before we close: else it is reset
                                await trio.lowlevel.wait_readable(sock)
                            _say_and_close(sock, refusal)
                        except OSError:  # someone else took the descriptor first, or nobody was waiting
                            await trio.sleep(0.1)
                        spare = _spare()
                    break
                exhausted = False
                doorstep.arrive(sock, str(peer[0]) if isinstance(peer, tuple) else "?")
    finally:
        raw.close()
        if spare is not None:
            os.close(spare)


async def serve_listeners(listeners: list[trio.SocketListener], doorstep: Doorstep, run: Callable[..., Awaitable[None]],
                          handler: Handler, refusal: bytes, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """`run` (started first: the table's or server's own tasks) beside the listeners, whose
    connections wait on `doorstep` and go to `handler` once their first frame is in; until
    cancelled. `task_status.started(port)`; `refusal` is for those turned away at the descriptor limit."""
    async with trio.open_nursery() as nursery:
        await nursery.start(run)
        nursery.start_soon(doorstep.watch, handler, nursery)
        for listener in listeners:
            nursery.start_soon(accept_forever, listener, doorstep, refusal)
        task_status.started(listeners[0].socket.getsockname()[1])


def peer_address(stream: trio.SocketStream) -> str:
    """The address a TCP connection comes from ("?" when the system cannot say)."""
    try:
        return str(stream.socket.getpeername()[0])
    except (OSError, IndexError, TypeError):
        return "?"
