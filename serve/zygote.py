"""The warm parent of visitors' interfaces: a fork server that has imported everything once.

A visitor's interface is still its own process (one stuck interface never
stalls another), but it is forked from this small process, which has already
imported Textual, the app and the command line and parsed the content
(`cthulhu.cli.zygote.warm`: this package never imports the interface), then
frozen the garbage collector (`gc.freeze`: a collection in a child never writes
to the shared objects' headers). Children so share those pages copy-on-write
and start with no import on their path.

The doors talk to it over a Unix socket (`Zygote`): a request is the visitor's
command line (`python -m MODULE ARGS`, run as that would be), environment and whether its files are a terminal, with its
stdin/stdout/stderr passed as file descriptors (SCM_RIGHTS); the answer is the
child's pid and a pidfd for it (which names that process for as long as it is
open: signals through it never reach a recycled pid). The zygote alone reaps
its children and reports each exit status. It forks from a plain select loop in
a process with no thread and no event loop, so a child inherits no lock held
by another thread and no loop's state.

What a child does not get: the doors' sockets and the host's secrets (the
zygote is a fresh program started with only its socket; the table code reaches
only the child whose environment holds it). The zygote never turns a request
into Python objects: it receives it into one buffer, forks, and zeroes the
buffer, so no later child finds an earlier visitor's environment in its memory.

Each child starts a session of its own, with its terminal (if it has one) as
its controlling terminal, so a resize reaches it as SIGWINCH from the kernel.
It leaves when the host does (it holds a pidfd of the host, not of the zygote:
a zygote that dies and is restarted takes no visitor with it).
"""

from __future__ import annotations

import asyncio
import collections
import functools
import gc
import json
import os
import select
import signal
import socket
import struct
import sys
import threading
from collections.abc import Callable, Mapping, Sequence

from .visitor import Child

MAX_REQUEST = 256 * 1024  # bytes in one request (its environment, mostly)
_FDS = 3  # stdin, stdout, stderr
_PID = struct.Struct("<i")
_EXIT = struct.Struct("<ii")
NAME = "cthulhu-visitor"  # a child's process name (ps, /proc/PID/comm)


class ZygoteError(Exception):
    """The warm parent could not start a visitor (it is gone, or its fork failed)."""


# -- the zygote process -----------------------------------------------------------


def serve(sock: socket.socket, warm: Callable[[], None]) -> None:
    """The zygote's loop: `warm()` once, then fork a child per request, reap them, leave with the
    host or the doors."""
    host = os.getppid()
    host_fd = os.pidfd_open(host)
    if os.getppid() != host:  # the host died while we started: nothing to serve
        return
    warm()
    wake_r, wake_w = os.pipe()
    for fd in (wake_r, wake_w):
        os.set_blocking(fd, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # the wakeup fd does the work
    signal.set_wakeup_fd(wake_w)
    gc.collect()
    gc.freeze()
    buf = bytearray(MAX_REQUEST)
    sock.sendall(b"R")
    while True:
        ready, _, _ = select.select([sock.fileno(), host_fd, wake_r], [], [])
        if wake_r in ready:
            while True:
                try:
                    if not os.read(wake_r, 512):
                        break
                except BlockingIOError:
                    break
            _reap(sock)
        if host_fd in ready:
            return  # the host is gone; its visitors leave by themselves
        if sock.fileno() in ready:
            n, ancdata, flags, _ = sock.recvmsg_into([buf], socket.CMSG_SPACE(_FDS * 4))
            fds = _fds(ancdata)
            if n == 0 and not fds:
                return  # the doors closed
            try:
                if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or len(fds) != _FDS:
                    sock.sendall(b"E" + b"a request the zygote cannot read")
                else:
                    _fork(sock, buf, n, fds, (wake_r, wake_w), host_fd)
            finally:
                buf[:n] = bytes(n)  # nothing of this visitor stays for the next child to inherit
                for fd in fds:
                    os.close(fd)


def _fds(ancdata: list[tuple[int, int, bytes]]) -> list[int]:
    fds: list[int] = []
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += struct.unpack(f"{len(data) // 4}i", data[: len(data) - len(data) % 4])
    return fds


def _fork(sock: socket.socket, buf: bytearray, n: int, fds: list[int], wake: tuple[int, int], host_fd: int) -> None:
    gc.freeze()  # whatever the loop allocated since, too
    try:
        pid = os.fork()
    except OSError as exc:
        sock.sendall(b"E" + f"cannot fork: {exc.strerror or exc}".encode())
        return
    if pid == 0:
        code = 1
        try:
            sock.close()
            code = _child(bytes(buf[:n]), fds, wake, host_fd)
        finally:
            os._exit(code)
    pidfd = os.pidfd_open(pid)  # before any reaping: this loop alone reaps, after this
    try:
        sock.sendmsg([b"S" + _PID.pack(pid)], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", pidfd))])
    finally:
        os.close(pidfd)


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        sock.sendall(b"X" + _EXIT.pack(pid, os.waitstatus_to_exitcode(status)))


def _child(request: bytes, fds: list[int], wake: tuple[int, int], host_fd: int) -> int:
    """In the forked child: become the visitor's interface process, run `python -m MODULE ARGS` (its request's
    command line), return its exit status."""
    import fcntl
    import importlib
    import runpy
    import termios
    import traceback

    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in wake:
        os.close(fd)
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in set(fds):
        if fd > 2:
            os.close(fd)
    req = json.loads(request)
    if req["tty"]:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    textual_before = _textual_settings(os.environ)
    os.environ.clear()
    os.environ.update(req["env"])
    with open("/proc/self/comm", "w") as comm:
        comm.write(NAME)
    _stdio()
    settings = sys.modules.get("textual.constants")  # Textual reads TEXTUAL_DRIVER, TEXTUAL_FPS... when imported:
    if settings is not None and _textual_settings(os.environ) != textual_before:  # a web visitor's differ
        importlib.reload(settings)  # (re-read only then: 0.8 MB a child)
    _leave_with_the_host(host_fd)
    argv = list(req["argv"])
    sys.argv = [argv[0], *argv[3:]]
    try:
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)  # `python -m MODULE ARGS`, all imported already
        return 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass


def _textual_settings(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith("TEXTUAL") or k == "ESCDELAY"}


def _stdio() -> None:
    """Standard streams on the new descriptors 0-2, as a fresh `python` with PYTHONUNBUFFERED has them."""
    import io

    stdin = io.TextIOWrapper(io.open(0, "rb", closefd=False), encoding="utf-8", errors="strict", line_buffering=os.isatty(0))
    stdout, stderr = (io.TextIOWrapper(io.open(fd, "wb", buffering=0, closefd=False), encoding="utf-8",
                                       errors="strict" if fd == 1 else "backslashreplace", line_buffering=os.isatty(fd), write_through=True)
                      for fd in (1, 2))
    for name, stream in (("stdin", stdin), ("stdout", stdout), ("stderr", stderr)):
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)  # what Textual's drivers use


