"""A host's peers over trio's in-memory streams, for tests on virtual time.

With pytest-trio's `autojump_clock` the clock jumps to the next deadline whenever every task
waits, so an idle deadline or an `away_bot` delay passes at once, and "nothing happened for a
while" is a fact about the virtual clock, not a wait. No socket is involved (a socket's wait
is invisible to the clock): the host is run with `Host.run` and handed one end of each pair
(`Host.handle`), with the address its limits count.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import trio
import trio.testing

from cthulhu.core.bots import make_bot
from cthulhu.net.client import PeerSession, TrioPeer
from cthulhu.net.host import Host
from cthulhu.net.table import TableSpec, open_table


@dataclass
class MemoryTable:
    """A running host and the nursery its connections live in."""

    host: Host
    nursery: trio.Nursery

    def pair(self, address: str = "10.0.0.1") -> trio.abc.Stream:
        """A new connection from `address`: the host serves one end, the other is returned."""
        client, server = trio.testing.memory_stream_pair()
        self.nursery.start_soon(self.host.handle, server, address)
        return client

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
async def memory_table(spec: TableSpec) -> AsyncIterator[MemoryTable]:
    """`open_table(spec)` run on in-memory streams; cancelled on leaving."""
    async with trio.open_nursery() as nursery:
        host = open_table(spec)
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
