"""What one connection may cost the host: first-frame limits, deadlines, caps, rates, code guessing.

The real `Host` with its real limits, on in-memory streams and virtual time (pytest-trio's
`autojump_clock`): a 45-second idle deadline passes at once, and each connection comes from
the address the test names, so the per-address caps are tested without borrowing loopback
addresses. Real sockets where the socket is the point: a first frame refused at its length,
and a real `cthulhu host` process at its descriptor limit.
"""

from __future__ import annotations

import logging
import os
import resource

import msgpack
import pytest
import trio

from cthulhu.net.client import PeerSession, TrioPeer
from cthulhu.net.frames import HEADER, BadBody, FrameDecoder, FrameTooLarge, decode_body, encode_frame
from cthulhu.net.gate import MAX_ADDRESSES, Gate
from cthulhu.table import Host
from cthulhu.table.peers import MAX_BAD_FRAMES
from cthulhu.table import TableSpec, open_table
from cthulhu.net.limits import FIRST_FRAME, PEER_FRAME, Limits
from cthulhu.net.messages import PROTOCOL_VERSION, Chat, Error, Pong

from support.memory import MemoryTable
from support.net_games import make_game
from support.host_proc import CODE, HostProcess

SPEC = dict(autostart=False)
SAFETY = 120  # seconds, real or virtual: a net against hangs, longer than any deadline of `Limits()`


async def _host(nursery, **kw) -> Host:
    """A real host on 127.0.0.1 (port 0): for the tests where the socket is the point."""
    host = open_table(TableSpec(start=make_game("toy", seed=3, players=2), **SPEC, **kw))
    await nursery.start(host.serve)
    return host


async def _table(nursery, **kw) -> MemoryTable:
    """The same host on in-memory streams (with the test's `autojump_clock`)."""
    host = open_table(TableSpec(start=make_game("toy", seed=3, players=2), **SPEC, **kw))
    await nursery.start(host.run)
    return MemoryTable(host, nursery)


async def _errors_until_closed(stream: trio.abc.Stream) -> list[tuple[str, bool]]:
    session = PeerSession("x")
    got = []
    with trio.fail_after(SAFETY):
        try:
            while data := await stream.receive_some(65536):
                got += session.receive_data(data)
        except trio.BrokenResourceError:
            pass
    return [(m.code, m.fatal) for m in got if isinstance(m, Error)]


async def _welcome_or_refusal(stream: trio.abc.Stream) -> str:
    """'welcome', or the code of the fatal error the host closed with."""
    session = PeerSession("x")
    with trio.fail_after(SAFETY):
        while data := await stream.receive_some(65536):
            session.receive_data(data)
            if session.welcomed:
                return "welcome"
    return session.closed.code if session.closed is not None else "closed"


async def _peer(port: int, name: str = "p", **kw) -> TrioPeer:
    peer = await TrioPeer.connect("127.0.0.1", port, PeerSession(name, **kw))
    with trio.fail_after(5):
        while not peer.session.welcomed and peer.session.closed is None:
            if not await peer.receive():
                break
    return peer


def _hello(**fields) -> bytes:
    return encode_frame({"t": "hello", "proto": PROTOCOL_VERSION, "name": "n", **fields})


# ---- the first frame, before any trust ------------------------------------------------------------


def _nested_array16(n: int, declared: int = 0xFFFF) -> bytes:
    return b"\xdc" + declared.to_bytes(2, "big") + (b"\xdc" + declared.to_bytes(2, "big")) * (n - 1)


def test_msgpack_is_stopped_at_the_first_oversized_array_header():
    """The 60 ms frame of the issue: 1,023 nested array16 headers each declaring 65,535 slots.
    Under the limits msgpack refuses the first header, before allocating anything."""
    body = _nested_array16(1023)
    with pytest.raises(BadBody):
        decode_body(body, PEER_FRAME)
    with pytest.raises(FrameTooLarge):
        decode_body(body, FIRST_FRAME)  # 3 KB: not even looked at before a hello
    small = b"\x81\xa1t\xa1x" + b"\x94" * 200 + b"\xc0" * 4  # in size, but 4-wide lists 200 deep
    with pytest.raises(BadBody):
        decode_body(small, FIRST_FRAME)
    with pytest.raises(BadBody):
        decode_body(msgpack.packb({"t": "hello", "name": "x" * 300}), FIRST_FRAME)


