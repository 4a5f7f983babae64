"""A peer's outbox: game frames are never dropped, chat is dropped first, lobby updates coalesce."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from cthulhu.net.limits import TokenBucket
from cthulhu.table.outbox import Outbox

def _box(**kw) -> Outbox:
    return Outbox(**{"max_backlog": 1000, "lag_backlog": 100, "max_chat": 3, **kw})


async def _all(box: Outbox) -> bytes:
    box.close()
    out = b""
    while (data := await box.take()) is not None:
        out += data
    return out


@pytest.mark.trio
async def test_frames_come_out_in_order():
    box = _box()
    box.put(b"g1")
    box.put_chat(b"c1")
    box.put(b"g2")
    assert await _all(box) == b"g1c1g2"


@pytest.mark.trio
async def test_lobby_updates_coalesce_into_the_newest_at_the_first_ones_place():
    box = _box()
    box.put(b"g1")
    for n in range(1000):
        box.put_lobby(b"L%03d" % n)
    box.put(b"g2")
    assert await _all(box) == b"g1L999g2"
    assert box.backlog == 0


@pytest.mark.trio
async def test_chat_is_dropped_when_too_much_waits_and_game_frames_never_are():
    box = _box()
    kept = [box.put_chat(b"c%d" % n) for n in range(5)]
    assert kept == [True, True, True, False, False] and box.dropped_chat == 2
    for n in range(20):  # 20 x 10 bytes: past `lag_backlog`, still under `max_backlog`
        assert box.put(b"g%09d" % n)
    assert box.lagging and box.chat_waiting == 0 and box.dropped_chat == 5  # queued chat went first
    assert not box.put_chat(b"late")  # and no new chat while lagging
    out = await _all(box)
    assert out == b"".join(b"g%09d" % n for n in range(20))


@pytest.mark.trio
async def test_past_the_backlog_cap_put_says_the_peer_is_not_reading():
    box = _box()
    assert all(box.put(b"x" * 100) for _ in range(10))
    assert not box.put(b"x")


@pytest.mark.trio
async def test_answers_wait_until_the_outbox_stops_lagging():
    box = _box()
    box.put(b"x" * 150)  # lagging
    answered = trio.Event()

    async def answer() -> None:
        await box.put_answer(b"pong")
        answered.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(answer)
        await trio.testing.wait_all_tasks_blocked()
        assert not answered.is_set()
        assert await box.take() == b"x" * 150  # the peer read: room again
        await answered.wait()
    assert await _all(box) == b"pong"


def test_token_bucket_refills_at_its_rate_up_to_its_burst():
    bucket = TokenBucket.of((2.0, 3), now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.wait(0.0) == pytest.approx(0.5)
    assert bucket.take(0.5) and not bucket.take(0.5)
    bucket.take(100.0)
    assert bucket.tokens == pytest.approx(2.0)  # capped at the burst, then one spent

