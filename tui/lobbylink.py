"""A server's lobby over asyncio streams, for the lobby screen (the same `LobbyClient` as
`cthulhu tables`, which drives it with trio). A reader task answers the server's pings and hands
each answer to the request waiting for it, so the screen may sit idle for as long as it likes."""

from __future__ import annotations

import asyncio
from typing import Any

from cthulhu.net.lobbyclient import Answer, LobbyClient, LobbyRefused
from cthulhu.net.messages import Created, LobbyWelcome, Rejected, TablesPage

ANSWER_TIMEOUT = 15.0


class LobbyLink:
    """One lobby session: `open()`, then `tables(...)` and `create(...)`; `close()`."""

    def __init__(self, host: str, port: int, *, name: str, ident: str | None, address: str) -> None:
        self.host = host
        self.port = port
        self.address = address  # as the player typed it (the seat store and join lines use it)
        self.client = LobbyClient(name, ident)
        self.welcome: LobbyWelcome | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None
        self._waiting: dict[int, asyncio.Future[Answer]] = {}
        self._welcomed = asyncio.Event()
        self.error: LobbyRefused | None = None

    async def open(self) -> LobbyWelcome:
        """Connect and be welcomed; `LobbyRefused` (a one-table host, a refusal) or `OSError`."""
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        await self._flush()
        self._task = asyncio.create_task(self._read())
        try:
            await asyncio.wait_for(self._welcomed.wait(), ANSWER_TIMEOUT)
        except asyncio.TimeoutError:
            raise LobbyRefused("timeout", f"no answer from {self.address}") from None
        if self.welcome is None:
            raise self.error or LobbyRefused("closed", f"{self.address} closed the connection")
        return self.welcome

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
        except (LobbyRefused, OSError) as exc:
            self.error = exc if isinstance(exc, LobbyRefused) else LobbyRefused("closed", f"the connection to {self.address} was lost")
        finally:
            self._welcomed.set()
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(self.error or LobbyRefused("closed", "the server closed the lobby"))
            self._waiting.clear()

    async def _ask(self, seq: int) -> Answer:
        if self.error is not None:
            raise self.error
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._waiting[seq] = future
        await self._flush()
        return await asyncio.wait_for(future, ANSWER_TIMEOUT)

    async def tables(self, *, query: str = "", page: int = 0, size: int = 20, mine: bool = False) -> TablesPage | Rejected:
        answer = await self._ask(self.client.tables(query=query, page=page, size=size, mine=mine))
        assert not isinstance(answer, Created)
        return answer

    async def create(self, **kw: Any) -> Created | Rejected:
        answer = await self._ask(self.client.create(**kw))
        assert not isinstance(answer, TablesPage)
        return answer

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
