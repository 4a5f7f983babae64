"""A lobby session: one connection asking a server for its tables and making new ones.

It is held to the same rules as a table's connection (the shared gate counts it per address;
small frames; an idle deadline with a ping; bad frames answered, and too many of them close it)
and to a request rate of its own (`ServerLimits.lobby_frames`), since a listing costs the server
more than a command. The session only ever answers: nothing is pushed to it, so a peer that does
not read slows nobody but itself. Refusals are `rejected` with one line and the session goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from cthulhu.net.frames import FrameDecoder, FrameError, FrameTooLarge, encode_frame
from cthulhu.net.limits import TokenBucket
from cthulhu.net.listen import refuse
from cthulhu.net.messages import (
    PROTOCOL_VERSION,
    CreateTable,
    Error,
    Hello,
    ListTables,
    LobbyWelcome,
    Ping,
    Pong,
    ProtocolError,
    Rejected,
    parse_to_host,
)
from cthulhu.net.textclean import clean_name

from .listing import listing

if TYPE_CHECKING:
    from cthulhu.net.messages import _Msg

    from .server import TableServer
    from .store import Identity

MAX_BAD_FRAMES = 50


class LobbySession:
    def __init__(self, server: TableServer, stream: trio.abc.Stream, address: str) -> None:
        self.server = server
        self.stream = stream
        self.address = address
        self.identity: Identity | None = None
        self.bad_frames = 0

    async def run(self, hello: Hello, rest: bytes) -> None:
        gate = self.server.gate
        refusal = gate.connect(self.address)
        if refusal is not None:
            await refuse(self.stream, _error(refusal.code, refusal.reason, fatal=True))
            return
        try:
            refusal = gate.hello(self.address)
            if refusal is None and not clean_name(hello.name):
                refusal_code, reason = "bad_name", "a name needs at least one printable character"
                await refuse(self.stream, _error(refusal_code, reason, fatal=True))
                return
            if refusal is not None:
                await refuse(self.stream, _error(refusal.code, refusal.reason, fatal=True))
                return
            self.identity = self.server.arrive(hello, self.address)
            name = self.identity.name if self.identity is not None else clean_name(hello.name)
            live = sum(1 for t in self.server.tables.values() if t.live)
            await self.send(LobbyWelcome(proto=PROTOCOL_VERSION, server=self.server.name, name=name, tables=live))
            await self._receive(rest)
        finally:
            gate.disconnect(self.address)

    async def send(self, msg: _Msg) -> None:
        with trio.move_on_after(self.server.limits.table.send_timeout) as stuck:
            await self.stream.send_all(encode_frame(msg.wire()))
        if stuck.cancelled_caught:
            raise trio.TooSlowError  # it does not read: the connection ends

    async def _receive(self, data: bytes | bytearray) -> None:
        limits = self.server.limits.table
        decoder = FrameDecoder(limits.peer_frame)
        bucket = TokenBucket.of(self.server.limits.lobby_frames, trio.current_time())
        heard = trio.current_time()
        pinged: float | None = None
        while True:
            try:
                items = decoder.feed(data)
            except FrameTooLarge as exc:
                await self.send(Error(code=exc.code, reason=exc.reason, fatal=True))
                return
            if items:
                heard, pinged = trio.current_time(), None
            for item in items:
                while not bucket.take(trio.current_time()):
                    await trio.sleep(bucket.wait(trio.current_time()))
                if not await self._on_frame(item):
                    return
            deadline = heard + limits.idle_timeout if pinged is None else pinged + limits.pong_timeout
            with trio.move_on_at(deadline) as idle:
                data = await self.stream.receive_some(limits.peer_frame.frame + 4)
                if not data:
                    return
            if idle.cancelled_caught:
                data = b""
                if pinged is not None:
                    return
                pinged = trio.current_time()
                await self.send(Ping(n=0))

    async def _on_frame(self, item: Any) -> bool:
        try:
            if isinstance(item, FrameError):
                raise item
            msg = parse_to_host(item)
        except (FrameError, ProtocolError) as exc:
            self.bad_frames += 1
            fatal = self.bad_frames > MAX_BAD_FRAMES
            details = exc.details if isinstance(exc, ProtocolError) else []
            await self.send(Error(code=exc.code, reason=exc.reason, fatal=fatal, details=details))
            return not fatal
        server = self.server
        who = self.identity.id if self.identity is not None else None
        if isinstance(msg, ListTables):
            server.refresh()
            await self.send(listing(server.tables.values(), server.people, who, seq=msg.seq, query=msg.query,
                                    page=msg.page, size=msg.size, mine=msg.mine))
        elif isinstance(msg, CreateTable):
            from .server import Refused

            try:
                created = await server.create(msg, self.identity, self.address)
            except Refused as exc:
                await self.send(Rejected(seq=msg.seq, code=exc.code, reason=exc.reason))
            else:
                await self.send(created)
        elif isinstance(msg, Ping):
            await self.send(Pong(n=msg.n))
        elif not isinstance(msg, Pong):
            self.bad_frames += 1
            await self.send(Error(code="unexpected_message", reason=f"the lobby takes no {msg.t!r}: sit at a table with a hello naming it"))
        return True


def _error(code: str, reason: str, *, fatal: bool = False) -> bytes:
    return encode_frame(Error(code=code, reason=reason, fatal=fatal).wire())
