"""Turn-based tables at the table server, on in-memory streams and virtual time (the store is real
SQLite on disk, every table has its save): the pace and the deadline in the lobby's rows, "my
tables" saying where it is my move, a stand-in's move marked in the save, a running clock kept
across a restart (only the time it had left), a table whose clock runs closed with nobody there
and opened again at its deadline, and a bad pace refused."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import trio

from cthulhu.net.lobbymessages import Created, TablesPage
from cthulhu.net.messages import Rejected
from cthulhu.server import ServerLimits

from support.memory import create, kept_save, memory_server

pytestmark = pytest.mark.trio
WALL = datetime(2030, 1, 1, tzinfo=timezone.utc)


async def _create(lobby, **kw) -> Created:
    return await create(lobby, **{"bots": 0, "bot": "heuristic", **kw})


async def _row(lobby, table: str, **kw):
    page = await lobby.tables(**kw)
    assert isinstance(page, TablesPage)
    return next(r for r in page.rows if r.id == table)


async def _until(condition, step: float = 0.5) -> None:
    while not condition():
        await trio.sleep(step)


async def test_a_turn_based_tables_row_has_its_pace_and_deadline_and_a_silent_seat_gets_a_stand_in(tmp_path, clock, store_url):
    wall = [WALL]
    async with memory_server(tmp_path / "data", wall=lambda: wall[0], store_url=store_url) as ms:
        ada = await ms.lobby("Ada", "key-ada")
        created = await _create(ada, turn_time=60)
        row = await _row(ada, created.id)
        assert (row.pace, row.turn_time, row.on_timeout, row.deadline) == ("turn-based", 60, "stand-in", None)  # nobody decides yet
        a = await ms.peer(created.id, "Ada", ident="key-ada")
        b = await ms.peer(created.id, "Bea", ident="key-bea", address="10.0.0.2")
        table = ms.server.tables[created.id]
        host = table.host
        await _until(lambda: host.clock is not None)
        await trio.sleep(1)  # the record follows within a batch
        mover = host.clock.seat
        bea = await ms.lobby("Bea", "key-bea", address="10.0.0.2")
        rows = [await _row(lobby, created.id, mine=True) for lobby in (ada, bea)]
        assert [r.mine for r in rows] == [[0], [1]] and all(r.to_move == [mover] for r in rows)
        assert datetime.fromisoformat(rows[0].deadline) == host.clock.deadline == WALL + timedelta(seconds=60)

        step = host.game.step
        await trio.sleep(61)  # nobody says anything: a stand-in decides once the minute is up
        assert host.game.step > step and host.log.commands()[step][0] == mover
        save = kept_save(table.folder.parent, table.id, store_url)
        assert step + 1 in save.header.sealed  # the stand-in's move is a line in the save
        await a.aclose()
        await b.aclose()


def _ticking(shift: list[float]):
    """A wall clock that runs with trio's (`shift`: seconds it is ahead, e.g. while a server was down)."""
    return lambda: WALL + timedelta(seconds=trio.current_time() + shift[0])


async def test_a_running_clock_is_kept_across_a_restart_and_its_table_opened_at_its_deadline(tmp_path, clock, store_url):
    """The store keeps the deadline (UTC); the restarted server keeps the table closed until then
    (nobody is at it) and opens it by itself when it is due, so the clock runs out at the same
    wall time as before the restart."""
    data = tmp_path / "data"
    shift = [0.0]
    async with memory_server(data, wall=_ticking(shift), store_url=store_url) as ms:
        ada = await ms.lobby("Ada", "key-ada")
        created = await _create(ada, turn_time=3600, seats=1)
        a = await ms.peer(created.id, "Ada", ident="key-ada")
        host = ms.server.tables[created.id].host
        await _until(lambda: host.clock is not None)
        step, deadline = host.game.step, host.clock.deadline
        await trio.sleep(1)
    shift[0] += 1000  # the server was down for 1000 s of the hour
    wall = _ticking(shift)
    async with memory_server(data, wall=wall, store_url=store_url) as ms:
        table = ms.server.tables[created.id]
        assert table.clock_deadline() == deadline.isoformat() and len(ms.server.alarms) == 1
        await trio.sleep(2500)
        assert table.host is None  # not opened for its clock: a record and an alarm until it is due
        await _until(lambda: table.host is not None and table.host.game.step > step)
        assert deadline <= wall() <= deadline + timedelta(seconds=2)  # ran out at the same wall time as before
        assert step + 1 in table.host.log.sealed  # a stand-in's move
    del a


