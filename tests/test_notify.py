"""Notifications: a table made with `--notify URL` at a server that allows it POSTs one small JSON
per move that begins (to an HTTP server the test runs); an address that hangs or refuses never
holds the table up; an address the operator does not allow is refused at creation and never
contacted, even by a table made before the operator changed their mind."""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone

import pytest
import trio

from cthulhu.net.lobbyclient import Lobby, LobbyClient
from cthulhu.net.messages import Created, Rejected
from cthulhu.server import Notifier
from cthulhu.server.notify import allowed, move_notice

from http_sink import Sink, closed_port, serving_sinks
from server_proc import CLI, ServerProcess, tables
from since_play import deciding, move, play_until, serving, sit, started

LOCAL = ["http://127.0.0.1:*"]


async def _create(port: int, notify: str | None, name: str = "Ann", **kw) -> Created | Rejected:
    lobby = Lobby(await trio.open_tcp_stream("127.0.0.1", port), LobbyClient(name, "key-ann"))
    await lobby.welcomed()
    args = dict(mode="shamblers", options={}, seats=2, bots=1, bot="random", bot_delay_ms=0)
    args.update(kw)
    answer = await lobby.create(notify=notify, **args)
    await lobby.stream.aclose()
    return answer


@pytest.mark.trio
async def test_one_post_per_move_that_begins(tmp_path):
    sink = Sink()
    async with serving_sinks(sink):
        async with serving(tmp_path / "data", notifier=Notifier(allowed(LOCAL))) as (server, port):
            made = await _create(port, sink.url, name="Ann<b>@here")  # her name, as the server keeps it
            assert isinstance(made, Created)
            ann = await sit(port, "Ann", table_id=made.id, ident="key-ann")
            await started(ann)
            moves = 0
            while moves < 6:
                await play_until(ann, lambda p, got: p.session.my_prompt is not None)
                await sink.until(lambda: len(sink.posts) >= moves + 1)  # her move began: told once, before she makes it
                assert len(sink.posts) == moves + 1
                post = sink.posts[-1]
                view = ann.session.mirror.view
                assert (post["method"], post["path"], post["headers"]["content-type"]) == ("POST", "/hook/t0ken", "application/json")
                assert post["headers"]["host"] == f"127.0.0.1:{sink.port}"
                body = post["json"]
                assert set(body) == {"table", "seat", "player", "turn", "deadline", "text"}
                assert (body["table"], body["seat"], body["player"], body["turn"], body["deadline"]) == (made.id, 0, "Ann<b>@here", view["turn"], None)
                assert body["text"] == f"It is Annbhere's move (seat 1) at table {made.id}, turn {view['turn']}."  # no markup, no mention
                await move(ann)
                moves += 1
            await ann.aclose()


@pytest.mark.trio
async def test_a_turn_based_table_says_when_the_clock_runs_out(tmp_path):
    sink = Sink()
    async with serving_sinks(sink):
        noon = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
        async with serving(tmp_path / "data", notifier=Notifier(allowed(LOCAL)), wall=lambda: noon) as (server, port):
            made = await _create(port, sink.url, seats=1, bots=0, turn_time=3600)
            assert isinstance(made, Created)
            ann = await sit(port, "Ann", table_id=made.id, ident="key-ann")
            await started(ann)
            await sink.until(lambda: len(sink.posts) >= 1)
            body = sink.posts[0]["json"]
            assert body["deadline"] == "2026-12-01T13:00:00Z"  # an hour from the move's start, in UTC
            assert body["text"].endswith("; their clock runs out at 2026-12-01 13:00 UTC.")
            await ann.aclose()


@pytest.mark.trio
async def test_an_address_that_hangs_or_refuses_never_holds_the_table_up(tmp_path):
    hang = Sink(hang=True)
    async with serving_sinks(hang):
        refused = f"http://127.0.0.1:{await closed_port()}/hook"
        notifier = Notifier(allowed(LOCAL), timeout=3600, backoff=0.01)
        async with serving(tmp_path / "data", notifier=notifier) as (server, port):
            stuck, gone = await _create(port, hang.url), await _create(port, refused)
            assert isinstance(stuck, Created) and isinstance(gone, Created)
            ann = await sit(port, "Ann", table_id=stuck.id, ident="key-ann")
            bea = await sit(port, "Bea", table_id=gone.id, ident="key-bea")
            for peer in (ann, bea):
                await started(peer)
                for _ in range(8):  # eight moves each, while the first POST to `hang` is still waiting for its answer
                    await play_until(peer, lambda p, got: p.session.my_prompt is not None)
                    await move(peer)
            await hang.until(lambda: hang.connections >= 1)
            assert hang.posts == [] and notifier.sent == 0
            assert notifier.in_flight >= {f"127.0.0.1:{hang.port}"}  # that first POST is still waiting
            while notifier.failed < 1:  # the refused ones are tried again (4 tries), then given up, one line each
                await trio.sleep(0.01)
            await ann.aclose()
            await bea.aclose()


