"""A server in front of strangers (issue 36): listings whose work does not grow with the tables,
a lobby budget for all sessions, creation that a flood cannot exhaust, and a frame allowance shared
by every connection. Work is counted (tables looked at, answers, frames), never timed."""

from __future__ import annotations

import functools
import socket
from datetime import datetime, timedelta, timezone

import pytest
import trio
import trio.testing

from cthulhu.core import Setup
from cthulhu.net.frames import encode_frame
from cthulhu.net.lobbyclient import TrioLobby, LobbyClient
from cthulhu.net.lobbymessages import Created, CreateTable, TablesPage
from cthulhu.net.messages import Rejected
from cthulhu.server import Changes, ServerLimits, SqliteStore, TableRecord
from cthulhu.server import Refused
from cthulhu.server.table import ServerTable
from cthulhu.table import TableSpec

from support.memory import create, memory_server

pytestmark = pytest.mark.trio
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _records(n: int) -> list[TableRecord]:
    """`n` tables as a store keeps them, each with a player away (no game opened: a listing never
    opens one); the odd ones full (a bot in the other seat), the even ones with a seat open."""
    setup = Setup(mode="main", seed=1, players=2).model_dump(mode="json")
    out = []
    for k in range(n):
        when = (START + timedelta(seconds=k)).isoformat(timespec="seconds")
        last = {"seat": 1, "name": "random", "status": "bot"} if k % 2 else {"seat": 1, "name": None, "status": "open"}
        seats = [{"seat": 0, "name": f"player{k}", "status": "away"}, last]
        out.append(TableRecord(id=f"t{k:011d}", mode="main", spec=TableSpec.of_kept(setup, {"bots": {"1": "random"}}), created=when,
                               save=f"t{k:011d}.save", seats=seats, updated=when, last_move=when))
    return out


def _stored(data, records) -> None:
    (data / "tables").mkdir(parents=True)
    store = SqliteStore(data / "server.db")
    store.commit(Changes(tables={r.id: r for r in records}))
    store.close()


class Looked:
    """How often the listing's per-table calls ran (the real ones, counted on the way through)."""

    NAMES = ("visible_to", "search_text", "activity", "open_seats", "row")

    def __init__(self, monkeypatch) -> None:
        self.calls = 0
        for name in self.NAMES:
            real = getattr(ServerTable, name)

            def counted(*args, _real=real, **kw):
                self.calls += 1
                return _real(*args, **kw)

            monkeypatch.setattr(ServerTable, name, counted)


# -- 1. listings ---------------------------------------------------------------------------------


async def test_a_listing_at_ten_thousand_tables_looks_at_its_page_not_at_every_table(tmp_path, clock, monkeypatch):
    data = tmp_path / "data"
    _stored(data, _records(10_000))
    async with memory_server(data) as ms:
        lobby = await ms.lobby()
        looked = Looked(monkeypatch)
        first = await lobby.tables(size=100)
        assert isinstance(first, TablesPage) and (first.total, len(first.rows)) == (10_000, 100)
        assert [r.id for r in first.rows[:2]] == ["t00000009998", "t00000009996"]  # open seats first, newest first
        deep = await lobby.tables(page=50, size=100)  # past the open ones: the full tables, newest first
        assert deep.rows[0].id == "t00000009999" and len(deep.rows) == 100
        name = await lobby.tables(query="player4321")
        everyone = await lobby.tables(query="main player", page=1, size=100)  # every table matches: the newest 300 are searched
        forty = await lobby.tables(query=" ".join("abcdefghijklmnopqrstuvwxyz0123456789pqrs"))  # 40 words, 79 characters
        assert [r.id for r in name.rows] == ["t00000004321"] and forty.total == 0
        assert everyone.total == 300 and everyone.rows[0].id == "t00000009798"
        assert looked.calls <= 5 * 3 * 100  # the rows on the pages (a few calls each), not 10,000 tables a listing
        assert ms.server.listings.examined < 20_000