async def test_an_idle_turn_based_table_is_closed_and_opened_again_at_each_deadline(tmp_path, clock, caplog, store_url):
    """A table whose clock runs with nobody there is closed like a live one, and opened again when
    its clock runs out: the decision times out once, on time, and the next one's clock the same way."""
    caplog.set_level("INFO", logger="cthulhu.table.host")
    limits = ServerLimits(idle_close=60, sweep_every=10)
    wall = _ticking([0.0])
    async with memory_server(tmp_path / "data", limits, wall=wall, store_url=store_url) as ms:
        ada = await ms.lobby("Ada", "key-ada")
        timed = await _create(ada, turn_time=600, seats=1, on_timeout="skip")
        live = await _create(ada, seats=1)
        for made in (timed, live):
            peer = await ms.peer(made.id, "Ada", ident="key-ada")
            await _until(lambda: ms.server.tables[made.id].host.game.prompt is not None)
            await peer.aclose()
        table = ms.server.tables[timed.id]
        for _ in range(2):
            host = table.host
            await _until(lambda: host.clock is not None, step=0.1)
            step, deadline, due = host.game.step, host.clock.deadline, host.clock.due
            with trio.fail_after(500):
                await _until(lambda: table.host is None and ms.server.tables[live.id].host is None)  # both closed
            assert wall() < deadline - timedelta(seconds=400) and table.clock_deadline() == deadline.isoformat()
            await trio.sleep(due - 2 - trio.current_time())
            assert table.host is None  # nothing of it in memory but its record, until its deadline
            await _until(lambda: table.host is not None, step=0.1)  # opened again at its deadline
            assert deadline - timedelta(seconds=1) <= wall() <= deadline + timedelta(seconds=1)
            await _until(lambda: table.host.game.step > step and table.host.clock is not None, step=0.1)
            assert table.host.game.step == step + 1  # skipped once, and the next decision has its clock
            assert kept_save(table.folder.parent, table.id, store_url).last_step == step + 1
        timed_out = [r for r in caplog.records if "ran out of time" in r.getMessage()]
        assert len(timed_out) == 2, [r.getMessage() for r in timed_out]  # once a deadline, never twice
        assert ms.server.tables[live.id].host is None


async def test_a_bad_pace_is_refused_and_makes_nothing(tmp_path, clock, store_url):
    async with memory_server(tmp_path / "data", store_url=store_url) as ms:
        ada = await ms.lobby("Ada", "key-ada")
        with pytest.raises(Exception):
            await ada.create(mode="main", options={}, seats=2, turn_time=0)  # the wire model refuses it
        refused = await ada.create(mode="main", options={}, seats=2, turn_time=60, on_timeout="skip", bot="nonsense")
        assert isinstance(refused, Rejected) and refused.code == "bad_setup"
        assert not ms.server.tables


async def _listen(peer) -> None:
    """A person who sat down and never presses a key: their interface reads and answers pings."""
    while await peer.receive():
        await peer.flush()


async def _play_on(peer):
    """A person who plays their seat (the heuristic bot's choices, from their view) until the game
    is over, and who, if the table pauses for want of people while they wait (their investigator
    may be dead and only a stand-in's turns are left), presses `b` as the prompt bar asks."""
    from cthulhu.core.bots import make_bot

    session, bot, answered, backed = peer.session, None, None, None
    while session.game_over is None:
        prompt, view, table = session.my_prompt, session.mirror.view, session.table
        if prompt is not None and view is not None and prompt["version"] != answered and table.started:
            bot, answered = bot or make_bot("heuristic", table.mode, 1), prompt["version"]
            session.send_command(bot.choose_view(view), answered)
        elif table is not None and table.clock is not None and table.clock.idle and view is not None and backed != view["step"]:
            backed = view["step"]
            session.send_back()
        await peer.flush()
        if not await peer.receive():
            break
    return session


