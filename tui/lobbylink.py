"""A server's lobby over asyncio streams, for the lobby screen (the same `LobbyClient` as
`cthulhu tables`, which drives it with trio). A reader task answers the server's pings and hands
each answer to the request waiting for it, so the screen may sit idle for as long as it likes.

A lobby whose connection is lost (the server restarted, the network dropped) reconnects by
itself, with the same back-off as a table's seat (`reconnect_delays`, for `RECONNECT_FOR`), and
the same identity; meanwhile every request fails at once with `LobbyRefused("reconnecting")`,
so the screen lists nothing it cannot stand by."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from cthulhu.net import RECONNECT_FOR, reconnect_delays
from cthulhu.net import Answer, LobbyClient, LobbyRefused, every_record
from cthulhu.net import BoardMsg, ChallengesMsg, Created, Linked, LobbyWelcome, RecordsMsg, Rejected, TablesPage

from .dial import TlsFailed, open_stream

if TYPE_CHECKING:
    import ssl

ANSWER_TIMEOUT = 15.0
FINAL = {"not_a_server", "name_taken", "protocol_version", "bad_name"}  # refusals that another try would only repeat


class LobbyLink:
    """One lobby session: `open()`, then `tables(...)` and `create(...)`; `close()`."""

    def __init__(self, host: str, port: int, *, name: str, ident: str | None, address: str, tls: ssl.SSLContext | None = None) -> None:
        self.host = host
        self.port = port
        self.tls = tls  # the address was tls://: the server's certificate is checked with it
        self.address = address  # as the player typed it (the seat store and join lines use it)
        self.name = name
        self.ident = ident
        self.client = LobbyClient(name, ident)
        self.welcome: LobbyWelcome | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None
        self._waiting: dict[int, asyncio.Future[Answer]] = {}
        self._welcomed = asyncio.Event()
        self.error: LobbyRefused | None = None
        self.reconnecting: asyncio.Task[None] | None = None  # while the connection is lost: the tries to get it back
        self.connections = 0  # how many times it was welcomed (1 + reconnections)
        self._closed = False

    @property
    def up(self) -> bool:
        """Connected and welcomed: what it lists is the server's now."""
        return self.error is None and self.welcome is not None

    async def open(self) -> LobbyWelcome:
        """Connect and be welcomed; `LobbyRefused` (a one-table host, a refusal), `OSError`, or
        `TlsFailed` (the server's certificate is not trusted)."""
        self._afresh()
        self._reader, self._writer = await open_stream(self.host, self.port, self.tls)
        await self._flush()
        self._task = asyncio.create_task(self._read())
        try:
            await asyncio.wait_for(self._welcomed.wait(), ANSWER_TIMEOUT)
        except asyncio.TimeoutError:
            raise LobbyRefused("timeout", f"no answer from {self.address}") from None
        if self.welcome is None:
            raise self.error or LobbyRefused("closed", f"{self.address} closed the connection")
        self.connections += 1
        return self.welcome

    def _afresh(self) -> None:
        """A new session's state: its own protocol client, not yet welcomed."""
        self.client = LobbyClient(self.name, self.ident)
        self.welcome, self.error = None, None
        self._welcomed = asyncio.Event()

    async def _reconnect(self) -> None:
        """Get the lobby back after a lost connection, with the table seats' back-off."""
        loop = asyncio.get_running_loop()
        until = loop.time() + RECONNECT_FOR
        for delay in reconnect_delays():
            await asyncio.sleep(delay)
            if self._closed or loop.time() > until:
                return
            try:
                await self._drop()
                await self.open()
                return
            except LobbyRefused as exc:
                if exc.code in FINAL:
                    self.error = exc
                    return
            except OSError:
                pass
            except TlsFailed as exc:  # the server's certificate is not trusted now: trying again would only repeat it
                self.error = LobbyRefused("tls", str(exc))
                return

    async def _drop(self) -> None:
        """Let the lost connection go (its reader has ended)."""
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    async def _flush(self) -> None:
        data = self.client.data_to_send()
        if data and self._writer is not None:
            self._writer.write(data)
            await self._writer.drain()

    async def _read(self) -> None:
        assert self._reader is not None
        try:
            while True:
                data = await self._reader.read(65536)
                if not data:
                    raise LobbyRefused("closed", "the server closed the lobby")
                for answer in self.client.receive_data(data):
                    waiting = self._waiting.pop(answer.seq, None)
                    if waiting is not None and not waiting.done():
                        waiting.set_result(answer)
                if self.client.welcome is not None and self.welcome is None:
                    self.welcome = self.client.welcome
                    self._welcomed.set()
                await self._flush()  # pongs
        except (LobbyRefused, OSError) as exc:  # lost (not cancelled: a closing link or loop starts nothing)
            self.error = exc if isinstance(exc, LobbyRefused) else LobbyRefused("closed", f"the connection to {self.address} was lost")
            lost = self.welcome is not None and not self._closed and self.error.code not in FINAL
            if lost and (self.reconnecting is None or self.reconnecting.done()):
                self.reconnecting = asyncio.get_running_loop().create_task(self._reconnect())
        finally:
            self._welcomed.set()
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(self.error or LobbyRefused("closed", "the server closed the lobby"))
            self._waiting.clear()

    async def _ask(self, seq: int) -> Answer:
        if self.reconnecting is not None and not self.reconnecting.done():
            raise LobbyRefused("reconnecting", f"the connection to {self.address} was lost; reconnecting")
        if self.error is not None:
            raise self.error
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._waiting[seq] = future
        await self._flush()
        return await asyncio.wait_for(future, ANSWER_TIMEOUT)

    async def tables(self, *, query: str = "", page: int = 0, size: int = 20, mine: bool = False,
                     finished: bool = True) -> TablesPage | Rejected:
        answer = await self._ask(self.client.tables(query=query, page=page, size=size, mine=mine, finished=finished))
        assert isinstance(answer, (TablesPage, Rejected))
        return answer

    async def create(self, **kw: Any) -> Created | Rejected:
        answer = await self._ask(self.client.create(**kw))
        assert isinstance(answer, (Created, Rejected))
        return answer

    async def link(self, code: str) -> Linked | Rejected:
        """This door linked to the identity whose one-time code this is (its name is ours from now on)."""
        answer = await self._ask(self.client.link(code))
        assert isinstance(answer, (Linked, Rejected))
        if isinstance(answer, Linked) and self.welcome is not None:
            self.welcome = self.welcome.model_copy(update={"name": answer.name})
        return answer

    async def records(self) -> RecordsMsg | Rejected:
        """Every page of the club's records (`server.records`), as one answer."""
        return await every_record(lambda page: self._ask(self.client.records(page)))

    async def challenges(self) -> ChallengesMsg | Rejected:
        """The challenges taking tries now, with this identity's own."""
        answer = await self._ask(self.client.challenges())
        assert isinstance(answer, (ChallengesMsg, Rejected))
        return answer

    async def board(self, challenge: str) -> BoardMsg | Rejected:
        answer = await self._ask(self.client.board(challenge))
        assert isinstance(answer, (BoardMsg, Rejected))
        return answer

    async def close(self) -> None:
        self._closed = True
        if self.reconnecting is not None:
            self.reconnecting.cancel()
        if self._writer is not None:
            self._writer.close()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
