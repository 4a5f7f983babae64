"""The peer side of a server's lobby (`cthulhu server`): list its tables, make new ones.

`LobbyClient` is sans-IO like `PeerSession`: it queues a lobby hello and the requests, and turns
the bytes the server sends into its answers. `TrioLobby` drives one over a trio stream for the
command line (`cthulhu tables`); the interface's lobby screen drives the same client over
asyncio streams.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio

from .frames import FrameDecoder, FrameError, encode_frame
from .tls import open_tls_stream
from .lobbymessages import (
    AskBoard,
    BoardMsg,
    ChallengesMsg,
    Created,
    CreateTable,
    Entered,
    LinkCodeMsg,
    LinkDoor,
    Linked,
    ListChallenges,
    ListRecords,
    ListTables,
    LobbyWelcome,
    NewLinkCode,
    RecordsMsg,
    SubmitChallenge,
    TablesPage,
)
from .messages import (
    PROTOCOL_VERSION,
    Error,
    Hello,
    Ping,
    Pong,
    ProtocolError,
    Rejected,
    parse_to_peer,
)
from .wirebase import NotifyFormat, OnTimeout

Answer = TablesPage | Created | Rejected | LinkCodeMsg | Linked | RecordsMsg | ChallengesMsg | BoardMsg | Entered
CLUB_ANSWERS = (RecordsMsg, ChallengesMsg, BoardMsg, Entered)
PART = 2000  # bytes of a save in one `submit_challenge` (a peer's frame holds 2,048 bytes of binary at most)


class LobbyRefused(Exception):
    """The server closed the lobby, or it is no server (a one-table host): one line saying why."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


async def every_record(ask: Callable[[int], Awaitable[Any]]) -> RecordsMsg | Rejected:
    """Every page of the club's records (`ask(page)`: one page's answer), as one answer; any event
    loop (the app's asyncio as well as trio)."""
    rows: list[Any] = []
    page = 0
    while True:
        answer = await ask(page)
        assert isinstance(answer, (RecordsMsg, Rejected))
        if isinstance(answer, Rejected):
            return answer
        rows += answer.rows
        page += 1
        if page >= answer.pages:
            return answer.model_copy(update={"rows": rows, "page": 0, "pages": 1})


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

    def tables(self, *, query: str = "", page: int = 0, size: int = 20, mine: bool = False, finished: bool = True) -> int:
        self._seq += 1
        return self._queue(ListTables(seq=self._seq, query=query, page=page, size=size, mine=mine, finished=finished))

    def create(self, *, mode: str, options: dict[str, str | list[str]], seats: int, bots: int = 0, bot: str | None = None,
               bot_delay_ms: int = 500, private: bool = False, turn_time: int | None = None, on_timeout: OnTimeout = "stand-in",
               away_after: int = 3, notify: str | None = None, notify_format: NotifyFormat = "json") -> int:
        self._seq += 1
        return self._queue(CreateTable(seq=self._seq, mode=mode, options=options, seats=seats, bots=bots, bot=bot,
                                       bot_delay_ms=bot_delay_ms, private=private, turn_time=turn_time, on_timeout=on_timeout,
                                       away_after=away_after, notify=notify, notify_format=notify_format))

    def new_link_code(self) -> int:
        """Ask for a one-time code that links another door to this identity."""
        self._seq += 1
        return self._queue(NewLinkCode(seq=self._seq))

    def link(self, code: str) -> int:
        """Link this door to the identity whose code this is."""
        self._seq += 1
        return self._queue(LinkDoor(seq=self._seq, code=code.strip()[:32] or "?"))

    def records(self, page: int = 0) -> int:
        """Ask for a page of the club's records."""
        self._seq += 1
        return self._queue(ListRecords(seq=self._seq, page=page))

    def challenges(self) -> int:
        """Ask for the challenges taking tries now."""
        self._seq += 1
        return self._queue(ListChallenges(seq=self._seq))

    def board(self, challenge: str) -> int:
        """Ask for a challenge's board."""
        self._seq += 1
        return self._queue(AskBoard(seq=self._seq, challenge=challenge))

    def submit(self, challenge: str, save: bytes) -> int:
        """Send a save as this identity's try at `challenge`, in parts (answered once, after the last)."""
        self._seq += 1
        parts = [save[n : n + PART] for n in range(0, len(save), PART)] or [b"?"]
        for n, data in enumerate(parts):
            self._queue(SubmitChallenge(seq=self._seq, challenge=challenge, part=n, parts=len(parts), data=data))
        return self._seq

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
            elif isinstance(msg, (TablesPage, Created, Rejected, LinkCodeMsg, Linked, *CLUB_ANSWERS)):
                out.append(msg)
        return out


class TrioLobby:
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
        assert isinstance(answer, (TablesPage, Rejected))
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
        assert isinstance(answer, (Created, Rejected))
        return answer

    async def new_link_code(self) -> LinkCodeMsg | Rejected:
        answer = await self._answer(self.client.new_link_code())
        assert isinstance(answer, (LinkCodeMsg, Rejected))
        return answer

    async def link(self, code: str) -> Linked | Rejected:
        answer = await self._answer(self.client.link(code))
        assert isinstance(answer, (Linked, Rejected))
        return answer

    async def records(self) -> RecordsMsg | Rejected:
        """Every page of the club's records, as one answer."""
        return await every_record(lambda page: self._answer(self.client.records(page)))

    async def challenges(self) -> ChallengesMsg | Rejected:
        answer = await self._answer(self.client.challenges())
        assert isinstance(answer, (ChallengesMsg, Rejected))
        return answer

    async def board(self, challenge: str) -> BoardMsg | Rejected:
        answer = await self._answer(self.client.board(challenge))
        assert isinstance(answer, (BoardMsg, Rejected))
        return answer

    async def submit(self, challenge: str, save: bytes) -> Entered | Rejected:
        answer = await self._answer(self.client.submit(challenge, save))
        assert isinstance(answer, (Entered, Rejected))
        return answer


@asynccontextmanager
async def open_lobby(host: str, port: int, name: str, ident: str | None = None,
                     tls: ssl.SSLContext | None = None) -> AsyncIterator[TrioLobby]:
    """A lobby session with the server at `host`:`port` (over TLS with `tls`), welcomed;
    `LobbyRefused` if it will not (a one-table host says so), `OSError` if nothing answers,
    `TlsFailed` if the server's certificate is not trusted."""
    stream: trio.abc.Stream = await open_tls_stream(host, port, tls) if tls is not None else await trio.open_tcp_stream(host, port)
    async with stream:
        lobby = TrioLobby(stream, LobbyClient(name, ident))
        await lobby.welcomed()
        yield lobby
