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
from cthulhu.net.lobbyclient import TrioLobby, LobbyClient
from cthulhu.net.lobbymessages import Created
from cthulhu.net.messages import SinceMsg
from cthulhu.table import TableSpec, open_table
from cthulhu.server import TableServer
from cthulhu.tui.link import SinceLeft
from cthulhu.tui.since import since_text, turns

from support.since_play import after, deciding, play_until, serving, sit, started, told, welcome_news

pytestmark = pytest.mark.trio


async def _table(port: int) -> str:
    lobby = TrioLobby(await trio.open_tcp_stream("127.0.0.1", port), LobbyClient("Ann", "key-ann"))
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



def _long_absence(seen: int, steps: int) -> tuple[SinceLeft, dict[str, Any], list[int]]:
    """A real two-seat game (the main mode, random bots on both seats, as `cthulhu sim` plays seed 14) from its start: the player of seat 0 left
    after step `seen` and a stand-in played their seat for `steps` steps while seat 1 played on.
    What the app makes of it, the view now, and the stand-in's steps."""
    from cthulhu.core import Game
    from cthulhu.core.bots import make_bot
    from cthulhu.core.sim import choose, game_seed

    game = Game.new(Setup(mode="main", seed=14, players=2))
    bots = {seat: make_bot("random", "main", game_seed(14, seat + 1)) for seat in (0, 1)}
    entries, stand_in = [], {}
    while game.step < seen + steps and game.outcome is None:
        seat = game.prompt.seat
        events = game.apply(seat, choose(bots[seat], game, seat, None))
        if game.step > seen:
            entries.append([game.step, [e.wire() for e in events]])
            if seat == 0:
                stand_in[game.step] = 0
    since = SinceLeft(seen=seen, step=game.step, entries=entries, stand_in=stand_in, older=0)
    return since, game.view(0), sorted(stand_in)


async def test_a_long_absence_tells_the_newest_lines_each_seat_and_every_older_turn():
    since, view, stood_in = _long_absence(seen=4, steps=108)
    assert since.step - since.seen == 108 and len(stood_in) > 10
    groups = turns(since, view)
    text = since_text(since, view, mine={0}).plain
    lines = text.splitlines()
    newest = lines[lines.index(next(l for l in lines if l.startswith("The newest 30 lines"))) + 1:lines.index("What happened to each seat:")]
    told = [l for l in newest if l.startswith("  ") and not l.startswith("  ... ")]
    last = [sentence for _, sentence in groups[-1].lines][-1]
    assert len([l for l in newest if l.strip()]) >= 30 and told[-1].strip() == last  # the newest 30 lines, whole, to the last
    seats = lines[lines.index("What happened to each seat:"):lines.index("Older turns, a line each:")]
    ours = seats[1:seats.index(next(l for l in seats[2:] if not l.startswith("  ")))]
    assert ours[0].endswith("(you):")
    assert [int(l.split()[1].rstrip(":")) for l in ours if l.startswith("  step ")] == stood_in  # every decision made for her,
    assert all("[stand-in]" in l for l in ours if l.startswith("  step "))  # marked
    older = lines[lines.index("Older turns, a line each:") + 1:]
    in_full = {int(l.split()[1].rstrip(":,")) for l in newest if l.startswith("Turn ")}
    every = [t for t in groups if t.number not in in_full]
    assert len(older) == len(every) >= 10 and set(in_full) | {t.number for t in every} == {t.number for t in groups}  # one line each
    for turn, line in zip(every, older):
        assert line.startswith(f"  Turn {turn.number}") and "in the Log)" in line
