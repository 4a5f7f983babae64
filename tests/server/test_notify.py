"""Notifications: a table made with `--notify URL` at a server that allows it POSTs once per move
that begins (to an HTTP server the test runs), in its receiver's format, and never twice across a
restart; an address that hangs or refuses never holds the table up; an address the operator does
not allow is refused at creation and never contacted, even by a table made before the operator
changed their mind. The URL rules themselves: tests/server/test_notify_urls.py."""

from __future__ import annotations

import subprocess
import json
import re
from datetime import datetime, timezone

import pytest
import trio

from cthulhu.net.lobbyclient import TrioLobby, LobbyClient
from cthulhu.net.lobbymessages import Created
from cthulhu.net.messages import Rejected
from cthulhu.server import Notifier
from cthulhu.server.hookurl import allowed
from cthulhu.server.moves import Told
from cthulhu.server.notices import body, move_notice

from support.http_sink import Sink, closed_port, serving_sinks
from support.server_proc import CLI, ServerProcess, player_env, tables
from support.since_play import deciding, move, play_until, serving, sit, started

def local(*sinks: Sink) -> Notifier:
    """A notifier allowed to post to these sinks' paths (their ports written out, as a pattern must)."""
    return Notifier(allowed([f"http://127.0.0.1:{sink.port}/hook/*" for sink in sinks]))


async def _create(port: int, notify: str | None, name: str = "Ann", **kw) -> Created | Rejected:
    lobby = TrioLobby(await trio.open_tcp_stream("127.0.0.1", port), LobbyClient(name, "key-ann"))
    await lobby.welcomed()
    args = dict(mode="shamblers", options={}, seats=2, bots=1, bot="random", bot_delay_ms=0)
    args.update(kw)
    answer = await lobby.create(notify=notify, **args)
    await lobby.stream.aclose()
    return answer


FORMATS = ("json", "discord", "slack", "matrix")
MARKUP = "<@everyone>**[x](http://"  # a name that must reach no chat as a mention, bold or a link


def said(post: dict, fmt: str) -> tuple[str, int]:
    """(kind, turn) of one POST, checked to be the body a receiver of `fmt` takes."""
    assert (post["method"], post["path"], post["headers"]["content-type"]) == ("POST", "/hook/t0ken", "application/json")
    body = post["json"]
    if fmt == "json":
        assert set(body) == {"kind", "table", "seat", "player", "turn", "deadline", "text"}
        assert body["seat"] == 1 and body["player"] == "everyonexhttp"  # seats from 1; the name as plain as the text's
        text = body["text"]
        assert body["kind"] == ("reminder" if text.startswith("Reminder") else "move")
    elif fmt == "discord":
        assert body == {"content": body["content"], "allowed_mentions": {"parse": []}}
        text = body["content"]
    elif fmt == "slack":
        assert set(body) == {"text"}
        text = body["text"]
    else:
        assert body == {"msgtype": "m.text", "body": body["body"], "text": body["body"]}
        text = body["body"]
    assert "everyonexhttp's move (seat 1) at table " in text and not set("<>@*[]()") & set(text.split("'s move")[0])
    turn = re.search(r", turn (\d+)[.;]", text)
    assert turn is not None, text
    return ("reminder" if text.startswith("Reminder: it is still ") else "move"), int(turn.group(1))


async def quiet(server) -> None:
    """Until every notice decided has been posted (or given up)."""
    while server.moves.pending or not server.notifier.idle:
        await trio.sleep(0.01)


async def play_new_turns(ann, sink: Sink, fmt: str, told: list[int], more: int) -> None:
    """Ann plays (well: the game must last) until `more` more of her moves have begun, each told
    once: a new move (a new turn of hers, or the seat to move becoming hers) is one POST, every
    other decision of that turn none."""
    goal = len(told) + more
    while True:
        while ann.session.my_prompt is None:
            assert await ann.receive(), "the server closed the connection"
        assert ann.session.mirror.view["outcome"] is None
        turn = ann.session.mirror.view["turn"]
        if not told or told[-1] != turn:
            told.append(turn)
            await sink.until(lambda: len(sink.posts) >= len(told))
        assert [said(p, fmt) for p in sink.posts] == [("move", t) for t in told]
        if len(told) == goal:
            return
        await move(ann, kind="heuristic")