async def test_the_lobby_answers_all_its_sessions_from_one_budget_while_a_table_plays(tmp_path, clock):
    """Forty sessions from forty networks ask for listings as fast as they are answered: in all they
    get the server's lobby budget, not forty times a session's; a table's frames are all answered."""
    limits = ServerLimits(lobby_all=(10.0, 20))
    async with memory_server(tmp_path / "data", limits) as ms:
        maker = await ms.lobby()
        table = await create(maker)
        player = await ms.peer(table.id, "Ada", ident="key-ada")
        answered = 0
        pongs = 0

        async def ask(n: int) -> None:
            nonlocal answered
            lobby = await ms.lobby(f"s{n}", None, address=f"10.{n}.0.1")
            while True:
                if isinstance(await lobby.tables(query="main"), TablesPage):
                    answered += 1

        async def ping() -> None:
            nonlocal pongs
            for n in range(100):
                player.session.ping(n)
                await player.flush()
                while not any(getattr(m, "t", "") == "pong" and m.n == n for m in await player.receive()):
                    pass
                pongs += 1
                await trio.sleep(0.1)

        async with trio.open_nursery() as nursery:
            for n in range(40):
                nursery.start_soon(ask, n)
            await trio.sleep(1)  # every session welcomed and asking
            answered = 0
            await ping()  # ten seconds of virtual time
            nursery.cancel_scope.cancel()
        assert pongs == 100
        assert answered <= 10 * 11 + 20 + 40  # the budget's rate and burst (and one each in flight), not 40 x 4 a second


# -- 2. creation -----------------------------------------------------------------------------------


async def _lobby_at(ms, address: str, name: str = "x", ident: str | None = None) -> TrioLobby:
    return await ms.lobby(name, ident, address=address)


async def test_a_creation_flood_from_forty_networks_leaves_room_for_a_player(tmp_path, clock):
    limits = ServerLimits(max_tables=30, creates=(1 / 3600, 3), max_untouched=(3, 200))  # (no token back while a save is written)
    async with memory_server(tmp_path / "data", limits) as ms:
        made = 0
        for n in range(40):  # 120 tables nobody sits at, four times what the server keeps
            flooder = await _lobby_at(ms, f"10.{n}.0.1")
            for _ in range(4):
                made += isinstance(await flooder.create(mode="main", options={}, seats=2, bots=1, bot="random", bot_delay_ms=0), Created)
        assert made == 120 and len(ms.server.untouched) == 120
        player = await _lobby_at(ms, "192.0.2.7", "Ada", "key-ada")
        mine = await create(player)  # not `server_full`: nobody sat at the flood's tables
        assert (await ms.peer(mine.id, "Ada", ident="key-ada")).session.seat is not None


async def test_untouched_tables_expire_within_minutes_and_one_sat_at_stays(tmp_path, clock):
    limits = ServerLimits(untouched_expiry=(300.0, 1800.0), sweep_every=30.0)
    async with memory_server(tmp_path / "data", limits) as ms:
        stranger = await _lobby_at(ms, "10.9.0.1")
        player = await _lobby_at(ms, "192.0.2.7", "Ada", "key-ada")
        nobody = await create(stranger)
        kept = await create(player)  # its creator's identity holds it longer
        sat = await create(stranger)
        await ms.peer(sat.id, "Bea", address="10.8.0.1")
        assert {nobody.id, kept.id} <= set(ms.server.untouched.since) and sat.id not in ms.server.untouched
        await trio.sleep(400)
        rows = {r.id for r in (await player.tables(size=100)).rows}
        assert nobody.id not in rows and {kept.id, sat.id} <= rows
        assert not (tmp_path / "data" / "tables" / f"{nobody.id}.save").exists()
        assert (await ms.peer(nobody.id, "late")).session.closed.code == "no_such_table"
        await trio.sleep(1800)
        rows = {r.id for r in (await player.tables(size=100)).rows}
        assert kept.id not in rows and sat.id in rows
        await ms.server.flush()
        stored = {r.id for r in ms.server.store.load().tables}
        assert stored == {sat.id}


