"""A server on real TCP and its players, for the "since you left" and notification tests: serve
a data folder, sit, make moves, leave, come back, and read what a welcome brought."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from cthulhu.core.bots import make_bot
from cthulhu.net.client import PeerSession, TrioPeer
from cthulhu.net.messages import Delta, Pong, RecapMsg, SinceMsg

from cthulhu.server import TableServer, open_server

from support.memory import until


@asynccontextmanager
async def serving(data: Path, **kw: Any) -> AsyncIterator[tuple[TableServer, int]]:
    """`open_server(data, **kw)` on 127.0.0.1, port 0; its port. Stopped (saves and store written) on leaving."""
    server = open_server(data, **kw)
    try:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.serve, 0)
            yield server, port
            nursery.cancel_scope.cancel()
    finally:
        server.store.close()
        from cthulhu.savegame import release

        release(data / "server.db")


async def sit(port: int, name: str, **session: Any) -> TrioPeer:
    """A peer at the host or server at 127.0.0.1:`port` (`table_id`, `ident`, `token`...), read up to its welcome."""
    peer = TrioPeer(await trio.open_tcp_stream("127.0.0.1", port), PeerSession(name, **session))
    peer.first = []  # type: ignore[attr-defined]  # what came with the welcome (`welcome_news`)
    await peer.flush()
    while not peer.session.welcomed and peer.session.closed is None:
        batch = await peer.receive()
        assert batch, "the host closed the connection"
        peer.first += batch  # type: ignore[attr-defined]
    return peer


def deciding(peer: TrioPeer) -> int | None:
    view = peer.session.mirror.view or {}
    prompt = view.get("prompt")
    return prompt["seat"] if prompt else None


async def started(peer: TrioPeer) -> None:
    await until(peer, lambda: peer.session.table is not None and peer.session.table.started and deciding(peer) is not None)


async def move(peer: TrioPeer, seed: int = 1, kind: str = "random") -> list[Delta]:
    """One decision for this peer's seat (a `kind` bot picks it from the view); the deltas read
    until the one it caused."""
    session = peer.session
    prompt = session.my_prompt
    assert prompt is not None, "not this seat's decision"
    chooser = make_bot(kind, session.table.mode if session.table else "shamblers", seed + session.commands)
    step = session.mirror.view["step"]
    session.send_command(chooser.choose_view(session.mirror.view), prompt["version"])
    await peer.flush()
    deltas: list[Delta] = []
    while not any(d.step > step for d in deltas):
        batch = await peer.receive()
        assert batch, "the server closed the connection"
        assert not session.rejections, session.rejections
        deltas += [m for m in batch if isinstance(m, Delta)]
    return deltas


async def play_until(peer: TrioPeer, stop: Any) -> list[Delta]:
    """This seat's decisions until `stop(peer, deltas)`; every delta it read on the way."""
    got: list[Delta] = []
    while not stop(peer, got):
        if peer.session.my_prompt is not None:
            got += await move(peer)
        else:
            batch = await peer.receive()
            assert batch, "the host closed the connection"
            got += [m for m in batch if isinstance(m, Delta)]
    return got


async def welcome_news(peer: TrioPeer) -> tuple[RecapMsg, SinceMsg | None]:
    """What came with the welcome: the recap, and the `since` if one came (a ping's pong marks the
    end: the host sends both with the welcome, before anything it answers later)."""
    got: list[Any] = list(peer.first)  # type: ignore[attr-defined]
    peer.session.ping(4242)
    await peer.flush()
    while not any(isinstance(m, Pong) and m.n == 4242 for m in got):
        batch = await peer.receive()
        assert batch, "the server closed the connection"
        got += batch
    [recap] = [m for m in got if isinstance(m, RecapMsg)]
    since = [m for m in got if isinstance(m, SinceMsg)]
    assert len(since) <= 1
    return recap, since[0] if since else None


def after(recap: RecapMsg, step: int) -> list[tuple[int, list[dict[str, Any]]]]:
    return [(n, events) for n, events in recap.entries if n > step]


def told(deltas: list[Delta], step: int) -> list[tuple[int, list[dict[str, Any]]]]:
    return [(d.step, list(d.events)) for d in deltas if d.step > step and d.events]