@pytest.mark.trio
async def test_one_notice_per_move_in_each_format_and_none_again_after_a_restart(tmp_path):
    sinks = {fmt: Sink() for fmt in FORMATS}
    async with serving_sinks(*sinks.values()):
        data, told, made, tokens = tmp_path / "data", {fmt: [] for fmt in FORMATS}, {}, {}
        async with serving(data, notifier=local(*sinks.values())) as (server, port):
            for fmt, sink in sinks.items():
                made[fmt] = await _create(port, sink.url, name=MARKUP, notify_format=fmt, bot="heuristic", options={"difficulty": "easy"})
                assert isinstance(made[fmt], Created)
                ann = await sit(port, "Ann", table_id=made[fmt].id, ident="key-ann")
                await started(ann)
                await play_new_turns(ann, sink, fmt, told[fmt], 2)  # two of her moves, each of several decisions
                tokens[fmt] = ann.session.token
                await ann.aclose()
            await quiet(server)
        async with serving(data, notifier=local(*sinks.values())) as (server, port):  # a restart
            for fmt, sink in sinks.items():
                ann = await sit(port, "Ann", table_id=made[fmt].id, ident="key-ann", token=tokens[fmt])
                await started(ann)  # the move under way is told again by the table: not by the webhook
                await play_new_turns(ann, sink, fmt, told[fmt], 1)
                await ann.aclose()
            await quiet(server)
        for fmt, sink in sinks.items():
            assert [said(p, fmt) for p in sink.posts] == [("move", t) for t in told[fmt]] and len(told[fmt]) == 3
            assert len(set(told[fmt])) == 3  # one notice per move, never the same move twice


@pytest.mark.trio
async def test_one_reminder_per_turn_when_a_quarter_of_the_clock_is_left_and_none_again_after_a_restart(tmp_path):
    """Ann never decides: each decision's clock (3 s) runs out and is skipped, several in a turn.
    Each turn is told once as it begins and reminded once, not once per decision."""
    sinks = {fmt: Sink() for fmt in FORMATS}
    expected = [("move", 1), ("reminder", 1), ("move", 2), ("reminder", 2)]
    async with serving_sinks(*sinks.values()):
        data, made, peers, tokens = tmp_path / "data", {}, [], {}
        async with serving(data, notifier=local(*sinks.values())) as (server, port):
            for fmt, sink in sinks.items():
                made[fmt] = await _create(port, sink.url, name=MARKUP, notify_format=fmt, seats=1, bots=0, turn_time=3,
                                          on_timeout="skip")
                assert isinstance(made[fmt], Created)
                peers.append(await sit(port, "Ann", table_id=made[fmt].id, ident="key-ann"))
                tokens[fmt] = peers[-1].session.token
            for sink in sinks.values():
                await sink.until(lambda: len(sink.posts) >= 2)  # turn 1 began, then a quarter of its clock was left
            for peer in peers:
                await peer.aclose()
        peers.clear()
        async with serving(data, notifier=local(*sinks.values())) as (server, port):  # a restart in the middle of turn 1
            for fmt in FORMATS:
                peers.append(await sit(port, "Ann", table_id=made[fmt].id, ident="key-ann", token=tokens[fmt]))
            for sink in sinks.values():
                await sink.until(lambda: len(sink.posts) >= 4)
            for peer in peers:
                await peer.aclose()
        for fmt, sink in sinks.items():
            assert [said(p, fmt) for p in sink.posts[:4]] == expected
            assert [said(p, fmt)[0] for p in sink.posts].count("reminder") <= len({said(p, fmt)[1] for p in sink.posts})


