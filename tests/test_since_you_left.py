"""Since you left, end to end at a real server (TCP on 127.0.0.1 port 0, its SQLite file on disk):
a player leaves, the other player and a stand-in bot move, the server restarts, and the player
back at the table is told exactly those moves (the stand-in's marked), grouped by turn; a second
return with nothing new is told nothing. A plain host does the same by seat token."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
import trio

from cthulhu.core import Setup
from cthulhu.net.lobbyclient import Lobby, LobbyClient
from cthulhu.net.messages import Created, SinceMsg
from cthulhu.net.table import TableSpec, open_table
from cthulhu.server import TableServer
from cthulhu.tui.link import SinceLeft
from cthulhu.tui.since import since_text, turns

from since_play import after, deciding, play_until, serving, sit, started, told, welcome_news

pytestmark = pytest.mark.trio


async def _table(port: int) -> str:
    lobby = Lobby(await trio.open_tcp_stream("127.0.0.1", port), LobbyClient("Ann", "key-ann"))
    await lobby.welcomed()
    created = await lobby.create(mode="shamblers", options={}, seats=2, bots=0, bot_delay_ms=0)
    assert isinstance(created, Created), created
    await lobby.stream.aclose()
    return created.id


async def _left(server: TableServer, table: str, peer: Any) -> int:
    """`peer` (Ann) hangs up: the step the server has her down as having seen, once it noted it."""
    before = server.people.seen.copy()
    await peer.aclose()
    ann = server.people.find("key-ann")
    assert ann is not None
    while server.people.seen.get((ann.id, table)) is before.get((ann.id, table)):
        await trio.sleep(0.01)
    return server.people.seen[(ann.id, table)].step


def _shown(recap: Any, since: SinceMsg) -> SinceLeft:
    """What the app makes of the two (`NetLink._since_left`, for a first welcome)."""
    return SinceLeft(seen=since.seen, step=since.step, entries=[[n, evs] for n, evs in after(recap, since.seen)],
                     stand_in={s: seat for s, seat in since.stand_in}, older=since.older)


def _ann_turn_done(peer: Any, got: list[Any]) -> bool:
    return deciding(peer) == 1


def _stand_in_moved(left: int) -> Any:
    """Bea has played her turn and the stand-in Ann's, since step `left`: Bea to decide again."""
    return lambda peer, got: deciding(peer) == 1 and any(d.cmd and d.cmd[0] == 0 and d.step > left for d in got)


async def test_a_player_back_at_a_server_table_is_told_exactly_what_they_missed(tmp_path):
    data = tmp_path / "data"
    async with serving(data) as (server, port):
        table = await _table(port)
        ann = await sit(port, "Ann", table_id=table, ident="key-ann")
        bea = await sit(port, "Bea", table_id=table, ident="key-bea")
        token = ann.session.token
        await started(ann)
        await play_until(ann, _ann_turn_done)
        left = ann.session.mirror.view["step"]
        assert await _left(server, table, ann) == left
        server.tables[table].host.hand_to_bot(0)  # a stand-in plays Ann's turns while she is away
        missed = await play_until(bea, _stand_in_moved(left))
        now = bea.session.mirror.view["step"]
        stand_in_steps = [d.step for d in missed if d.cmd and d.cmd[0] == 0 and d.step > left]
        await bea.aclose()
    with sqlite3.connect(data / "server.db") as db:  # it is in the server's database, past a restart
        [(step,)] = db.execute("SELECT s.step FROM seen s JOIN identities i ON i.id = s.identity_id WHERE i.name = 'Ann'")
    assert step == left

    async with serving(data) as (server, port):
        back = await sit(port, "Ann", table_id=table, ident="key-ann", token=token)
        assert back.session.seat == 0
        recap, since = await welcome_news(back)
        assert since is not None and (since.seen, since.step, since.older) == (left, now, 0)
        assert after(recap, left) == told(missed, left)  # exactly the moves made while she was away, in order
        assert [s for s, _ in since.stand_in] == stand_in_steps and {seat for _, seat in since.stand_in} == {0}

        view = back.session.mirror.view
        shown = _shown(recap, since)
        headings = [t.heading[1] for t in turns(shown, view) if t.heading]
        began = [e for _, evs in told(missed, left) for e in evs if e.get("type") == "turn_started"]
        assert len(headings) == len(began) >= 1
        assert all(h.startswith(f"Turn {e['turn']}:") for h, e in zip(headings, began))
        text = since_text(shown, view).plain
        assert "[stand-in]" in text and f"steps {left + 1} to {now}" in text

        assert await _left(server, table, back) == now  # she saw it all; nothing happens; she comes back
        back = await sit(port, "Ann", table_id=table, ident="key-ann", token=token)
        recap, since = await welcome_news(back)
        assert since is None
        await back.aclose()


async def test_a_plain_host_tells_a_seat_token_back_what_it_missed():
    host = open_table(TableSpec(start=Setup(mode="shamblers", seed=7, players=2)))
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.serve, 0)
        ann = await sit(port, "Ann")
        bea = await sit(port, "Bea")
        await started(ann)
        await play_until(ann, _ann_turn_done)
        left = ann.session.mirror.view["step"]
        token = ann.session.token
        await ann.aclose()
        while host.seats[0].peer is not None:
            await trio.sleep(0.01)
        missed = await play_until(bea, lambda p, got: deciding(p) == 0 and p.session.mirror.view["step"] > left)
        back = await sit(port, "Ann", token=token)
        recap, since = await welcome_news(back)
        assert since is not None and (since.seen, since.step, since.stand_in) == (left, bea.session.mirror.view["step"], [])
        assert after(recap, left) == told(missed, left)
        watcher = await sit(port, "Cy", watch=True)  # new here: the recap is all the story there is
        assert (await welcome_news(watcher))[1] is None
        nursery.cancel_scope.cancel()