async def test_two_people_who_never_press_a_key_pause_their_table_and_one_who_plays_reaches_the_end(tmp_path, clock, store_url):
    """The issue's two tables, 2 s a decision on virtual time: the silent one pauses within two
    rounds (its clock stopped, listed as paused, its seats' stand-ins told) and no bot plays it
    out; at the other, the one player who plays takes it to its end past a silent neighbour."""
    from cthulhu.core import modes

    async with memory_server(tmp_path / "data", store_url=store_url) as ms:
        ada = await ms.lobby("Ada", "key-ada")
        silent = await _create(ada, turn_time=2)
        active = await _create(ada, turn_time=2)
        for table, name in ((silent, "Ada"), (silent, "Bea"), (active, "Bea")):
            ms.nursery.start_soon(_listen, await ms.peer(table.id, name, ident=f"key-{name.lower()}", address=f"10.0.0.{len(name)}"))
        host = ms.server.tables[silent.id].host
        with trio.fail_after(3600):
            await _until(lambda: host.clock is not None and host.clock.idle)
        assert modes.get("main").turn(host.game.state)[0] <= 5  # two rounds of two turns, from turn 1
        step = host.game.step
        await trio.sleep(600)  # three hundred turn times: nothing moves, no stand-in plays
        assert host.game.step == step and host.game.outcome is None and host.clock.due is None
        row = await _row(ada, silent.id)
        assert row.paused and row.deadline is None and row.away_after == 3 and not row.finished

        ann = await ms.peer(active.id, "Ann", ident="key-ann", address="10.0.0.9")
        with trio.fail_after(20 * 86_400):
            session = await _play_on(ann)
        played = ms.server.tables[active.id].host
        assert session.game_over is not None and played.game.outcome is not None
        seats = [seat for seat, _ in played.log.commands()]
        assert ann.session.seat in seats and played.log.sealed  # Ann's moves and Bea's stand-in's both
        await trio.sleep(1)
        row = await _row(ada, active.id)
        assert row.finished and not row.paused
        assert host.game.step == step  # the silent table still waits


async def test_the_stand_in_policys_memory_outlives_a_restart(tmp_path, clock, store_url):
    """Missed turns in a row and a seat a stand-in keeps are in the store (schema 7): a restart
    forgives nothing, and the kept seat is listed as `stand_in`."""
    data = tmp_path / "data"
    async with memory_server(data, store_url=store_url) as ms:
        ada = await ms.lobby("Ada", "key-ada")
        created = await _create(ada, turn_time=60, away_after=1, seats=2, bots=1)
        ms.nursery.start_soon(_listen, await ms.peer(created.id, "Ada", ident="key-ada"))
        host = ms.server.tables[created.id].host
        with trio.fail_after(3600):
            await _until(lambda: host.turns.missed.get(0) == 1)
        assert host.seats[0].clocked_out  # one missed turn is all this table allows
        await trio.sleep(1)
        assert [s.status for s in (await _row(ada, created.id)).seats] == ["stand_in", "bot"]
    async with memory_server(data, store_url=store_url) as ms:
        table = ms.server.tables[created.id]
        assert table.record.turns["missed"] == {"0": 1} and table.record.turns["kept"] == [0]
        ada = await ms.lobby("Ada", "key-ada")
        assert [s.status for s in (await _row(ada, created.id)).seats] == ["stand_in", "bot"]
        watcher = await ms.peer(created.id, "Cy", ident="key-cy", address="10.0.0.3", watch=True)
        await _until(lambda: table.host is not None)
        assert table.host.seats[0].clocked_out and table.host.turns.missed == {0: 1}
        del watcher