def test_a_decoder_relaxes_its_limits_only_for_frames_after_the_hello():
    dec = FrameDecoder(FIRST_FRAME)
    command = encode_frame({"t": "command", "seq": 1, "command": {"kind": "x", "list": list(range(10))}})
    (hello,) = dec.feed(_hello() + command, max_frames=1)
    assert hello["t"] == "hello" and dec.buffered == len(command)
    dec.limits = PEER_FRAME
    assert [f["t"] for f in dec.feed(b"")] == ["command"]


@pytest.mark.trio
async def test_a_first_frame_above_its_small_limit_is_refused_at_its_length(nursery):
    host = await _host(nursery)
    stream = await trio.open_tcp_stream("127.0.0.1", host.port)
    await stream.send_all(HEADER.pack(3073) + _nested_array16(1023) + b"\x00")
    assert await _errors_until_closed(stream) == [("frame_too_large", True)]
    assert host.peers == [] and host.crashes == 0


# ---- deadlines ---------------------------------------------------------------------------------------


@pytest.mark.trio
async def test_a_silent_peer_is_pinged_then_closed_and_a_live_one_stays(nursery, caplog, autojump_clock):
    table = await _table(nursery)
    host, limits = table.host, table.host.limits
    caplog.set_level(logging.WARNING, "cthulhu.net")
    live = await table.connect("live")  # answers pings: `receive` flushes the session's pongs

    async def keep_reading() -> None:
        while await live.receive():
            pass

    nursery.start_soon(keep_reading)
    silent = table.pair()
    await silent.send_all(_hello(name="silent", watch=True))
    start = trio.current_time()
    while await silent.receive_some(65536):
        pass  # it reads (so the ping arrives) but never answers; then the host closes it
    assert trio.current_time() - start >= limits.idle_timeout + limits.pong_timeout  # not one moment early
    await trio.sleep(10 * limits.idle_timeout)  # many more idle deadlines: the live one stays
    assert [p.name for p in host.peers] == ["live"]
    assert any("silent" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)


@pytest.mark.trio
async def test_a_peer_dribbling_one_frame_forever_is_closed(nursery, autojump_clock):
    table = await _table(nursery)
    host = table.host
    stream = table.pair()
    await stream.send_all(_hello(name="dribbler", watch=True))
    frame = HEADER.pack(4000) + b"\x80" * 4000
    closed = False
    for byte in frame:  # one byte a second: never a whole frame
        try:
            await stream.send_all(bytes([byte]))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            closed = True
            break
        await trio.sleep(1.0)
        if not host.peers:
            closed = True
            break
    assert closed and host.peers == []
    assert trio.current_time() < host.limits.idle_timeout + host.limits.pong_timeout + 2  # at the deadlines, not after the frame


@pytest.mark.trio
async def test_a_connection_without_a_hello_is_closed_at_the_hello_deadline(nursery, autojump_clock):
    table = await _table(nursery)
    stream = table.pair()
    await stream.send_all(HEADER.pack(100) + b"\x80")  # starts a frame, never finishes it
    assert await _errors_until_closed(stream) == [("timeout", True)]
    assert trio.current_time() >= table.host.limits.hello_timeout


# ---- caps ----------------------------------------------------------------------------------------------


