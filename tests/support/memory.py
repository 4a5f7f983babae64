"""A host's or a server's peers over trio's in-memory streams, for tests on virtual time.

With pytest-trio's `autojump_clock` the clock jumps to the next deadline whenever every task
waits, so an idle deadline or an `away_bot` delay passes at once, and "nothing happened for a
while" is a fact about the virtual clock, not a wait. No socket is involved (a socket's wait
is invisible to the clock): the host is run with `Host.run` and handed one end of each pair
(`Host.handle`), with the address its limits count.

A server of many tables (`memory_server`) is the same idea: its data folder is real, the store is
SQLite on disk and every table has its save file, or (`store_url`) a real PostgreSQL database keeping
the records and the saves (support/pgcluster.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import trio
import trio.testing

from cthulhu.core.bots import make_bot
from cthulhu.net.client import PeerSession, TrioPeer
from cthulhu.net.lobbyclient import LobbyClient, TrioLobby
from cthulhu.net.lobbymessages import Created
from cthulhu.savegame import SaveFile, decode, load
from cthulhu.server import ServerLimits, TableServer, open_server
from cthulhu.table import Host, TableSpec, open_table


def serve_pair(nursery: trio.Nursery, handle: Any, address: str) -> trio.abc.Stream:
    """A new connection from `address`: `handle` (a host's or a server's) serves one end, the other is returned."""
    client, end = trio.testing.memory_stream_pair()
    nursery.start_soon(handle, end, address)
    return client


@dataclass
class MemoryTable:
    """A running host and the nursery its connections live in."""

    host: Host
    nursery: trio.Nursery

    def pair(self, address: str = "10.0.0.1") -> trio.abc.Stream:
        """A new connection from `address`: the host serves one end, the other is returned."""
        return serve_pair(self.nursery, self.host.handle, address)

    async def connect(self, name: str, *, address: str = "10.0.0.1", **session: Any) -> TrioPeer:
        """A peer that has said hello and read up to its welcome (or the host's refusal)."""
        return await welcomed(TrioPeer(self.pair(address), PeerSession(name, **session)))


async def welcomed(peer: TrioPeer) -> TrioPeer:
    """`peer` after its hello, read up to its welcome (or the refusal)."""
    await peer.flush()
    while not peer.session.welcomed and peer.session.closed is None:
        if not await peer.receive():
            break
    return peer


@asynccontextmanager
async def memory_table(spec: TableSpec, **opening: Any) -> AsyncIterator[MemoryTable]:
    """`open_table(spec, **opening)` run on in-memory streams; cancelled on leaving."""
    async with trio.open_nursery() as nursery:
        host = open_table(spec, **opening)
        await nursery.start(host.run)
        yield MemoryTable(host, nursery)
        nursery.cancel_scope.cancel()


async def until(peer: TrioPeer, done) -> None:
    """Read until `done()`; the host closing the connection first is a failure."""
    while not done():
        assert await peer.receive(), "the host closed the connection"


async def play_until_seat_decides(a: TrioPeer, seat: int) -> None:
    """Seat `a` plays its first option until `seat` is the one deciding (the host closing first is a failure)."""
    while True:
        prompt = a.session.mirror.prompt
        if prompt is not None and prompt["seat"] == seat and not a.session.mirror.stale:
            return
        if a.session.my_prompt is not None:
            version = a.session.my_prompt["version"]
            a.session.send_command(a.session.my_prompt["options"][0]["command"])
            await a.flush()
            await until(a, lambda: (a.session.mirror.prompt or {}).get("version") != version)
        else:
            assert await a.receive(), "the host closed the connection"


async def play_to_the_end(peer: TrioPeer, bot: str = "random", seed: int = 1) -> PeerSession:
    """This peer's seat played by a `bot` from its view until the game is over."""
    session = peer.session
    chooser = None
    answered: int | None = None
    while session.game_over is None:
        prompt, view = session.my_prompt, session.mirror.view
        if prompt is not None and view is not None and prompt["version"] != answered and session.table and session.table.started:
            chooser = chooser or make_bot(bot, session.table.mode, seed)
            answered = prompt["version"]
            session.send_command(chooser.choose_view(view), answered)
            await peer.flush()
        if not await peer.receive():
            break
    return session


@dataclass
class MemoryServer:
    """A running server and the nursery its connections live in."""

    server: TableServer
    nursery: trio.Nursery

    def pair(self, address: str = "10.0.0.1") -> trio.abc.Stream:
        return serve_pair(self.nursery, self.server.handle, address)

    async def lobby(self, name: str = "Ada", ident: str | None = "key-ada", *, address: str = "10.0.0.1") -> TrioLobby:
        lobby = TrioLobby(self.pair(address), LobbyClient(name, ident))
        await lobby.welcomed()
        return lobby

    async def peer(self, table: str, name: str = "Ada", *, address: str = "10.0.0.1", **session: Any) -> TrioPeer:
        """A peer at `table` that has read up to its welcome (or the server's refusal)."""
        return await welcomed(TrioPeer(self.pair(address), PeerSession(name, table_id=table, **session)))


def kept_save(data: Path, table_id: str, store_url: str | None) -> SaveFile:
    """A table's save as its server kept it: its file in `data`, or its rows in the database."""
    if store_url is None:
        return load(data / "tables" / f"{table_id}.save")
    from cthulhu.server.postgres import PostgresStore

    store = PostgresStore(store_url)
    try:
        kept = store.shelf(table_id).read()
    finally:
        store.close()
    assert kept is not None, f"no save kept for {table_id}"
    return decode(kept)


def kept_rows(data: Path, store_url: str | None, sql: str) -> list[tuple[Any, ...]]:
    """What `sql` reads from the store, by another connection (as after a restart)."""
    import sqlite3

    if store_url is None:
        db = sqlite3.connect(data / "server.db")
        try:
            return db.execute(sql).fetchall()
        finally:
            db.close()
    import psycopg

    with psycopg.connect(store_url) as pg:
        return pg.execute(sql).fetchall()


async def create(lobby: TrioLobby, **kw: Any) -> Created:
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
