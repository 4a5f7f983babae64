"""One connection of a `NetLink` (one per seat this terminal plays), and who the link joins as."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cthulhu.net import Error, PeerSession, RedirectRefused, Route

from .dial import open_stream
from .linkerrors import LinkError, Unreachable

if TYPE_CHECKING:
    import ssl


@dataclass(frozen=True, kw_only=True)
class JoinAs:
    """Who this terminal is at a table and how it reaches it. `seats` holds one wanted seat per
    connection (None: any; hot-seat players each have their own); `address` is the host's address
    as the player typed it (what the seat store and the printed commands use); `visitor`, for a
    visitor the host serves (`join --kiosk`), is how they come back, in the door's words."""

    host: str
    port: int
    address: str | None = None
    name: str = "player"
    code: str | None = None
    seats: tuple[int | None, ...] = (None,)
    watch: bool = False
    token: str | None = None
    label: str = ""
    visitor: str | None = None
    names: tuple[str, ...] | None = None  # hot-seat: each connection's name (what it plays), in the order of `seats`
    table: str | None = None  # at a server of many tables: the table's id (its seat tokens are kept by it)
    tls: ssl.SSLContext | None = None  # the address was tls://: the host's certificate is checked with it


@dataclass
class Conn:
    """A session and the asyncio stream it speaks over (replaced by each reconnect), and where it
    dials (`route`: home, or where a server of several processes redirected it)."""

    session: PeerSession
    route: Route
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    task: asyncio.Task[None] | None = None
    welcomed: asyncio.Event = field(default_factory=asyncio.Event)
    up: bool = False  # welcomed on the current connection
    was_up: bool = False  # welcomed at least once: a later drop is a reconnect, not a refusal
    stored_token: bool = False  # the token came from this machine's seat store (may be stale)
    opening: list[dict[str, Any]] = field(default_factory=list)  # the setup's events, from a welcome at step 0

    async def connect(self, join: JoinAs, address: str, first: bool) -> None:
        """Dial the host and say hello (`first`: the link's first connection, whose failure means
        the host does not answer yet, rather than that it went away)."""
        try:
            self.reader, self.writer = await open_stream(self.route.host, self.route.port, join.tls)
            await self.flush()
        except OSError as exc:
            error = Unreachable if first else LinkError
            why = "nothing is listening there" if isinstance(exc, ConnectionRefusedError) else exc.strerror or exc
            raise error(f"cannot reach {address}: {why}") from None

    async def follow(self, join: JoinAs, address: str) -> str | None:
        """The table is run by another process of the server (`redirect`): dial it at once with the
        same hello. A redirect not followed (a loop, or TLS down to plain TCP) is returned in words;
        one that cannot be reached raises as `connect` does (the caller then goes home again)."""
        assert self.session.redirect is not None
        try:
            self.route.follow(self.session.redirect)
        except RedirectRefused as exc:
            self.session.closed = Error(code="redirect_refused", fatal=True, reason=str(exc))  # (what `open()` says, if it waits)
            return str(exc)
        self.session.restart()
        await self.connect(join, address, first=False)
        return None

    async def flush(self) -> None:
        data = self.session.data_to_send()
        if data and self.writer is not None:
            self.writer.write(data)
            await self.writer.drain()

    async def pump(self, closed: Callable[[], bool], deliver: Callable[[list[Any]], None], garbled: Callable[[Exception], None],
                   dropped: Callable[[], Awaitable[bool]]) -> None:
        """Read the host's bytes into the session and `deliver` its messages until `closed()`; a frame
        it cannot read is `garbled` (the connection is dropped); once the connection ends, `dropped()`
        says whether a new one is read (True, after it reconnected) or the pump stops."""
        while not closed():
            try:
                data = await self.reader.read(65536) if self.reader else b""
            except (OSError, asyncio.IncompleteReadError):
                data = b""
            if data:
                try:
                    messages = self.session.receive_data(data)
                except Exception as exc:
                    garbled(exc)
                    if self.writer is not None:  # set with the reader that just gave us data
                        self.writer.close()
                    continue
                try:
                    await self.flush()
                except OSError:
                    pass  # the read that follows sees the end of the connection
                deliver(messages)
                continue
            self.up = False
            if self.writer is not None:
                self.writer.close()
            if not await dropped():
                self.welcomed.set()
                return

    async def close(self) -> None:
        """Closed, its reader stopped and awaited."""
        if self.writer is not None:
            self.writer.close()
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, Exception):
                pass


def deciding_view(sessions: list[PeerSession]) -> dict[str, Any] | None:
    """The deciding local seat's view when it has one in step with the first connection, else the
    first connection's (None: none yet, or its connection is down)."""
    first = sessions[0].mirror if sessions else None
    if first is None:
        return None
    prompt = first.prompt
    mirrors = {s.seat: s.mirror for s in sessions}
    if prompt is not None and prompt.get("seat") in mirrors:
        mirror = mirrors[prompt.get("seat")]
        if mirror.view is not None and not mirror.stale and mirror.seq == first.seq:
            return mirror.view
    return first.view