@pytest.mark.trio
async def test_connections_per_address_are_capped_and_other_addresses_still_get_in(nursery, caplog, autojump_clock):
    table = await _table(nursery, limits=Limits().but(max_per_address=3))
    caplog.set_level(logging.WARNING, "cthulhu.net")
    held = [table.pair("10.0.0.1") for _ in range(3)]
    await trio.testing.wait_all_tasks_blocked()  # the host counts them before the fourth arrives
    fourth = table.pair("10.0.0.1")
    assert await _errors_until_closed(fourth) == [("too_many_connections", True)]
    other = table.pair("10.0.0.2")
    await other.send_all(_hello(name="other"))
    session = PeerSession("other")
    with trio.fail_after(5):
        while not session.welcomed:
            session.receive_data(await other.receive_some(65536))
    assert session.seat == 0
    assert any("too many connections" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    for s in held:
        await s.aclose()


@pytest.mark.trio
async def test_too_many_silent_newcomers_make_room_by_closing_the_oldest(nursery, autojump_clock):
    table = await _table(nursery, limits=Limits().but(max_unverified=4, max_per_address=64))
    silent = []
    for _ in range(10):  # one after another, as they would arrive (trio starts tasks in any order)
        silent.append(table.pair())
        await trio.testing.wait_all_tasks_blocked()
    start = trio.current_time()
    player = await table.connect("real")  # still gets in at once, past ten silent connections
    assert player.session.seat == 0 and trio.current_time() == start
    assert await _errors_until_closed(silent[0]) == [("too_many_connections", True)]  # the oldest made room, told why
    assert trio.current_time() < table.host.limits.hello_timeout  # to make room, not at their hello deadline
    for s in silent:
        await s.aclose()


@pytest.mark.trio
async def test_a_crowd_waiting_on_the_doorstep_only_ever_pushes_out_its_own(nursery):
    """Silent newcomers from three addresses, more than the doorstep holds: each address keeps
    only its newest few, the room in all goes to whoever holds the most, and a joiner from a fourth
    address who has not said hello yet is never the one closed, however many arrive after it."""
    host = await _host(nursery, limits=Limits().but(max_unverified=6, max_unverified_per_address=3))
    crowd = [await trio.open_tcp_stream("127.0.0.1", host.port, local_address=f"127.0.3.{1 + n % 3}") for n in range(6)]
    joiner = await trio.open_tcp_stream("127.0.0.1", host.port, local_address="127.0.4.1")  # not a word yet
    crowd += [await trio.open_tcp_stream("127.0.0.1", host.port, local_address=f"127.0.3.{1 + n % 3}") for n in range(12)]
    for old in crowd[:-5]:  # the room in all is 6: the joiner and the five newest of the crowd
        assert await _errors_until_closed(old) == [("too_many_connections", True)]
    await joiner.send_all(_hello(name="joiner"))
    assert await _welcome_or_refusal(joiner) == "welcome"
    for s in crowd:
        await s.aclose()


@pytest.mark.trio
async def test_a_joiner_gets_past_a_churn_of_newcomers_from_seventy_addresses(nursery, caplog):
    """The small real version of the bench's churn (`bench/hostile_peers.py --parts churn`): new
    connections that never say a word, from 70 addresses, as fast as this test can open them, over
    a doorstep of 32; meanwhile five joiners each say hello and each is welcomed."""
    host = await _host(nursery, limits=Limits().but(max_unverified=32, max_unverified_per_address=2, max_spectators=8))
    caplog.set_level(logging.WARNING, "cthulhu.net")
    opened = 0

    async def churn() -> None:
        nonlocal opened
        held: list[trio.SocketStream] = []
        while True:
            held.append(await trio.open_tcp_stream("127.0.0.1", host.port, local_address=f"127.0.5.{1 + opened % 70}"))
            opened += 1
            if len(held) > 200:
                await held.pop(0).aclose()

    async with trio.open_nursery() as crowd:
        crowd.start_soon(churn)
        while opened < 300:  # the doorstep is full and turning the crowd away
            await trio.sleep(0.01)
        for n in range(5):
            joiner = await trio.open_tcp_stream("127.0.0.1", host.port, local_address="127.0.6.1")
            await joiner.send_all(_hello(name=f"joiner {n}", watch=True))
            assert await _welcome_or_refusal(joiner) == "welcome"
            await joiner.aclose()
        crowd.cancel_scope.cancel()
    assert any("too many connections without a hello" in r.getMessage() for r in caplog.records)
    assert host.crashes == 0


@pytest.mark.trio
async def test_spectators_are_capped_but_a_seat_is_never_refused_for_room(nursery, autojump_clock):
    table = await _table(nursery, limits=Limits().but(max_spectators=2))
    watchers = [await table.connect(f"w{n}", watch=True) for n in range(2)]
    third = await table.connect("w3", watch=True)
    assert third.session.closed is not None and third.session.closed.code == "table_full"
    seated = await table.connect("sits")
    assert seated.session.seat == 0 and all(w.session.welcomed for w in watchers)


@pytest.mark.trio
async def test_at_the_descriptor_limit_a_newcomer_gets_one_clean_refusal_line(tmp_path):
    """A real host process whose open-file limit is cut to what it holds now: newcomers are told
    `host_full` and closed, the host logs one line (no traceback), and once room is back, a player gets in."""
    host = HostProcess(tmp_path, "--seats", "2", "--save", str(tmp_path / "fd.save"))
    streams = []
    try:
        with trio.fail_after(60):
            port, _ = await host.start()
            pid = host.proc.pid
            in_use = len(os.listdir(f"/proc/{pid}/fd"))
            soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
            resource.prlimit(pid, resource.RLIMIT_NOFILE, (in_use + 2, hard))
            outcomes = []
            for _ in range(8):
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                streams.append(stream)
                await stream.send_all(_hello(name="late", code=CODE, watch=True))
                outcomes.append(await _welcome_or_refusal(stream))
            resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, hard))
            player = await _peer(port, "player", code=CODE)
            assert player.session.seat == 0
            await player.aclose()
    finally:
        for s in streams:
            await s.aclose()
        host.close()
    err = host.stderr()
    assert "host_full" in outcomes and set(outcomes) <= {"welcome", "host_full"}, outcomes
    assert "Traceback" not in err and err.count("out of file descriptors") + err.count("no room for more connections") <= 2, err


