"""The host and bot peers on real sockets: full games with mirrors in step, reconnects, seats."""

from __future__ import annotations

import pytest
import trio

from cthulhu.net.client import PeerSession, TrioPeer, play_bot
from cthulhu.table import Host
from cthulhu.table import TableSpec, open_table
from cthulhu.net.messages import Delta, Rejected

from support.net_games import MODES, make_game

pytestmark = pytest.mark.trio


async def start_host(nursery, game, **kw) -> Host:
    host = open_table(TableSpec(start=game, **kw))
    await nursery.start(host.serve)
    return host


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", [1, 2])
async def test_four_bot_peers_play_to_the_end_in_step(mode, seed):
    game = make_game(mode, seed=seed, players=4)
    host_hashes: dict[tuple[int, int | None], str] = {}
    mirror_hashes: dict[tuple[int, int | None], str] = {}

    def record(session, messages):
        for m in messages:
            if isinstance(m, Delta):
                assert not session.mirror.stale
                mirror_hashes[(session.mirror.seq, session.seat)] = session.mirror.hash

    async with trio.open_nursery() as nursery:
        host = await start_host(nursery, game, code="secret-code")
        host.on_delta = lambda seq, key, h: host_hashes.__setitem__((seq, key), h)
        sessions = []

        async def one(i):
            sessions.append(await play_bot("127.0.0.1", host.port, bot=("random", "heuristic")[i % 2], seed=i, name=f"p{i}", code="secret-code", on_messages=record))

        async with trio.open_nursery() as peers:
            for i in range(4):
                peers.start_soon(one, i)
        nursery.cancel_scope.cancel()

    assert game.outcome is not None
    assert sorted(s.seat for s in sessions) == [0, 1, 2, 3]
    log = host.log  # a table without a save keeps its steps in memory
    assert len(log.entries) == game.step and log.entries[-1].hash == game.state_hash()
    assert host.crashes == 0
    assert mirror_hashes == host_hashes and len(host_hashes) == 4 * game.step
    for s in sessions:
        assert s.resyncs == 0 and s.deltas == game.step
        assert s.mirror.view == game.view(s.seat)
        assert s.summary()["final_hash"] == game.state_hash()
        assert s.game_over.seed == game.setup.seed
    assert sum(s.commands for s in sessions) == game.step


@pytest.mark.parametrize("mode", MODES)
async def test_host_bots_fill_empty_seats_and_a_spectator_watches(mode):
    game = make_game(mode, seed=5, players=3)
    async with trio.open_nursery() as nursery:
        host = await start_host(nursery, game, bots={1: "random", 2: "random"})
        human = await play_bot("127.0.0.1", host.port, bot="random", seed=9, name="human")
        nursery.cancel_scope.cancel()
    assert human.seat == 0 and human.game_over is not None
    assert human.mirror.view == game.view(0)


async def _connect(port, **kw) -> TrioPeer:
    peer = await TrioPeer.connect("127.0.0.1", port, PeerSession(kw.pop("name", "x"), **kw))
    while not peer.session.welcomed and peer.session.closed is None:
        if not await peer.receive():
            break
    return peer


async def test_spectator_when_full_is_read_only():
    game = make_game("toy", seed=3, players=1)
    async with trio.open_nursery() as nursery:
        host = await start_host(nursery, game, autostart=False)
        a = await _connect(host.port, name="a")
        watcher = await _connect(host.port, name="w")
        assert a.session.seat == 0 and watcher.session.seat is None and watcher.session.token is None
        host.start()
        legal = game.legal(0)[0]
        watcher.session.send_command(legal)
        await watcher.flush()
        msgs = []
        while not any(isinstance(m, Rejected) for m in msgs):
            msgs += await watcher.receive()
        assert [m.code for m in msgs if isinstance(m, Rejected)] == ["spectator"]
        assert game.step == 0
        a.session.send_command(legal)
        await a.flush()
        while watcher.session.mirror.seq < 1:
            await watcher.receive()
        assert watcher.session.mirror.view == game.view(None)
        nursery.cancel_scope.cancel()


async def test_reconnect_by_token_mid_game_gets_same_seat_and_snapshot():
    game = make_game("toy", seed=4, players=2)
    async with trio.open_nursery() as nursery:
        host = await start_host(nursery, game, bots={1: "random"}, autostart=False)
        a = await _connect(host.port, name="a")
        token = a.session.token
        assert a.session.seat == 0 and token
        host.start()
        # play two of our turns, then drop the connection
        for _ in range(2):
            while a.session.my_prompt is None:
                await a.receive()
            a.session.send_command(a.session.my_prompt["options"][0]["command"])
            await a.flush()
            while a.session.my_prompt is not None and a.session.my_prompt["version"] < game.step:
                await a.receive()
        await a.aclose()
        await trio.testing.wait_all_tasks_blocked()
        assert host.seats[0].peer is None and game.step >= 2
        step = game.step
        # nobody else gets seat 0 while its owner is away
        other = await _connect(host.port, name="other")
        assert other.session.seat is None
        b = await _connect(host.port, name="a again", seat=0, token=token)
        assert b.session.seat == 0 and b.session.token == token
        assert b.session.mirror.view == game.view(0) and not b.session.mirror.stale
        assert game.step == step
        b.session.send_command(b.session.my_prompt["options"][0]["command"])
        await b.flush()
        while b.session.mirror.seq <= host.seq - 1 or game.step == step:
            await b.receive()
        assert game.step > step
        nursery.cancel_scope.cancel()


async def test_reconnect_while_old_connection_lingers_takes_over():
    game = make_game("toy", seed=4, players=1)
    async with trio.open_nursery() as nursery:
        host = await start_host(nursery, game)
        a = await _connect(host.port, name="a")
        b = await _connect(host.port, name="a2", token=a.session.token)
        assert b.session.seat == 0
        with trio.fail_after(5):
            while await a.receive():  # the stale connection gets closed
                pass
        assert host.seats[0].peer is not None and host.seats[0].peer.name == "a2"
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("hello", [
    dict(token="guessed-token-guessed-token-123"),
    dict(token="STOLEN", seat=1),
    dict(code="wrong"),
    dict(code=None),
])
async def test_bad_tokens_and_codes_are_refused(hello):
    game = make_game("toy", seed=4, players=2)
    async with trio.open_nursery() as nursery:
        host = await start_host(nursery, game, code="right", autostart=False)
        a = await _connect(host.port, name="a", code="right")
        if hello.get("token") == "STOLEN":
            hello["token"] = a.session.token  # seat 0's token, presented for seat 1
        hello.setdefault("code", "right")
        before = game.state_hash()
        intruder = await _connect(host.port, name="intruder", **hello)
        assert intruder.session.closed is not None and intruder.session.closed.fatal
        assert intruder.session.closed.code in ("bad_token", "bad_code")
        assert not intruder.session.welcomed
        assert await intruder.receive() == []
        assert [s.kind for s in host.seats] == ["human", "open"]
        assert host.seats[0].peer.name == "a" and game.state_hash() == before
        nursery.cancel_scope.cancel()