async def test_a_network_over_its_untouched_tables_loses_its_own_oldest_not_anyone_elses(tmp_path, clock):
    limits = ServerLimits(creates=(10.0, 20), max_untouched=(3, 5))
    async with memory_server(tmp_path / "data", limits) as ms:
        player = await _lobby_at(ms, "192.0.2.7", "Ada", "key-ada")
        mine = await create(player)
        flooder = await _lobby_at(ms, "10.9.0.1")
        theirs = [(await create(flooder)).id for _ in range(8)]
        await trio.sleep(1)
        left = set(ms.server.tables)
        assert mine.id in left and left & set(theirs) == set(theirs[-3:])  # its own cap: its newest three


async def test_creation_budgets_by_network_survive_five_thousand_churned_addresses(tmp_path, clock):
    limits = ServerLimits(creates=(1 / 3600, 2))
    async with memory_server(tmp_path / "data", limits) as ms:
        server = ms.server
        flooder = await _lobby_at(ms, "10.0.0.1")
        for _ in range(2):
            await create(flooder)
        again = await flooder.create(mode="main", options={}, seats=2)
        assert isinstance(again, Rejected) and again.code == "slow_down"
        for n in range(5_000):  # other networks' creates (refused for their set-up, after spending a token)
            with pytest.raises(Refused):
                await server.create(CreateTable(seq=n, mode="nothing"), None, f"{n // 250 + 11}.{n % 250}.0.1")
        neighbour = await _lobby_at(ms, "10.0.0.99")  # the same /24: the same spent budget
        for lobby in (flooder, neighbour):
            again = await lobby.create(mode="main", options={}, seats=2)
            assert isinstance(again, Rejected) and again.code == "slow_down"


