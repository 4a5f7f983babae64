"""A hostile or broken peer: typed errors or a clean disconnect; the host and the game are untouched."""

from __future__ import annotations

import random
import struct

import msgpack
import pytest
import trio
import trio.testing

from cthulhu.net.client import PeerSession, TrioPeer, play_bot
from cthulhu.net.frames import HEADER, MAX_FRAME, encode_frame
from cthulhu.table import TableSpec, open_table
from cthulhu.net.limits import Limits
from cthulhu.net.messages import PROTOCOL_VERSION, Delta, Error, Pong, Rejected

from support.net_games import MODES, make_game

pytestmark = pytest.mark.trio


async def _connect(port, name="x", **kw) -> TrioPeer:
    peer = await TrioPeer.connect("127.0.0.1", port, PeerSession(name, **kw))
    with trio.fail_after(5):
        while not peer.session.welcomed and peer.session.closed is None:
            if not await peer.receive():
                break
    return peer


async def _until(peer: TrioPeer, kind) -> list:
    """Messages up to and including the first of `kind`; [] if the host closed first."""
    got: list = []
    with trio.fail_after(5):
        while not any(isinstance(m, kind) for m in got):
            batch = await peer.receive()
            if not batch:
                return got
            got += batch
    return got


async def _still_serving(port: int) -> None:
    """The host answers a fresh connection's ping."""
    p = await _connect(port, name="probe", watch=True)
    p.session.ping(42)
    await p.flush()
    assert [m.n for m in await _until(p, Pong) if isinstance(m, Pong)] == [42]
    await p.aclose()


@pytest.fixture
async def table(nursery):
    game = make_game("toy", seed=11, players=2)
    host = open_table(TableSpec(start=game))
    await nursery.start(host.serve)
    a = await _connect(host.port, "a")
    b = await _connect(host.port, "b")
    assert (a.session.seat, b.session.seat) == (0, 1)
    yield host, a, b
    assert host.crashes == 0


async def test_command_for_another_seat_is_rejected_to_sender_only(table):
    host, a, b = table
    before, seat = host.game.state_hash(), host.game.prompt.seat
    mover, other = (a, b) if seat == 0 else (b, a)
    other.session.send_command(host.game.legal(seat)[0], host.game.prompt.version)
    await other.flush()
    msgs = await _until(other, Rejected)
    assert [m.code for m in msgs if isinstance(m, Rejected)] == ["not_your_decision"]
    assert host.game.state_hash() == before
    # the rightful seat still plays, and the rejection went to nobody else
    mover.session.send_command(host.game.legal(seat)[0])
    await mover.flush()
    got = await _until(mover, Delta)
    assert not any(isinstance(m, Rejected) for m in got)


@pytest.mark.parametrize("command, version, code", [
    ("legal", -3, "stale_prompt"),
    ({"kind": "teleport"}, None, "illegal"),
    ({"kind": 5}, None, "malformed"),
    ({"kind": "draw", "x": 1.5}, None, None),  # a float never gets through the frame codec
])
async def test_bad_commands_are_rejected_and_change_nothing(table, command, version, code):
    host, a, b = table
    seat = host.game.prompt.seat
    peer = a if seat == 0 else b
    before = host.game.state_hash()
    if command == "legal":
        command = host.game.legal(seat)[0]
    peer.session.send_command(command, version)
    await peer.flush()
    msgs = await _until(peer, (Rejected, Error))
    if code is None:
        assert [m.code for m in msgs if isinstance(m, Error)] == ["bad_shape"]
    else:
        assert [m.code for m in msgs if isinstance(m, Rejected)] == [code]
    assert host.game.state_hash() == before and host.game.step == 0


def _frame(body: bytes) -> bytes:
    return HEADER.pack(len(body)) + body


def _deep(n: int) -> bytes:
    return b"\x82\xa1t\xa1x\xa1d" + b"\x91" * n + b"\xc0"  # {"t": "x", "d": [[[...]]]}


@pytest.mark.parametrize("raw, code", [
    (encode_frame({"t": "launch_missiles"}), "unknown_type"),
    (encode_frame({"t": "delta", "seq": 1, "step": 1, "ops": [], "hash": "h"}), "unexpected_message"),
    (encode_frame({"t": "ping", "n": 1, "evil": True}), "bad_message"),
    (_frame(msgpack.packb({"t": "ping", "n": 1})[:-1]), "bad_msgpack"),
    (_frame(_deep(100)), "too_deep"),
    (_frame(_deep(3000)), "too_deep"),  # beyond msgpack's own 1,024 levels: refused before msgpack reads it
    (_frame(b"\xc1\xc1"), "bad_msgpack"),
    (encode_frame({"t": "hello", "proto": PROTOCOL_VERSION, "name": "again"}), "unexpected_message"),
], ids=["unknown", "unexpected", "extra_field", "truncated", "deep", "deeper_than_msgpack", "garbage", "second_hello"])
async def test_bad_frames_get_typed_errors_and_the_connection_survives(table, raw, code):
    host, a, b = table
    before = host.game.state_hash()
    await a.stream.send_all(raw)
    msgs = await _until(a, Error)
    errors = [m for m in msgs if isinstance(m, Error)]
    assert [(e.code, e.fatal) for e in errors] == [(code, False)]
    a.session.ping(7)
    await a.flush()
    assert any(isinstance(m, Pong) for m in await _until(a, Pong))
    assert host.game.state_hash() == before


