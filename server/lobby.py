"""A lobby session: one connection asking a server for its tables and making new ones.

It is held to the same rules as a table's connection (the shared gate counts it per address;
small frames; an idle deadline with a ping; bad frames answered, and too many of them close it)
and to a request rate of its own (`ServerLimits.lobby_frames`), since a listing costs the server
more than a command, and every session's requests are answered from one budget in turn
(`ServerLimits.lobby_all`): however many sessions ask, the lobby takes a bounded share of the
event loop the tables play on (a listing's cost is bounded too: `server.listing`). The session only ever answers: nothing is pushed to it, so a peer that does
not read slows nobody but itself. Refusals are `rejected` with one line and the session goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import trio

from cthulhu.net import lobby_pace
from cthulhu.net import FrameDecoder, FrameError, FrameTooLarge, encode_frame
from cthulhu.net import TokenBucket
from cthulhu.net import refuse
from cthulhu.net import (
    PROTOCOL_VERSION,
    AskBoard,
    CreateTable,
    Error,
    Hello,
    LinkCodeMsg,
    LinkDoor,
    Linked,
    ListChallenges,
    ListRecords,
    ListTables,
    LobbyWelcome,
    NewLinkCode,
    Ping,
    Pong,
    ProtocolError,
    Rejected,
    SubmitChallenge,
    parse_to_host,
)
from cthulhu.net import clean_name

from .challenge import MAX_SAVE, Upload
from .linking import link_door, new_link_code
from .people import NameTaken
from .refused import Refused

if TYPE_CHECKING:
    from .server import TableServer
    from .store import Identity

MAX_BAD_FRAMES = 50


class Wire(Protocol):
    """A message this session sends (every model of `net.messages` is one)."""

    def wire(self) -> dict[str, Any]: ...


class LobbySession:
    def __init__(self, server: TableServer, stream: trio.abc.Stream, address: str) -> None:
        self.server = server
        self.stream = stream
        self.address = address
        self.identity: Identity | None = None
        self.bad_frames = 0
        self.upload: Upload | None = None  # a challenge's try arriving in parts

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
            try:
                self.identity = self.server.arrive(hello, self.address)
            except NameTaken as exc:
                await refuse(self.stream, _error("name_taken", exc.reason, fatal=True))
                return
            name = self.identity.name if self.identity is not None else clean_name(hello.name)
            await self.send(LobbyWelcome(proto=PROTOCOL_VERSION, server=self.server.name, name=name, tables=len(self.server.tables)))
            await self._receive(rest)
        finally:
            gate.disconnect(self.address)

    async def send(self, msg: Wire) -> None:
        await self.send_frame(encode_frame(msg.wire()))

    async def send_frame(self, frame: bytes) -> None:
        with trio.move_on_after(self.server.limits.table.send_timeout) as stuck:
            await self.stream.send_all(frame)
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
            for item in items:  # at the session's own rate, then the server's for every lobby in turn
                if not await lobby_pace(self.stream, bucket, self.server.lobby_budget) or not await self._on_frame(item):
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
            await self.send_frame(server.listings.page(server.people, who, seq=msg.seq, query=msg.query, page=msg.page, size=msg.size,
                                                       mine=msg.mine, finished=msg.finished))
        elif isinstance(msg, CreateTable):
            try:
                created = await server.create(msg, self.identity, self.address)
            except Refused as exc:
                await self.send(Rejected(seq=msg.seq, code=exc.code, reason=exc.reason))
            else:
                await self.send(created)
        elif isinstance(msg, (NewLinkCode, LinkDoor)):
            await self._link(msg)
        elif isinstance(msg, (ListRecords, ListChallenges, AskBoard, SubmitChallenge)):
            await self._club(msg)
        elif isinstance(msg, Ping):
            await self.send(Pong(n=msg.n))
        elif not isinstance(msg, Pong):
            self.bad_frames += 1
            await self.send(Error(code="unexpected_message", reason=f"the lobby takes no {msg.t!r}: sit at a table with a hello naming it"))
        return True


    async def _link(self, msg: NewLinkCode | LinkDoor) -> None:
        """A one-time code for this identity, or this identity linked into the one a code is for."""
        if self.identity is None:
            await self.send(Rejected(seq=msg.seq, code="no_identity", reason="this door has no identity here to link"))
            return
        if isinstance(msg, NewLinkCode):
            code, expires = new_link_code(self.server, self.identity)
            await self.send(LinkCodeMsg(seq=msg.seq, code=code, expires=expires))
            return
        try:
            self.identity = link_door(self.server, self.identity, msg.code, self.address)
        except Refused as exc:
            await self.send(Rejected(seq=msg.seq, code=exc.code, reason=exc.reason))
            return
        await self.send(Linked(seq=msg.seq, name=self.identity.name))

    async def _club(self, msg: ListRecords | ListChallenges | AskBoard | SubmitChallenge) -> None:
        """The club's records, the challenges, a board, or a part of a try (`server.challenge`)."""
        club = self.server.club
        try:
            if isinstance(msg, ListRecords):
                await self.send(await club.records.listing(msg.seq, msg.page))
            elif isinstance(msg, ListChallenges):
                await self.send(await club.challenges.listing(msg.seq, self.identity))
            elif isinstance(msg, AskBoard):
                await self.send(await club.challenges.board(msg.seq, msg.challenge))
            else:
                upload = self._part(msg)
                if upload is not None and self.identity is not None:  # (`_part` refuses an anonymous session)
                    self.upload = None
                    await self.send(await club.challenges.submit(upload, self.identity))
        except Refused as exc:
            await self.send(Rejected(seq=msg.seq, code=exc.code, reason=exc.reason))

    def _part(self, msg: SubmitChallenge) -> Upload | None:
        """The whole try once its last part is in (None before); `Refused` for a part out of turn."""
        if self.identity is None:
            raise Refused("no_identity", "a try needs an identity at this server (an anonymous door has none)")
        upload = self.upload
        if msg.part == 0:
            upload = self.upload = Upload(msg.challenge, msg.parts, msg.seq)
        if upload is None or (msg.challenge, msg.parts, msg.seq, msg.part) != (upload.challenge, upload.parts, upload.seq, upload.got):
            self.upload = None
            raise Refused("bad_part", "that part of a try came out of turn: send a try's parts in order, from part 0")
        upload.data += msg.data
        upload.got += 1
        if len(upload.data) > MAX_SAVE:
            self.upload = None
            raise Refused("too_large", f"a try's save may be {MAX_SAVE // 1024} KiB at most")
        return upload if upload.got == upload.parts else None


def _error(code: str, reason: str, *, fatal: bool = False) -> bytes:
    return encode_frame(Error(code=code, reason=reason, fatal=fatal).wire())