@pytest.mark.trio
async def test_a_turn_based_table_says_when_the_clock_runs_out(tmp_path):
    sink = Sink()
    async with serving_sinks(sink):
        noon = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
        async with serving(tmp_path / "data", notifier=local(sink), wall=lambda: noon) as (server, port):
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
        closed = await closed_port()
        refused = f"http://127.0.0.1:{closed}/hook/t0ken"
        notifier = Notifier(allowed([f"http://127.0.0.1:{hang.port}/hook/*", f"http://127.0.0.1:{closed}/hook/*"]), timeout=3600, backoff=0.01)
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
        async with serving(data, notifier=local(sink)) as (server, port):
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
async def test_an_address_no_longer_allowed_is_said_once_in_the_log(caplog):
    """A table made when its address was allowed, after a restart with other patterns: each of its
    notices is refused, and the log says so once for that address, not once per notice."""
    caplog.set_level("WARNING", logger="cthulhu.server.notify")
    notifier = Notifier(allowed(["https://hooks.example.org/*"]))
    async with trio.open_nursery() as nursery:
        await nursery.start(notifier.run)
        for _ in range(5):
            notifier.notify("http://127.0.0.1:9/hook/a", b"{}")
        notifier.notify("http://127.0.0.1:9/hook/b", b"{}")
        while notifier.failed < 6:
            await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    said = [r.getMessage() for r in caplog.records if "no longer allowed" in r.getMessage()]
    assert len(said) == 2, said  # one line per address


@pytest.mark.trio
async def test_a_full_queue_lets_the_oldest_go_and_counts_them():
    sink = Sink()
    async with serving_sinks(sink) as nursery:
        notifier = Notifier(allowed([f"http://127.0.0.1:{sink.port}/hook/*"]), queue=3, senders=1)
        for n in range(5):  # nothing sends yet: the queue fills
            notifier.notify(sink.url, body(move_notice("t", 0, "Ann", n, None), "json"))
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
        notifier = Notifier(allowed([f"http://127.0.0.1:{s.port}/hook/*" for s in (sink, refused)]), backoff=0.01)
        await nursery.start(notifier.run)
        notifier.notify(sink.url, body(move_notice("t", 0, "Ann", 1, None), "json"))
        while notifier.failed < 1:
            await trio.sleep(0.01)
        assert len(sink.posts) == 4 and notifier.sent == 0
        notifier.notify(refused.url, body(move_notice("t", 0, "Ann", 1, None), "json"))
        while notifier.failed < 2:
            await trio.sleep(0.01)
        assert len(refused.posts) == 1


def test_the_notice_names_the_deadline_in_utc_and_strips_the_name_everywhere():
    when = datetime(2026, 12, 1, 18, 30, 5, tzinfo=timezone.utc)
    notice = move_notice("abc123", 2, "\x1b[31mZed\x07 *the* [link](x)", 7, when)
    assert notice["deadline"] == "2026-12-01T18:30:05Z" and notice["seat"] == 3  # seats from 1, as the screens count
    assert notice["player"] == "31mZed the linkx"  # no escape, no bell, no markup: as in the text
    assert notice["text"] == "It is 31mZed the linkx's move (seat 3) at table abc123, turn 7; their clock runs out at 2026-12-01 18:30 UTC."
    assert move_notice("abc123", 0, MARKUP, None, None)["player"] == "everyonexhttp"
    reminder = move_notice("abc123", 0, "Ann", 7, when, "reminder")
    assert reminder["kind"] == "reminder" and reminder["text"].startswith("Reminder: it is still Ann's move (seat 1)")
    for fmt, key in (("discord", "content"), ("slack", "text"), ("matrix", "body")):
        assert json.loads(body(reminder, fmt))[key] == reminder["text"]


@pytest.mark.trio
async def test_the_command_line_makes_a_table_that_posts_in_its_format(tmp_path):
    """`tables --create --notify URL --notify-format discord` at a real server process; a headless
    bot plays the one seat to the end through `join`: one Discord message per turn, turns 1, 2, ..."""
    sink = Sink()
    async with serving_sinks(sink):
        server = ServerProcess(tmp_path / "server", args=("--notify-allow", f"http://127.0.0.1:{sink.port}/hook/*"))
        await trio.to_thread.run_sync(server.start)
        try:
            made = await trio.to_thread.run_sync(lambda: tables(
                server.address, "--create", "--mode", "shamblers", "--seats", "1", "--name", MARKUP, "--notify", sink.url,
                "--notify-format", "discord", home=tmp_path / "ann"))
            played = await trio.run_process([*CLI, "join", server.address, "--table", made["id"], "--headless", "--bot", "random",
                                             "--name", "Ann", "--json"], capture_stdout=True, capture_stderr=True,
                                            env=player_env(tmp_path / "ann"), check=False)
            assert played.returncode == 0, played.stderr
            turns = json.loads(played.stdout)
            assert turns["seat"] == 1 and turns["outcome"] in ("won", "lost")  # join --json counts seats from 1 too
            while len(sink.posts) < 1 or sink.connections > len(sink.posts):
                await trio.sleep(0.01)
        finally:
            await trio.to_thread.run_sync(server.stop)
        told = [said(p, "discord") for p in sink.posts]
        assert told == [("move", n) for n in range(1, len(told) + 1)]  # her every turn, once


