"""The peer side of a server's lobby (`cthulhu server`): list its tables, make new ones.

`LobbyClient` is sans-IO like `PeerSession`: it queues a lobby hello and the requests, and turns
the bytes the server sends into its answers. `Lobby` drives one over a trio stream for the
command line (`cthulhu tables`); the interface's lobby screen drives the same client over
asyncio streams.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio

from .frames import FrameDecoder, FrameError, encode_frame
from .messages import (
    PROTOCOL_VERSION,
    Created,
    CreateTable,
    Error,
    Hello,
    ListTables,
    LobbyWelcome,
    OnTimeout,
    Ping,
    Pong,
    ProtocolError,
    Rejected,
    TablesPage,
    parse_to_peer,
)

Answer = TablesPage | Created | Rejected


class LobbyRefused(Exception):
    """The server closed the lobby, or it is no server (a one-table host): one line saying why."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class LobbyClient:
    """A lobby session's protocol state: `data_to_send()`, `receive_data(bytes)`."""

    def __init__(self, name: str, ident: str | None = None) -> None:
        self._out = bytearray(encode_frame(Hello(proto=PROTOCOL_VERSION, name=name, ident=ident, lobby=True).wire()))
        self._decoder = FrameDecoder()
        self._seq = 0
        self.welcome: LobbyWelcome | None = None
        self.closed: Error | None = None

    def data_to_send(self) -> bytes:
        data = bytes(self._out)
        self._out.clear()
        return data

    def _queue(self, msg: Any) -> int:
        self._out += encode_frame(msg.wire())
        return int(getattr(msg, "seq", 0))

    def tables(self, *, query: str = "", page: int = 0, size: int = 20, mine: bool = False) -> int:
        self._seq += 1
        return self._queue(ListTables(seq=self._seq, query=query, page=page, size=size, mine=mine))

    def create(self, *, mode: str, options: dict[str, str | list[str]], seats: int, bots: int = 0, bot: str | None = None,
               bot_delay_ms: int = 500, private: bool = False, turn_time: int | None = None, on_timeout: OnTimeout = "stand-in",
               notify: str | None = None) -> int:
        self._seq += 1
        return self._queue(CreateTable(seq=self._seq, mode=mode, options=options, seats=seats, bots=bots, bot=bot,
                                       bot_delay_ms=bot_delay_ms, private=private, turn_time=turn_time, on_timeout=on_timeout,
                                       notify=notify))

    def receive_data(self, data: bytes | bytearray) -> list[Answer]:
        """The answers these bytes complete (the welcome and pings are handled here). Raises
        `LobbyRefused` once the server closes the session with a fatal error."""
        out: list[Answer] = []
        for item in self._decoder.feed(data):
            if isinstance(item, FrameError):
                continue
            try:
                msg = parse_to_peer(item)
            except ProtocolError:
                continue  # a newer server's message: not ours to answer
            if isinstance(msg, LobbyWelcome):
                self.welcome = msg
            elif isinstance(msg, Ping):
                self._queue(Pong(n=msg.n))
            elif isinstance(msg, Error) and msg.fatal:
                self.closed = msg
                raise LobbyRefused(msg.code, msg.reason)
            elif isinstance(msg, (TablesPage, Created, Rejected)):
                out.append(msg)
        return out


class Lobby:
    """A `LobbyClient` over a trio stream: each call sends one request and waits for its answer."""

    def __init__(self, stream: trio.abc.Stream, client: LobbyClient) -> None:
        self.stream = stream
        self.client = client
        self._answers: list[Answer] = []

    async def _flush(self) -> None:
        data = self.client.data_to_send()
        if data:
            await self.stream.send_all(data)

    async def _read(self) -> None:
        data = await self.stream.receive_some(65536)
        if not data:
            raise LobbyRefused("closed", "the server closed the connection")
        self._answers += self.client.receive_data(data)
        await self._flush()

    async def welcomed(self) -> LobbyWelcome:
        await self._flush()
        while self.client.welcome is None:
            await self._read()
        return self.client.welcome

    async def _answer(self, seq: int) -> Answer:
        await self._flush()
        while True:
            for answer in self._answers:
                if answer.seq == seq:
                    self._answers.remove(answer)
                    return answer
            await self._read()

    async def tables(self, **kw: Any) -> TablesPage | Rejected:
        answer = await self._answer(self.client.tables(**kw))
        assert not isinstance(answer, Created)
        return answer

    async def everything(self, *, query: str = "", mine: bool = False) -> list[Any]:
        """Every row the asker may see, page after page."""
        rows: list[Any] = []
        page = 0
        while True:
            answer = await self.tables(query=query, page=page, size=100, mine=mine)
            if isinstance(answer, Rejected):
                raise LobbyRefused(answer.code, answer.reason)
            rows += answer.rows
            page += 1
            if page >= answer.pages:
                return rows

    async def create(self, **kw: Any) -> Created | Rejected:
        answer = await self._answer(self.client.create(**kw))
        assert not isinstance(answer, TablesPage)
        return answer


@asynccontextmanager
async def open_lobby(host: str, port: int, name: str, ident: str | None = None) -> AsyncIterator[Lobby]:
    """A lobby session with the server at `host`:`port`, welcomed; `LobbyRefused` if it will not
    (a one-table host says so), `OSError` if nothing answers."""
    stream = await trio.open_tcp_stream(host, port)
    async with stream:
        lobby = Lobby(stream, LobbyClient(name, ident))
        await lobby.welcomed()
        yield lobby