@pytest.mark.trio
async def test_an_address_outside_the_operators_patterns_is_refused_and_never_contacted(tmp_path):
    sink = Sink()
    async with serving_sinks(sink):
        data = tmp_path / "data"
        async with serving(data) as (server, port):  # no --notify-allow: notifications are off
            off = await _create(port, sink.url)
            assert isinstance(off, Rejected) and off.code == "notify_off" and "--notify-allow" in off.reason
            assert server.tables == {}
        async with serving(data, notifier=Notifier(allowed(["https://hooks.example.org/*"]))) as (server, port):
            other = await _create(port, sink.url)
            assert isinstance(other, Rejected) and other.code == "notify_not_allowed" and server.tables == {}
            bad = await _create(port, "https://hooks.example.org/x y")
            assert isinstance(bad, Rejected) and bad.code == "bad_notify"
            sneaky = await _create(port, "https://me@hooks.example.org.evil.test/x")
            assert isinstance(sneaky, Rejected) and sneaky.code in ("bad_notify", "notify_not_allowed")
        async with serving(data, notifier=Notifier(allowed(LOCAL))) as (server, port):
            made = await _create(port, sink.url, seats=1, bots=0)  # allowed when made ...
            assert isinstance(made, Created)
        notifier = Notifier(allowed(["https://hooks.example.org/*"]))
        async with serving(data, notifier=notifier) as (server, port):  # ... and no longer, after a restart
            ann = await sit(port, "Ann", table_id=made.id, ident="key-ann")
            await started(ann)
            while notifier.failed < 1:
                await trio.sleep(0.01)
            await ann.aclose()
        assert sink.connections == 0  # never contacted


@pytest.mark.trio
async def test_a_full_queue_lets_the_oldest_go_and_counts_them():
    sink = Sink()
    async with serving_sinks(sink) as nursery:
        notifier = Notifier(allowed(LOCAL), queue=3, senders=1)
        for n in range(5):  # nothing sends yet: the queue fills
            notifier.notify(sink.url, move_notice("t", 0, "Ann", n, None))
        assert notifier.dropped == 2
        await nursery.start(notifier.run)
        await sink.until(lambda: len(sink.posts) == 3)
        while notifier.sent < 3:  # (counted once the answer is read)
            await trio.sleep(0.01)
        assert [p["json"]["turn"] for p in sink.posts] == [2, 3, 4] and notifier.sent == 3


@pytest.mark.trio
async def test_a_failing_address_is_tried_four_times_with_back_off_then_given_up():
    sink, refused = Sink(status=503), Sink(status=404)  # a 4xx other than 408/429 is final: one try
    async with serving_sinks(sink, refused) as nursery:
        notifier = Notifier(allowed(LOCAL), backoff=0.01)
        await nursery.start(notifier.run)
        notifier.notify(sink.url, move_notice("t", 0, "Ann", 1, None))
        while notifier.failed < 1:
            await trio.sleep(0.01)
        assert len(sink.posts) == 4 and notifier.sent == 0
        notifier.notify(refused.url, move_notice("t", 0, "Ann", 1, None))
        while notifier.failed < 2:
            await trio.sleep(0.01)
        assert len(refused.posts) == 1


def test_the_notice_names_the_deadline_in_utc_and_cleans_the_name():
    when = datetime(2026, 12, 1, 18, 30, 5, tzinfo=timezone.utc)
    notice = move_notice("abc123", 2, "\x1b[31mZed\x07 *the* [link](x)", 7, when)
    assert notice["deadline"] == "2026-12-01T18:30:05Z" and notice["player"] == "[31mZed *the* [link](x)"  # no escape, no bell
    assert notice["text"] == "It is 31mZed the linkx's move (seat 3) at table abc123, turn 7; their clock runs out at 2026-12-01 18:30 UTC."


def test_the_flags_refuse_misuse_in_one_line(tmp_path):
    bad = subprocess.run([*CLI, "server", "--data", str(tmp_path / "d"), "--port", "0", "--notify-allow", "ftp://x/*"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "--notify-allow" in bad.stderr
    alone = subprocess.run([*CLI, "tables", "127.0.0.1:1", "--notify", "http://127.0.0.1/x"], capture_output=True, text=True, timeout=60)
    assert alone.returncode == 2 and "--notify go with --create" in alone.stderr
    server = ServerProcess(tmp_path / "server").start()
    try:
        refused = tables(server.address, "--create", "--mode", "shamblers", "--seats", "1", "--notify", "http://127.0.0.1:9/x",
                         home=tmp_path / "ann", check=False)
        assert refused.returncode == 2 and "notify_off" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
        assert tables(server.address, home=tmp_path / "ann") == []
    finally:
        server.stop()