def test_what_counts_as_a_move_beginning():
    """A turn is told once per seat that must decide in it (the seat to move becoming someone's,
    or their new turn), and reminded once per seat; a mode without turns tells each change of seat."""
    told = Told()
    assert told.is_new(0, 1)
    told = told.moved(0, 1)
    assert not told.is_new(0, 1)  # her next decision in that turn
    assert told.is_new(1, 1)  # the seat to move becomes another person's (a decision asked of them in her turn)
    told = told.moved(1, 1)
    assert not told.is_new(0, 1) and not told.is_new(1, 1)  # back to her, in the same turn: told already
    assert not told.was_reminded(0, 1)
    told = told.reminder(0)
    assert told.was_reminded(0, 1) and not told.was_reminded(1, 1)
    assert Told.of(told.saved()) == told  # what the store keeps
    assert told.is_new(0, 2) and not told.moved(0, 2).was_reminded(0, 2)  # a new turn: told and reminded afresh
    none = Told().moved(0, None)
    assert not none.is_new(0, None) and none.is_new(1, None) and none.moved(1, None).is_new(0, None)


def test_the_flags_refuse_misuse_in_one_line(tmp_path):
    bad = subprocess.run([*CLI, "server", "--data", str(tmp_path / "d"), "--port", "0", "--notify-allow", "ftp://x/*"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "--notify-allow" in bad.stderr
    alone = subprocess.run([*CLI, "tables", "127.0.0.1:1", "--notify", "http://127.0.0.1/x"], capture_output=True, text=True, timeout=60)
    assert alone.returncode == 2 and "--notify go with --create" in alone.stderr
    lonely = subprocess.run([*CLI, "tables", "127.0.0.1:1", "--create", "--notify-format", "slack"], capture_output=True, text=True, timeout=60)
    assert lonely.returncode == 2 and "--notify-format goes with --notify" in lonely.stderr
    unknown = subprocess.run([*CLI, "tables", "127.0.0.1:1", "--create", "--notify", "http://x/y", "--notify-format", "irc"],
                             capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "--notify-format" in unknown.stderr
    server = ServerProcess(tmp_path / "server").start()
    try:
        refused = tables(server.address, "--create", "--mode", "shamblers", "--seats", "1", "--notify", "http://127.0.0.1:9/x",
                         home=tmp_path / "ann", check=False)
        assert refused.returncode == 2 and "notify_off" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
        assert tables(server.address, home=tmp_path / "ann") == []
    finally:
        server.stop()


@pytest.mark.trio
async def test_a_closed_turn_based_table_is_opened_for_its_reminder_and_its_deadline(tmp_path):
    """Ann sits and leaves at once: the table is closed while her clock runs, and opened again by
    itself when a quarter of the clock is left (her reminder goes out) and when it runs out."""
    from cthulhu.server import ServerLimits

    sink = Sink()
    async with serving_sinks(sink):
        limits = ServerLimits(idle_close=0.5, sweep_every=0.2)
        async with serving(tmp_path / "data", notifier=local(sink), limits=limits) as (server, port):
            made = await _create(port, sink.url, seats=1, bots=0, turn_time=12, on_timeout="pause")
            assert isinstance(made, Created)
            ann = await sit(port, "Ann", table_id=made.id, ident="key-ann")
            await started(ann)
            await ann.aclose()
            table = server.tables[made.id]
            await sink.until(lambda: len(sink.posts) >= 1)
            with trio.fail_after(30):
                while table.host is not None:  # closed, its clock running
                    await trio.sleep(0.05)
            assert table.clock_deadline() is not None and len(sink.posts) == 1
            with trio.fail_after(30):
                await sink.until(lambda: len(sink.posts) >= 2)  # opened for the reminder
            assert [p["json"]["kind"] for p in sink.posts] == ["move", "reminder"]
            with trio.fail_after(30):
                while table.clock_deadline() is not None:  # opened again at the deadline: the clock ran out (paused)
                    await trio.sleep(0.05)
            assert table.record.clock["paused"]
