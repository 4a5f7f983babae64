"""TLS on the game port: a second listener whose connections are encrypted, and the client's end.

On the plain port everything a client sends is readable on the way: its identity key (which is
that player at every table of a server), seat tokens and table codes are bearer secrets, and a
copy of a hello is as good as the player. Behind TLS they cross the network encrypted, and the
client checks that the server is the one it meant (its certificate, against the system's store
or a file the operator handed out: a self-signed server's own certificate).

The TLS listener does not share the plain port's doorstep (which reads frame lengths from raw
bytes, without a task per socket): each connection gets a task that runs the handshake within
the hello deadline, waiting meanwhile in the gate's crowd of connections that have said nothing
yet (`Gate.unverified`: so many per address and in all; the oldest of the busiest address is
closed to make room). A handshake that fails or runs late is one quiet line for a flood of them
(`Quiet`), never a traceback; the decrypted stream then goes to the same handler as a plain
connection (`Host.handle`, `TableServer.handle`), hello and all.
"""

from __future__ import annotations

import errno
import logging
import ssl
from collections.abc import Awaitable, Callable

import trio

from .gate import Gate
from .limits import Limits

log = logging.getLogger("cthulhu.net.host")

SCHEME = "tls://"
DEFAULT_PORT = 7778  # `tls://HOST` without a port; `--tls-port`'s default
HANDSHAKE_FAILED = "closed a TLS connection from %s: its handshake failed or came too late"
_OUT_OF_FILES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}

Handler = Callable[[trio.abc.Stream, str, bytes], Awaitable[None]]


class TlsFailed(Exception):
    """The client's side of a TLS connection could not be set up: an untrusted or wrong
    certificate, or a port that does not speak TLS. One line for the player, not retried."""


def split_scheme(address: str) -> tuple[bool, str]:
    """`tls://HOST:PORT` -> (True, "HOST:PORT"); any other address -> (False, address)."""
    if address[: len(SCHEME)].lower() == SCHEME:
        return True, address[len(SCHEME):]
    return False, address


def server_context(cert: str, key: str) -> ssl.SSLContext:
    """What the TLS listener presents (`OSError`/`ssl.SSLError` if the files do not load or match)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


def client_context(ca: str | None = None) -> ssl.SSLContext:
    """How a client checks the server: its certificate must be signed by the system's trusted
    authorities, or by `ca` (a file of certificates: a self-signed server's own), and name the
    host dialled. `OSError`/`ssl.SSLError` if `ca` does not load."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=ca)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


def failure(exc: BaseException, where: str) -> TlsFailed | None:
    """The `TlsFailed` a handshake's exception means (None: not TLS's doing, e.g. a refused port)."""
    cause = exc if isinstance(exc, ssl.SSLError) else exc.__cause__ or exc.__context__
    if isinstance(cause, ssl.SSLCertVerificationError):
        why = cause.verify_message or cause.reason or "not trusted"
        return TlsFailed(f"{where} presented a certificate this machine does not trust ({why}); "
                         "a self-signed server's players give its certificate with --tls-ca FILE")
    if isinstance(cause, ssl.SSLError):
        return TlsFailed(f"no TLS at {where} ({cause.reason or cause}): is it the server's TLS port?")
    return None


async def open_tls_stream(host: str, port: int, context: ssl.SSLContext) -> trio.SSLStream[trio.SocketStream]:
    """A TCP connection to `host`:`port` with its TLS handshake done; `TlsFailed` if the server is
    not trusted or speaks no TLS, `OSError` if nothing answers."""
    tcp = await trio.open_tcp_stream(host, port)
    stream = trio.SSLStream(tcp, context, server_hostname=host)
    try:
        await stream.do_handshake()
    except (trio.BrokenResourceError, ssl.SSLError) as exc:
        await tcp.aclose()
        raise failure(exc, f"{host}:{port}") or OSError(f"the connection closed during the TLS handshake: {exc}") from None
    except BaseException:
        with trio.CancelScope(shield=True):
            await tcp.aclose()
        raise
    return stream


async def _handshake(tcp: trio.SocketStream, context: ssl.SSLContext, limits: Limits, gate: Gate, handler: Handler) -> None:
    try:
        address = str(tcp.socket.getpeername()[0])
    except (OSError, IndexError, TypeError):
        address = "?"
    stream = trio.SSLStream(tcp, context, server_side=True)
    key = object()
    done = False
    with trio.CancelScope() as waiting:
        gate.unverified(key, address, waiting.cancel)
        try:
            with trio.move_on_after(limits.hello_timeout):
                await stream.do_handshake()
                done = True
        except (trio.BrokenResourceError, trio.ClosedResourceError, ssl.SSLError, OSError):
            pass
        finally:
            gate.verified(key)
    if not done:
        gate.quiet.warn("tls handshake", gate.clock(), HANDSHAKE_FAILED, address)
        with trio.CancelScope(shield=True):
            await tcp.aclose()
        return
    await handler(stream, address, b"")


async def serve_tls(port: int, bind: str, context: ssl.SSLContext, limits: Limits, gate: Gate, handler: Handler, *,
                    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """Listen for TLS on `bind`:`port` until cancelled (`task_status.started(port)`); each
    connection's handshake done, its decrypted stream goes to `handler(stream, address, b"")`."""
    listeners = await trio.open_tcp_listeners(port, host=bind)
    async with trio.open_nursery() as nursery:
        for listener in listeners:
            nursery.start_soon(_accept, listener, context, limits, gate, handler, nursery)
        task_status.started(listeners[0].socket.getsockname()[1])


async def _accept(listener: trio.SocketListener, context: ssl.SSLContext, limits: Limits, gate: Gate, handler: Handler,
                  nursery: trio.Nursery) -> None:
    """Accept forever; at the open-file limit one line an episode (not trio's traceback every 100 ms)."""
    exhausted = False
    async with listener:
        while True:
            try:
                tcp = await listener.accept()
            except OSError as exc:
                if exc.errno not in _OUT_OF_FILES:
                    if exc.errno in (errno.ECONNABORTED, errno.EPROTO):
                        continue
                    raise
                if not exhausted:
                    exhausted = True
                    log.warning("out of file descriptors on the TLS port; refusing new connections until some close")
                await trio.sleep(0.1)
                continue
            exhausted = False
            nursery.start_soon(_handshake, tcp, context, limits, gate, handler)