# ---- rates and code guessing ---------------------------------------------------------------------------


@pytest.mark.trio
async def test_chat_beyond_its_rate_is_dropped_with_one_notice_to_the_sender(nursery, autojump_clock):
    table = await _table(nursery)
    spammer = await table.connect("spam", watch=True)
    listener = await table.connect("ear", watch=True)
    burst = b"".join(encode_frame({"t": "chat", "text": f"line {n}"}) for n in range(40))
    await spammer.stream.send_all(burst)
    spammer.session.ping(1)  # after the burst: when its pong is back, every chat was handled
    await spammer.flush()
    got = []
    with trio.fail_after(5):
        while not any(isinstance(m, Pong) for m in got):
            got += await spammer.receive()
    errors = [m.code for m in got if isinstance(m, Error)]
    relayed = [m.text for m in got if isinstance(m, Chat)]
    assert errors == ["rate_limited"]
    assert relayed == [f"line {n}" for n in range(Limits().chat[1])]
    assert listener.session.closed is None


@pytest.mark.trio
async def test_wrong_codes_are_throttled_per_address_and_logged(nursery, caplog, autojump_clock):
    table = await _table(nursery, code="right-code", limits=Limits().but(free_code_tries=2, code_delay=(30.0, 60.0)))
    caplog.set_level(logging.WARNING, "cthulhu.net")

    async def attempt(code: str, address: str = "10.0.0.1") -> str:
        stream = table.pair(address)
        await stream.send_all(_hello(code=code))
        try:
            return await _welcome_or_refusal(stream)
        finally:
            await stream.aclose()

    assert [await attempt("guess") for _ in range(3)] == ["bad_code"] * 3
    assert await attempt("right-code") == "throttled"  # not even looked at for a while
    assert await attempt("right-code", "10.0.0.3") == "welcome"  # another address is not punished
    await trio.sleep(30)  # the wait is over (virtual time): the right code is looked at again
    assert await attempt("right-code") == "welcome"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("wrong table code from 10.0.0.1" in w and "waits 30 s" in w for w in warnings), warnings