def _leave_with_the_host(host_fd: int) -> None:
    """If the host dies (killed, its terminal closed), nobody can see or type to this visitor any
    more: leave then, rather than reconnect to nothing for a quarter of an hour."""

    def watch() -> None:
        select.select([host_fd], [], [])
        os._exit(1)

    threading.Thread(target=watch, name="cthulhu-host-watch", daemon=True).start()


def main(warm: Callable[[], None]) -> int:
    """The zygote program (`python -m cthulhu.cli.zygote FD`, what `Zygote` starts): `warm` imports
    and builds what the visitors need; it lives above the doors, where the interface may be imported."""
    sock = socket.socket(fileno=int(sys.argv[1]))
    try:
        serve(sock, warm)
    finally:
        sock.close()
    return 0


# -- the doors' side --------------------------------------------------------------


class Zygote:
    """The doors' handle on their warm parent: starts it, asks it for children, restarts it if it dies."""

    def __init__(self, env: dict[str, str]) -> None:
        """`env`: the zygote's own environment (each child gets the one its request names)."""
        self.env = env
        self.pid: int | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._sock: socket.socket | None = None
        self._ready: asyncio.Future[None] | None = None
        self._replies: collections.deque[asyncio.Future[tuple[int, int, asyncio.Future[int]]]] = collections.deque()
        self._statuses: dict[int, asyncio.Future[int]] = {}
        self._children: dict[int, Child] = {}
        self._lock = asyncio.Lock()
        self._starting: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def children(self) -> list[Child]:
        return list(self._children.values())

    def start(self) -> None:
        """Start warming up now (the first visitor then waits less)."""
        if self._starting is None or self._starting.done():
            self._starting = asyncio.get_running_loop().create_task(self._start())

    async def _start(self) -> None:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "cthulhu.cli.zygote", str(theirs.fileno()), pass_fds=(theirs.fileno(),),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, env=self.env,
                start_new_session=True)  # the host's terminal's signals (^C) are not for it
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.pid = self._proc.pid
        ours.setblocking(False)
        self._sock = ours
        self._ready = loop.create_future()
        loop.add_reader(ours, self._readable, ours)
        await self._ready

    async def warm(self) -> None:
        """Until the zygote is ready for visitors (`ZygoteError` if it cannot start)."""
        await self._alive()

    async def _alive(self) -> socket.socket:
        """The zygote's socket, once it is warm (started again if it died)."""
        for _ in range(2):
            if self._closed:
                raise ZygoteError("the doors are closing")
            if self._sock is None and (self._starting is None or self._starting.done()):
                self.start()
            assert self._starting is not None
            try:
                await asyncio.shield(self._starting)
            except (ZygoteError, OSError):
                pass
            if self._sock is not None and self._ready is not None and self._ready.done():
                return self._sock
        raise ZygoteError("the visitors' zygote did not start")

    async def spawn(self, argv: Sequence[str], env: dict[str, str], files: tuple[int, int, int], *, tty: bool,
                    on_reaped: Callable[[], None]) -> Child:
        """A new visitor process running `ARGV` (`python -m MODULE ...`, this very python) on `files` (stdin, stdout, stderr); the
        descriptors stay the caller's to close. `tty`: they are a terminal, to be its controlling one."""
        if list(argv[:2]) != [sys.executable, "-m"] or len(argv) < 3:
            raise ZygoteError(f"the zygote runs `{sys.executable} -m MODULE ...` only")
        request = json.dumps({"argv": list(argv), "env": env, "tty": tty}).encode()
        if len(request) > MAX_REQUEST:
            raise ZygoteError("a visitor's request is too large")
        async with self._lock:  # one request at a time: the answers come back in order
            sock = await self._alive()
            reply: asyncio.Future[tuple[int, int, asyncio.Future[int]]] = asyncio.get_running_loop().create_future()
            self._replies.append(reply)
            try:
                sock.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack(f"{_FDS}i", *files))])
            except OSError as exc:
                self._replies.remove(reply)
                self._lost()
                raise ZygoteError(f"the visitors' zygote is gone: {exc.strerror or exc}") from None
            pid, pidfd, status = await reply
        child = Child(pid, pidfd, status, lambda: self._gone(pid, status, on_reaped))
        self._children[pid] = child
        if self._sock is not sock:  # it died just after forking: watch the pidfd instead
            self._orphaned(child)
        return child

    def _gone(self, pid: int, status: asyncio.Future[int], on_reaped: Callable[[], None]) -> None:
        if self._statuses.get(pid) is status:  # (not a later child given the same pid)
            del self._statuses[pid]
            self._children.pop(pid, None)
        on_reaped()

    def _forget(self, pid: int, status: asyncio.Future[int]) -> None:
        self._gone(pid, status, lambda: None)

    def _readable(self, sock: socket.socket) -> None:
        while True:
            try:
                data, ancdata, _, _ = sock.recvmsg(64, socket.CMSG_SPACE(4))
            except BlockingIOError:
                return
            except OSError:
                data, ancdata = b"", []
            fds = _fds(ancdata)
            if not data:
                for fd in fds:
                    os.close(fd)
                self._lost()
                return
            kind, body = data[:1], data[1:]
            if kind == b"R" and self._ready is not None and not self._ready.done():
                self._ready.set_result(None)
            elif kind == b"S" and self._replies and len(fds) == 1:
                pid, pidfd = _PID.unpack(body)[0], fds[0]
                status = self._statuses[pid] = asyncio.get_running_loop().create_future()
                reply = self._replies.popleft()
                if reply.cancelled():  # nobody is waiting for this visitor any more: it must not run unseen
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                    os.close(pidfd)
                    status.add_done_callback(functools.partial(self._forget, pid))
                else:
                    reply.set_result((pid, pidfd, status))
            elif kind == b"E" and self._replies:
                reply = self._replies.popleft()
                if not reply.cancelled():
                    reply.set_exception(ZygoteError(body.decode(errors="replace")))
            elif kind == b"X":
                pid, code = _EXIT.unpack(body)
                known = self._statuses.get(pid)
                if known is not None and not known.done():
                    known.set_result(code)
            else:
                for fd in fds:
                    os.close(fd)

    def _lost(self) -> None:
        """The zygote is gone (it died, or was closed): its children live on, watched by their pidfds."""
        sock, self._sock = self._sock, None
        if sock is None:
            return
        served = self._ready is not None and self._ready.done() and not self._ready.cancelled() and self._ready.exception() is None
        loop = asyncio.get_running_loop()
        loop.remove_reader(sock)
        sock.close()
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(ZygoteError("the visitors' zygote exited while it started"))
        while self._replies:
            reply = self._replies.popleft()
            if not reply.cancelled():
                reply.set_exception(ZygoteError("the visitors' zygote exited"))
        for child in list(self._children.values()):
            self._orphaned(child)
        if self._proc is not None:
            proc, self._proc = self._proc, None
            self._reaping = loop.create_task(proc.wait())  # (asyncio's watcher reaps it; kept: tasks are weakly held)
        if not self._closed and served:
            self.start()  # warm again before the next visitor comes (one that never got warm waits for one)

    def _orphaned(self, child: Child) -> None:
        """A child whose zygote is gone: its exit status will never be told; its pidfd says when it exits."""
        status = self._statuses.get(child.pid)
        if status is None or status.done() or child.pidfd is None:
            return
        loop = asyncio.get_running_loop()
        fd = child.pidfd

        def exited() -> None:
            loop.remove_reader(fd)
            if not status.done():
                status.set_result(-1)  # unknown: someone else reaped it

        loop.add_reader(fd, exited)

    async def close(self) -> None:
        """Stop the zygote (its children are the doors' to stop); waits until it has exited."""
        self._closed = True
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
            await asyncio.gather(self._starting, return_exceptions=True)
        proc = self._proc
        self._lost()
        if proc is not None:
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()

