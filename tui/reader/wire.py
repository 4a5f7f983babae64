"""One seat's connection to the host, for the reader: where the table is, who sits, and the bytes.

The reader's tasks share a connection (the one reading it, the one sending what is typed), so
sends go one at a time under a lock; a lost connection is tried again with back-off, as every
joiner does (`net.client.reconnect_delays`), the session saying hello again with its seat token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import trio

from cthulhu.net import LOST, RECONNECT_FOR, PeerSession, TrioPeer, reconnect_delays
from cthulhu.net import TlsFailed

if TYPE_CHECKING:
    import ssl


@dataclass(frozen=True)
class Where:
    """How to reach the table: the host's address (`address` as the player typed it) and TLS."""

    host: str
    port: int
    address: str
    tls: ssl.SSLContext | None = None
    table: str | None = None  # at a server of many tables: the table's id
    code: str | None = None
    ident: str | None = None  # at a server: this machine's identity key there


@dataclass(frozen=True)
class Sitting:
    """One seat this terminal wants: its player's name, the seat (None: any), a seat token, and
    whether that token came from this machine's seat store (it may be stale)."""

    name: str
    seat: int | None = None
    token: str | None = None
    stored: bool = False


@dataclass
class Conn:
    """A seat's `PeerSession` and the stream it is on (None while there is none)."""

    session: PeerSession
    stored: bool
    stream: trio.abc.Stream | None = None
    lock: trio.Lock = field(default_factory=trio.Lock)
    settled: trio.Event = field(default_factory=trio.Event)  # welcomed, or ended before
    was_up: bool = False

    async def connect(self, where: Where) -> None:
        """Connect and say hello; `OSError` (unreachable) or `TlsFailed` (not the host it should be)."""
        peer = await TrioPeer.connect(where.host, where.port, self.session, where.tls)
        self.stream = peer.stream

    async def flush(self) -> None:
        data = self.session.data_to_send()
        if data and self.stream is not None:
            async with self.lock:
                try:
                    await self.stream.send_all(data)
                except LOST:
                    pass  # the reading side sees the connection end

    async def receive(self) -> bytes | bytearray:
        """The next bytes from the host; b"" once the connection has ended."""
        if self.stream is None:
            return b""
        try:
            return await self.stream.receive_some(65536)
        except LOST:
            return b""

    async def drop(self) -> None:
        if self.stream is not None:
            with trio.CancelScope(shield=True):
                await self.stream.aclose()
            self.stream = None

    async def come_back(self, where: Where, tried: Callable[[int], None]) -> bool:
        """Connect again with back-off for `RECONNECT_FOR` seconds (`tried(attempt)` after each
        failure); False if the host never came back or is no longer the one it was (TLS)."""
        started = trio.current_time()
        for attempt, delay in enumerate(reconnect_delays(), 1):
            await trio.sleep(delay)
            self.session.restart()
            try:
                await self.connect(where)
                return True
            except TlsFailed:
                return False
            except LOST:
                if trio.current_time() - started >= RECONNECT_FOR:
                    return False
                tried(attempt)
        return False