async def test_prefixes_and_a_bounded_set_of_budgets():
    from cthulhu.net.budgets import PrefixBudgets, prefix_of

    assert prefix_of("10.1.2.3") == prefix_of("10.1.2.200") == "10.1.2.0/24" != prefix_of("10.1.3.3")
    assert prefix_of("2001:db8:1:2:3::4") == prefix_of("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert prefix_of("::ffff:10.1.2.3") == "10.1.2.0/24" and prefix_of("?") == "?"
    now = [0.0]
    budgets = PrefixBudgets((1.0, 1), lambda: now[0], size=100)
    assert budgets.take("10.0.0.1") and not budgets.take("10.0.0.2")
    for n in range(5_000):
        budgets.take(f"11.{n // 250}.{n % 250}.1")
    assert len(budgets.buckets) == 100 and not budgets.take("10.0.0.3")  # never forgotten while spent
    now[0] = 10.0
    assert budgets.take("10.0.0.4")


# -- 7. fairness -----------------------------------------------------------------------------------


async def test_frames_from_one_network_share_one_allowance_and_others_are_answered(tmp_path, clock):
    limits = ServerLimits(table=ServerLimits().table.but(prefix_frames=(50.0, 50), all_frames=(10_000.0, 10_000), max_spectators=64))
    async with memory_server(tmp_path / "data", limits) as ms:
        lobby = await ms.lobby()
        table = await create(lobby)
        player = await ms.peer(table.id, "Ada", ident="key-ada", address="192.0.2.7")
        watchers = [await ms.peer(table.id, f"w{n}", watch=True, address=f"10.9.0.{n}") for n in range(10)]
        pongs = 0
        flood = b"".join(encode_frame({"t": "ping", "n": n}) for n in range(100))

        async def watcher(peer) -> None:
            nonlocal pongs
            while True:
                await peer.stream.send_all(flood)
                pongs += sum(1 for m in await peer.receive() if getattr(m, "t", "") == "pong")

        async with trio.open_nursery() as nursery:
            for peer in watchers:
                nursery.start_soon(watcher, peer)
            await trio.sleep(1)
            pongs = 0
            answered = 0
            for n in range(50):  # ten seconds
                player.session.ping(n)
                await player.flush()
                while not any(getattr(m, "t", "") == "pong" for m in await player.receive()):
                    pass
                answered += 1
                await trio.sleep(0.2)
            nursery.cancel_scope.cancel()
        assert answered == 50
        assert pongs <= 50 * 11 + 50 + 10 * 100  # one network's allowance (and what was in flight), not 10 x 100 a second


async def test_a_closed_connections_buffered_frames_are_dropped_not_read(tmp_path):
    """A watcher writes 3,000 chat lines and hangs up before the table has read them (a real
    socket, real time): the table drops what is left instead of reading it at the frame rate for
    half a minute, relaying a line a second."""
    from cthulhu.net.client import PeerSession

    async with memory_server(tmp_path / "data") as ms:
        lobby = await ms.lobby()
        table = await create(lobby, seats=2, bots=1)
        listener = await ms.peer(table.id, "Ada", ident="key-ada", address="192.0.2.7")
        host = ms.server.tables[table.id].host
        async with trio.open_nursery() as nursery:
            [tcp] = await nursery.start(functools.partial(trio.serve_tcp, lambda s: ms.server.handle(s, "10.9.0.1"), 0, host="127.0.0.1"))
            raw = socket.create_connection(("127.0.0.1", tcp.socket.getsockname()[1]))
            spam = b"".join(encode_frame({"t": "chat", "text": f"spam {n}"}) for n in range(3_000))
            raw.sendall(PeerSession("spam", table_id=table.id, watch=True).data_to_send() + spam)  # (in one go, no checkpoint)
            raw.shutdown(socket.SHUT_WR)  # all of it is in the table's socket buffer, and then the end
            heard = []
            while not heard:  # it is in: its first lines are relayed
                heard += [m for m in await listener.receive() if getattr(m, "t", "") == "chat"]
            while any(p.name == "spam" for p in host.peers):
                await trio.sleep(0.01)
            with trio.move_on_after(0.5):  # what was relayed before it left, still on its way
                while True:
                    heard += [m for m in await listener.receive() if getattr(m, "t", "") == "chat"]
            raw.close()
            nursery.cancel_scope.cancel()
        assert len(heard) <= 5 + 1  # the chat burst of what it read at once; then it was gone


async def test_one_tables_crowd_is_served_from_the_tables_own_allowance(tmp_path, clock):
    """Twelve watchers of one table, from three networks, flood it with pings and chat: together they
    are answered no faster than the table's own frame allowance (not three networks' worth), the
    table relays no more chat than its own line budget, and a player at another table is answered
    every time."""
    table_limits = ServerLimits().table
    rate, burst = table_limits.watcher_frames
    lines, line_burst = table_limits.table_chat
    async with memory_server(tmp_path / "data") as ms:
        lobby = await ms.lobby()
        hostile, quiet = await create(lobby), await create(lobby)
        listener = await ms.peer(hostile.id, "Ada", ident="key-ada", address="192.0.2.7")
        player = await ms.peer(quiet.id, "Bea", ident="key-bea", address="192.0.2.8")
        watchers = [await ms.peer(hostile.id, f"w{n}", watch=True, address=f"10.{n % 3}.0.{n}") for n in range(12)]
        pongs = chats = 0
        flood = b"".join(encode_frame({"t": "ping", "n": n}) if n % 2 else encode_frame({"t": "chat", "text": f"spam {n}"})
                         for n in range(100))

        async def watcher(peer) -> None:
            nonlocal pongs
            while True:
                await peer.stream.send_all(flood)
                pongs += sum(1 for m in await peer.receive() if getattr(m, "t", "") == "pong")

        async def listen() -> None:
            nonlocal chats
            while True:
                chats += sum(1 for m in await listener.receive() if getattr(m, "t", "") == "chat")

        async with trio.open_nursery() as nursery:
            for peer in watchers:
                nursery.start_soon(watcher, peer)
            nursery.start_soon(listen)
            await trio.sleep(1)
            pongs = chats = 0
            answered, began = 0, trio.current_time()
            for n in range(50):  # ten seconds
                player.session.ping(n)
                await player.flush()
                while not any(getattr(m, "t", "") == "pong" for m in await player.receive()):
                    pass
                answered += 1
                await trio.sleep(0.2)
            took = trio.current_time() - began
            nursery.cancel_scope.cancel()
        assert answered == 50
        assert pongs <= (rate * took + burst) / 2 + 12  # half the frames are pings: the table's allowance (and one each in flight)
        assert 0 < chats <= lines * (took + 1) + 2 * line_burst  # (and what was on its way to Ada at the start)