@pytest.mark.trio
async def test_a_repeated_hello_counts_as_a_bad_frame(nursery, autojump_clock):
    table = await _table(nursery)
    peer = await table.connect("again", watch=True)
    await peer.stream.send_all(_hello(name="again") * (MAX_BAD_FRAMES + 1))
    codes = await _errors_until_closed(peer.stream)
    assert codes == [("unexpected_message", False)] * MAX_BAD_FRAMES + [("unexpected_message", True)]


@pytest.mark.trio
async def test_nested_and_crowded_frames_get_their_reason_and_the_peer_carries_on(nursery):
    """After a hello: 1 KB of nested arrays, and a command of 13 lists of 16 numbers, are each
    answered with a typed error (refused before msgpack builds them); then a ping still gets its pong."""
    host = await _host(nursery)
    peer = await _peer(host.port, "crowd", watch=True)
    crowded = msgpack.packb({"t": "command", "seq": 1, "command": {"kind": "x", **{f"a{n}": list(range(16)) for n in range(13)}}})
    frames = b"".join(HEADER.pack(len(body)) + body for body in (b"\x9f" * 1024, crowded))
    await peer.stream.send_all(frames + encode_frame({"t": "ping", "n": 7}))
    got = []
    with trio.fail_after(10):
        while not any(isinstance(m, Pong) for m in got):
            got += await peer.receive()
    assert [(m.code, m.fatal) for m in got if isinstance(m, Error)] == [("too_deep", False), ("too_many_values", False)]
    assert host.crashes == 0


def test_the_gate_doubles_the_wait_after_each_wrong_code_up_to_its_cap():
    now = [0.0]
    gate = Gate(Limits().but(free_code_tries=3, code_delay=(1.0, 8.0)), lambda: now[0])

    def waits() -> float:
        """Seconds until a hello from "a" is looked at again."""
        start = now[0]
        while gate.hello("a") is not None:
            now[0] += 0.25
        return now[0] - start

    for _ in range(3):
        gate.wrong_code("a")
        assert waits() == 0  # three free tries
    delays = []
    for _ in range(6):
        gate.wrong_code("a")
        delays.append(waits())
    assert delays == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert gate.hello("b") is None  # another address waits for nothing
    gate.right_code("a")
    gate.wrong_code("a")
    assert waits() == 0  # the right code wiped the slate


def test_the_gate_remembers_a_bounded_number_of_addresses():
    now = [0.0]
    gate = Gate(Limits(), lambda: now[0])
    for n in range(MAX_ADDRESSES * 2):
        address = f"10.{n // 65536}.{n // 256 % 256}.{n % 256}"
        assert gate.connect(address) is None
        gate.disconnect(address)
        now[0] += 1.0
    assert len(gate._addresses) == MAX_ADDRESSES and gate.open == 0


def test_a_token_bucket_waited_on_gives_its_token_whatever_the_rounding():
    """A wait then a take always ends: 0.35 - 0.1 is 0.24999999999999997 seconds, which at 4 tokens a
    second refills 0.9999999999999999 of a token; the wait for the rest (2.8e-17 s) does not move a clock
    at 0.35, so a bucket that held out for a whole token kept the lobby of a server asking, and waiting
    no time, for ever on trio's virtual clock (tests/server/test_server_core.py, under load)."""
    from cthulhu.net.limits import TokenBucket

    bucket = TokenBucket(4.0, 20, 0.0, 0.1)
    assert bucket.take(0.35) and bucket.tokens == 0.0
    for start in range(1, 400):
        for rate in (4.0, 3.0, 0.7, 10.0):
            bucket = TokenBucket(rate, 20, 0.0, start / 100)
            now, tries = start / 100, 0
            while not bucket.take(now):
                now += bucket.wait(now)
                tries += 1
                assert tries <= 2, (start, rate, now, bucket)