@pytest.mark.parametrize("length", [MAX_FRAME + 1, 2**32 - 1, 0])
async def test_bad_declared_length_closes_with_a_fatal_error(table, length):
    host, a, b = table
    before = host.game.state_hash()
    await a.stream.send_all(struct.pack(">I", length) + b"\x80" * 10)
    msgs = await _until(a, Error)
    assert [(m.code, m.fatal) for m in msgs if isinstance(m, Error)] == [("frame_too_large", True)]
    with trio.fail_after(5):
        while await a.receive():
            pass  # then the host closes the connection
    await _still_serving(host.port)
    assert host.game.state_hash() == before
    assert host.seats[0].peer is None and host.seats[0].kind == "human"  # seat kept for its token


async def test_random_bytes_never_crash_the_host():
    game = make_game("toy", seed=3, players=2)
    rng = random.Random(5)
    async with trio.open_nursery() as nursery:
        host = open_table(TableSpec(start=game, autostart=False))
        await nursery.start(host.serve)
        before = game.state_hash()
        for i in range(40):
            stream = await trio.open_tcp_stream("127.0.0.1", host.port)
            if i % 2:  # after a proper hello
                await stream.send_all(encode_frame({"t": "hello", "proto": PROTOCOL_VERSION, "name": f"r{i}", "watch": True}))
            try:
                for _ in range(5):
                    blob = rng.randbytes(rng.randint(1, 300))
                    if rng.random() < 0.5:
                        blob = _frame(blob)
                    await stream.send_all(blob)
                await stream.send_eof()
            except trio.BrokenResourceError:
                pass  # the host already hung up on us: a clean disconnect
            with trio.fail_after(5):
                try:
                    while await stream.receive_some(65536):
                        pass
                except trio.BrokenResourceError:
                    pass  # reset: the host closed with our garbage still unread
            await stream.aclose()
        await _still_serving(host.port)
        await trio.testing.wait_all_tasks_blocked()
        assert host.crashes == 0 and game.state_hash() == before and host.peers == []
        nursery.cancel_scope.cancel()


async def test_first_message_must_be_hello():
    game = make_game("toy", seed=3, players=2)
    async with trio.open_nursery() as nursery:
        host = open_table(TableSpec(start=game))
        await nursery.start(host.serve)
        stream = await trio.open_tcp_stream("127.0.0.1", host.port)
        await stream.send_all(encode_frame({"t": "ping", "n": 1}))
        session = PeerSession("x")
        got = []
        with trio.fail_after(5):
            while data := await stream.receive_some(65536):
                got += session.receive_data(data)
        assert [(m.code, m.fatal) for m in got] == [("bad_message", True)]
        assert host.seats[0].kind == "open"
        nursery.cancel_scope.cancel()


async def test_only_a_peer_that_stops_reading_is_evicted_and_it_may_come_back(nursery):
    game = make_game("toy", seed=3, players=2)
    host = open_table(TableSpec(start=game, autostart=False, limits=Limits().but(max_backlog=256 * 1024)))
    await nursery.start(host.serve)
    slow = await _connect(host.port, "slow")
    fast = await _connect(host.port, "fast")
    token = slow.session.token

    async def read(peer):
        while await peer.receive():
            pass

    nursery.start_soon(read, fast)
    # Game-class frames are never dropped: they pile up for the peer that does not read
    # (once its socket buffers are full) until that peer alone is dropped.
    filler = encode_frame({"t": "filler", "pad": ["y" * 4000] * 15})
    with trio.fail_after(30):
        while host.seats[0].peer is not None and not host.seats[0].peer.gone:
            host._broadcast(filler)
            await trio.sleep(0.001)
    assert host.seats[1].peer is not None and not host.seats[1].peer.gone, "the peer that reads was dropped too"
    with trio.fail_after(10):
        while await slow.receive():
            pass
    back = await _connect(host.port, "slow", token=token)
    assert back.session.seat == 0 and back.session.mirror.view == game.view(0)
    assert host.crashes == 0


@pytest.mark.parametrize("mode", MODES)
async def test_a_corrupted_mirror_is_healed_by_a_snapshot(mode):
    game = make_game(mode, seed=8, players=2)
    corrupted = []

    def corrupt(session, messages):
        if session.mirror.stale or not any(isinstance(m, Delta) for m in messages):
            return
        if session.resyncs == 0 and not corrupted:
            session.mirror.view["bit_rot"] = 1  # bit rot: the hash will disagree on the next delta
            corrupted.append("view")
        elif session.resyncs == 1 and len(corrupted) == 1:
            session.mirror.seq -= 1  # as if a delta was lost: the next one does not follow on
            corrupted.append("seq")

    async with trio.open_nursery() as nursery:
        host = open_table(TableSpec(start=game, bots={1: "random"}))
        await nursery.start(host.serve)
        s = await play_bot("127.0.0.1", host.port, seed=1, name="a", on_messages=corrupt)
        nursery.cancel_scope.cancel()
    assert len(corrupted) == 2
    assert s.resyncs == 2 and not s.mirror.stale
    assert s.mirror.view == game.view(0) and s.game_over is not None
