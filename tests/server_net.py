"""A server of many tables over trio's in-memory streams, for tests on virtual time (see
tests/memory_net.py: the same idea for one host). Its data folder is real: the store is SQLite
on disk and every table has its save file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from cthulhu.net.client import PeerSession, TrioPeer
from cthulhu.net.lobbyclient import Lobby, LobbyClient
from cthulhu.net.messages import Created
from cthulhu.server import ServerLimits, TableServer, open_server

from memory_net import welcomed


@dataclass
class MemoryServer:
    server: TableServer
    nursery: trio.Nursery

    def pair(self, address: str = "10.0.0.1") -> trio.abc.Stream:
        client, end = trio.testing.memory_stream_pair()
        self.nursery.start_soon(self.server.handle, end, address)
        return client

    async def lobby(self, name: str = "Ada", ident: str | None = "key-ada", *, address: str = "10.0.0.1") -> Lobby:
        lobby = Lobby(self.pair(address), LobbyClient(name, ident))
        await lobby.welcomed()
        return lobby

    async def peer(self, table: str, name: str = "Ada", *, address: str = "10.0.0.1", **session: Any) -> TrioPeer:
        """A peer at `table` that has read up to its welcome (or the server's refusal)."""
        return await welcomed(TrioPeer(self.pair(address), PeerSession(name, table_id=table, **session)))


@pytest.fixture
def clock() -> trio.testing.MockClock:
    """Virtual time that jumps once nothing has happened for a moment of real time: a table's save
    and the store are written in worker threads, and a clock jumping while one runs would skip
    past every deadline there is."""
    return trio.testing.MockClock(autojump_threshold=0.05)


async def create(lobby: Lobby, **kw: Any) -> Created:
    """A table made in the lobby (main game, two seats, the last a random bot, no pause, unless told)."""
    args: dict[str, Any] = dict(mode="main", options={}, seats=2, bots=1, bot="random", bot_delay_ms=0)
    args.update(kw)
    created = await lobby.create(**args)
    assert isinstance(created, Created), created
    return created


@asynccontextmanager
async def memory_server(data: Path, limits: ServerLimits = ServerLimits(), *, quiet: bool = True, **kw: Any) -> AsyncIterator[MemoryServer]:
    """`open_server(data)` run on in-memory streams; cancelled (its tables saved, its store
    written) on leaving. `quiet`: no idle deadlines (a test's peers that are not reading while
    the clock jumps past a worker thread's wait are not closed for it)."""
    if quiet:
        limits = replace(limits, table=limits.table.but(idle_timeout=1e9, pong_timeout=1e9))
    server = open_server(data, limits=limits, **kw)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            yield MemoryServer(server, nursery)
            nursery.cancel_scope.cancel()
    finally:
        server.store.close()
        from cthulhu.savegame import release

        release(data / "server.db")
