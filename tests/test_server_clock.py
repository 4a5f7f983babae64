"""Turn-based tables at the table server, on in-memory streams and virtual time (the store is real
SQLite on disk, every table has its save): the pace and the deadline in the lobby's rows, "my
tables" saying where it is my move, a stand-in's move marked in the save, a running clock kept
across a restart (only the time it had left), a table whose clock runs kept open with nobody
there, and a bad pace refused."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import trio

from cthulhu.net.messages import Created, Rejected, TablesPage
from cthulhu.savegame import load
from cthulhu.server import ServerLimits

from server_net import clock, create, memory_server  # noqa: F401 (clock: a fixture)

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


async def test_a_turn_based_tables_row_has_its_pace_and_deadline_and_a_silent_seat_gets_a_stand_in(tmp_path, clock):
    wall = [WALL]
    async with memory_server(tmp_path / "data", wall=lambda: wall[0]) as ms:
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
        assert host.game.step > step and host.seats[mover].clocked_out
        save = load(table.save_path)
        assert step + 1 in save.header.sealed  # the stand-in's move is a line in the save
        await a.aclose()
        await b.aclose()


async def test_a_running_clock_is_kept_across_a_restart_and_its_table_opened_at_once(tmp_path, clock):
    """The store keeps the deadline (UTC); the restarted server opens the table by itself (its
    clock must run out even if nobody comes) and gives the decision only what it had left."""
    data = tmp_path / "data"
    wall = [WALL]
    async with memory_server(data, wall=lambda: wall[0]) as ms:
        ada = await ms.lobby("Ada", "key-ada")
        created = await _create(ada, turn_time=3600, seats=1)
        a = await ms.peer(created.id, "Ada", ident="key-ada")
        host = ms.server.tables[created.id].host
        await _until(lambda: host.clock is not None)
        step = host.game.step
        await trio.sleep(1)
    wall[0] += timedelta(seconds=1000)  # the server was down for 1000 s of the hour
    async with memory_server(data, wall=lambda: wall[0]) as ms:
        table = ms.server.tables[created.id]
        await _until(lambda: table.host is not None)  # opened with nobody at it
        host = table.host
        await _until(lambda: host.clock is not None)
        assert host.clock.step == step and host.clock.left(trio.current_time()) == pytest.approx(2600, abs=2)
        assert host.clock.deadline == WALL + timedelta(seconds=3600)
        await trio.sleep(1000)
        assert host.game.step == step and table.host is host  # kept open while its clock runs
        await trio.sleep(1700)
        assert host.game.step > step and host.seats[0].clocked_out  # ran out at the same wall time as before
    del a


async def test_a_table_whose_clock_runs_stays_open_and_a_live_one_closes(tmp_path, clock):
    limits = ServerLimits(idle_close=60, sweep_every=10)
    async with memory_server(tmp_path / "data", limits) as ms:
        ada = await ms.lobby("Ada", "key-ada")
        timed = await _create(ada, turn_time=600, seats=1)
        live = await _create(ada, seats=1)
        for table in (timed, live):
            peer = await ms.peer(table.id, "Ada", ident="key-ada")
            await _until(lambda: ms.server.tables[table.id].host.game.prompt is not None)
            await peer.aclose()
        with trio.fail_after(500):
            await _until(lambda: ms.server.tables[live.id].host is None)  # nobody there, nothing running: closed
        await trio.sleep(max(0.0, 400 - trio.current_time()))  # far past idle_close, not yet past the clock
        assert ms.server.tables[timed.id].host is not None and ms.server.tables[timed.id].host.clock is not None


async def test_a_bad_pace_is_refused_and_makes_nothing(tmp_path, clock):
    async with memory_server(tmp_path / "data") as ms:
        ada = await ms.lobby("Ada", "key-ada")
        with pytest.raises(Exception):
            await ada.create(mode="main", options={}, seats=2, turn_time=0)  # the wire model refuses it
        refused = await ada.create(mode="main", options={}, seats=2, turn_time=60, on_timeout="skip", bot="nonsense")
        assert isinstance(refused, Rejected) and refused.code == "bad_setup"
        assert not ms.server.tables
