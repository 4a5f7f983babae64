"""Turn-based tables at one host: a clock per person's decision, and what each policy does when it
runs out (`stand-in`, `skip`, `pause`); the clock stopping while nobody must decide; a player
acting in time; a connected player taking their seat back (`back`); the host's `move_begins` and
`stood_in` news; a kept deadline resumed with only the time it had left.

On in-memory streams and virtual time (pytest-trio's `autojump_clock`): "nothing happened for 59
seconds" is a fact about the virtual clock, never a real wait."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
import trio

from cthulhu.core import Command, modes
from cthulhu.net.client import TrioPeer
from cthulhu.net.clock import format_duration, parse_duration
from cthulhu.net.messages import Delta
from cthulhu.table import Kept, MoveBegins, Pace, StandInMove, TableSpec
from support.memory import MemoryTable, memory_table, play_until_seat_decides, until
from support.net_games import make_game

SAFETY = 3600  # virtual seconds
WALL = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


class Heard:
    """A host's owner that writes down what it is told (as a server's `TableEvents` would)."""

    def __init__(self) -> None:
        self.begun: list[MoveBegins] = []
        self.stood: list[StandInMove] = []

    def admitted(self, peer: Any, hello: Any) -> None: ...

    def left(self, peer: Any) -> None: ...

    def changed(self) -> None: ...

    def move_begins(self, move: MoveBegins) -> None:
        self.begun.append(move)

    def stood_in(self, move: StandInMove) -> None:
        self.stood.append(move)

    def seen(self, hello: Any) -> int | None:
        return None  # no records of people: the host's own memory of a seat token answers


@asynccontextmanager
async def _table(turn_time: float, on_timeout: str = "stand-in", *, seed: int = 3, players: int = 2, **spec: Any) -> AsyncIterator[MemoryTable]:
    async with memory_table(TableSpec(start=make_game("main", seed=seed, players=players),
                                      pace=Pace(turn_time=turn_time, on_timeout=on_timeout), **spec),  # type: ignore[arg-type]
                            wall=lambda: WALL + timedelta(seconds=trio.current_time()), events=Heard()) as table:
        with trio.fail_after(SAFETY):
            yield table


def _heard(table: MemoryTable) -> Heard:
    assert isinstance(table.host.events, Heard)
    return table.host.events


async def _bob_must_decide(table: MemoryTable) -> tuple[TrioPeer, TrioPeer]:
    """Ann and Bob sit down (Bob's interface reads and answers pings, nothing more); Ann plays
    until Bob's seat must decide. (Ann, Bob)."""
    a = await table.connect("Ann")
    b = await table.connect("Bob")
    table.nursery.start_soon(_listen, b)
    await play_until_seat_decides(a, 1)
    return a, b


async def _read_for(peer: TrioPeer, seconds: float) -> list[Any]:
    """Everything `peer` receives in the next `seconds` (virtual)."""
    got: list[Any] = []
    with trio.move_on_after(seconds):
        while True:
            batch = await peer.receive()  # (it answers pings)
            assert batch, "the host closed the connection"
            got += batch
    return got


async def _listen(peer: TrioPeer) -> None:
    """A connected player who does nothing: their interface reads and answers pings, nothing more."""
    while await peer.receive():
        await peer.flush()


async def _stand_in_deltas(peer: TrioPeer, count: int) -> list[Delta]:
    marked: list[Delta] = []
    while len(marked) < count:
        got = await peer.receive()
        assert got, "the host closed the connection"
        marked += [m for m in got if isinstance(m, Delta) and m.stand_in]
    return marked


def test_durations_read_as_people_write_them():
    assert [parse_duration(t) for t in ("90s", "12h", "3d", "1h30m", "2d12h", " 45M ")] == [90, 43_200, 259_200, 5_400, 216_000, 2_700]
    for bad in ("", "90", "1.5h", "30m1h", "1h1h", "-5s", "0s", "61d", "soon", "1h 30m"):
        with pytest.raises(ValueError):
            parse_duration(bad)
    assert [format_duration(s) for s in (0, 44.2, 90, 5_400, 216_000, 259_200, 3_600, 600)] == [
        "0s", "45s", "1m 30s", "1h 30m", "2d 12h", "3d", "1h", "10m"]


@pytest.mark.trio
async def test_a_silent_player_gets_a_stand_in_when_the_clock_runs_out_and_takes_the_seat_back(autojump_clock):
    async with _table(60) as table:
        host, game = table.host, table.host.game
        a, b = await _bob_must_decide(table)
        step = game.step
        await until(a, lambda: a.session.table.clock is not None and a.session.table.clock.seat == 1)
        clock = a.session.table.clock
        assert clock.turn_time == 60 and clock.on_timeout == "stand-in" and 59_000 <= clock.left_ms <= 60_000
        began = trio.current_time()
        assert datetime.fromisoformat(clock.deadline) == (WALL + timedelta(seconds=began + 60)).replace(microsecond=0)
        assert _heard(table).begun[-1] == MoveBegins(1, "Bob", step, _heard(table).begun[-1].turn, datetime.fromisoformat(clock.deadline))

        await _read_for(a, 59)  # Bob says nothing for 59 (virtual) seconds: the table waits
        assert game.step == step and host.seats[1].stand_in is None
        marked = await _stand_in_deltas(a, 1)  # then the clock runs out: a stand-in decides for him
        assert trio.current_time() - began == pytest.approx(60, abs=0.5)
        assert marked[0].step == step + 1 and marked[0].cmd[0] == 1
        assert host.seats[1].clocked_out and host.seats[1].peer is not None  # still connected, stood in for
        assert _heard(table).stood[0].why == "clock" and _heard(table).stood[0].step == step + 1
        assert step + 1 in host.log.sealed  # the save's line under it (`SaveHeader.sealed`)

        b.session.send_back()  # Bob is back at his keyboard: the stand-in leaves
        await b.flush()
        await until(a, lambda: not a.session.table.seats[1].stand_in)
        assert not host.seats[1].clocked_out and host.crashes == 0
        while b.session.my_prompt is None:  # Ann's clock runs out too, and her stand-in plays on to Bob
            await trio.sleep(0.5)
        assert b.session.my_prompt["undo"] == 0  # his stand-in's moves are not his to take back


@pytest.mark.trio
async def test_a_player_who_acts_in_time_gets_a_full_clock_for_the_next_decision(autojump_clock):
    async with _table(60) as table:
        host, game = table.host, table.host.game
        a = await table.connect("Ann")
        await trio.sleep(1)
        assert host.clock is None  # nobody decides before everyone sat down... then Ann does
        await table.connect("Bob")
        await until(a, lambda: a.session.my_prompt is not None)
        assert host.clock is not None and host.clock.seat == 0
        await _read_for(a, 50)
        first = host.clock
        a.session.send_command(a.session.my_prompt["options"][0]["command"])
        await a.flush()
        acted = trio.current_time()
        await until(a, lambda: a.session.mirror.view["step"] == 1)
        await trio.sleep(0)
        assert host.clock is not first and host.clock.due == pytest.approx(acted + 60, abs=0.5)
        assert not _heard(table).stood and game.step == 1


@pytest.mark.trio
async def test_skip_passes_the_decision_over_where_the_rules_offer_a_pass(autojump_clock):
    async with _table(30, "skip") as table:
        host, game = table.host, table.host.game
        a = await table.connect("Ann")
        await table.connect("Bob")
        await play_until_seat_decides(a, 1)
        prompt = game.prompt
        assert prompt.seat == 1 and prompt.kind == "action"
        step = game.step
        await _stand_in_deltas(a, 1)
        assert host.log.commands()[step][1]["kind"] == "end_actions"  # the pass the action prompt offers
        assert "end_actions" in modes.get("main").skips and _heard(table).stood[0].why == "skip"
        assert not host.seats[1].clocked_out and host.seats[1].stand_in is None  # the next decision is Bob's again
        await trio.sleep(0)
        if game.prompt is not None and game.prompt.seat == 1:
            assert host.clock is not None and host.clock.seat == 1 and host.clock.step == game.step


@pytest.mark.trio
async def test_skip_falls_back_to_the_stand_in_for_one_decision_the_rules_cannot_pass(autojump_clock):
    """A prompt with no pass among its options (the mode's `skips`): the stand-in makes that one choice."""
    game = make_game("shamblers", seed=2, players=1)
    skips = modes.get("shamblers").skips
    while game.prompt is not None and any(o.command.kind in skips for o in game.prompt.options):
        options = [o.command for o in game.prompt.options if o.command.kind not in skips]
        game.apply(game.prompt.seat, options[0] if options else game.prompt.options[0].command)
    prompt = game.prompt
    assert prompt is not None and not any(o.command.kind in skips for o in prompt.options)  # e.g. a feed
    legal = [o.command.wire() for o in prompt.options]
    async with memory_table(TableSpec(start=game, pace=Pace(turn_time=10, on_timeout="skip")), events=Heard()) as table:
        host = table.host
        a = await table.connect("Ann")
        step = game.step
        with trio.fail_after(SAFETY):
            await _stand_in_deltas(a, 1)
        assert game.step == step + 1 and _heard(table).stood[0].why == "skip"
        assert host.log.commands()[-1][1] in legal and not host.seats[0].clocked_out


@pytest.mark.trio
async def test_pause_stops_the_clock_and_the_table_waits_for_the_player(autojump_clock):
    async with _table(20, "pause") as table:
        host, game = table.host, table.host.game
        a, b = await _bob_must_decide(table)
        step = game.step
        await until(a, lambda: a.session.table.clock is not None and a.session.table.clock.paused)
        clock = a.session.table.clock
        assert clock.seat == 1 and clock.deadline is None and clock.left_ms is None
        await _read_for(a, 600)  # ten minutes past the clock: the table still waits for Bob
        assert game.step == step and host.seats[1].stand_in is None and not _heard(table).stood
        assert b.session.my_prompt is not None and b.session.closed is None
        b.session.send_command(b.session.my_prompt["options"][0]["command"])
        await b.flush()
        await until(a, lambda: a.session.mirror.view["step"] > step)
        assert game.step == step + 1


@pytest.mark.trio
async def test_the_clock_stops_while_a_bot_decides(autojump_clock):
    """Ann's clock runs only for Ann: while the bot at seat 1 takes its (slow) time, no clock runs,
    and Ann's next decision has the whole turn time again."""
    async with _table(30, bots={1: "heuristic"}, bot_delay=100) as table:
        host, game = table.host, table.host.game
        a = await table.connect("Ann")
        while True:
            await until(a, lambda: a.session.mirror.prompt is not None)
            if a.session.mirror.prompt["seat"] == 1:
                break
            version = a.session.my_prompt["version"]
            a.session.send_command(a.session.my_prompt["options"][0]["command"])
            await a.flush()
            await until(a, lambda: (a.session.mirror.prompt or {}).get("version") != version)
        await trio.sleep(0)
        assert host.clock is None  # the bot decides: no clock
        await until(a, lambda: a.session.table.clock.seat is None)
        bot_began = trio.current_time()
        await until(a, lambda: (a.session.mirror.prompt or {}).get("seat") == 0)
        assert trio.current_time() - bot_began >= 99  # the bot took longer than Ann's whole turn time
        await trio.sleep(0)
        assert host.clock.seat == 0 and host.clock.left(trio.current_time()) == pytest.approx(30, abs=0.5)
        assert not _heard(table).stood and all(m.seat == 0 for m in _heard(table).begun)


@pytest.mark.trio
async def test_a_kept_deadline_resumes_with_only_the_time_it_had_left(autojump_clock):
    """A server restarted mid-decision gives the seat what was left of its clock (wall time)."""
    game = make_game("main", seed=3, players=1)
    kept = Kept(clock={"seat": 0, "step": 0, "deadline": (WALL + timedelta(seconds=40)).isoformat(), "paused": False})
    async with memory_table(TableSpec(start=game, pace=Pace(turn_time=3600)), wall=lambda: WALL, kept=kept) as table:
        host = table.host
        a = await table.connect("Ann")
        await until(a, lambda: a.session.table.clock is not None and a.session.table.clock.seat == 0)
        assert host.clock.left(trio.current_time()) == pytest.approx(40, abs=0.5)
        begun = trio.current_time()
        with trio.fail_after(SAFETY):
            await _stand_in_deltas(a, 1)
        assert trio.current_time() - begun == pytest.approx(40, abs=0.5)


@pytest.mark.trio
async def test_a_live_table_has_no_clock_but_still_tells_each_move_beginning(autojump_clock):
    async with memory_table(TableSpec(start=make_game("main", seed=3, players=2)), events=Heard()) as table:
        host = table.host
        a = await table.connect("Ann")
        await table.connect("Bob")
        await until(a, lambda: a.session.my_prompt is not None)
        await trio.sleep(0)
        assert a.session.table.clock is None and host.clock is None
        assert _heard(table).begun == [MoveBegins(0, "Ann", 0, _heard(table).begun[0].turn, None)]
        await _read_for(a, 3600)
        assert host.game.step == 0  # a live table waits, however long


def test_a_pace_is_kept_in_a_tables_settings_and_refuses_nonsense():
    for pace in (Pace(), Pace(turn_time=90), Pace(turn_time=86_400, on_timeout="pause")):
        assert Pace.of(pace.settings()) == pace
    assert Pace.of({"kind": "live"}).kind == "live" and Pace(turn_time=5).kind == "turn-based"
    with pytest.raises(ValueError):
        Pace(turn_time=0)
    with pytest.raises(ValueError):
        Pace(turn_time=5, on_timeout="explode")  # type: ignore[arg-type]
    assert Command.of("end_actions").kind in modes.get("main").skips


@pytest.mark.trio
async def test_a_clocks_stand_in_move_is_marked_in_the_save_and_the_replay(tmp_path):
    """On the real clock (the save is written in a worker thread, which an autojump clock cannot
    see), a short turn time: the step the stand-in made is a sealed line in the save, a reload
    cannot take it back, and the replay viewer says who decided it."""
    from cthulhu.savegame import load, resume
    from cthulhu.table import SaveTo
    from cthulhu.tui.replay import Replayer

    path = tmp_path / "table.save"
    async with memory_table(TableSpec(start=make_game("main", seed=3, players=1), pace=Pace(turn_time=0.2),
                                      save=SaveTo(file=path, fsync=False))) as table:
        a = await table.connect("Ann")
        with trio.fail_after(30):
            marked = (await _stand_in_deltas(a, 1))[0]
    save = load(path)
    assert marked.step in save.header.sealed
    with pytest.raises(Exception, match="a bot decided for this seat"):
        resume(save).undo(0, 1)
    replay = Replayer(save)
    replay.go(marked.step)
    assert replay.describe().endswith("(a stand-in bot decided it)")
    if marked.step > 1:
        assert "stand-in" not in replay.describe(marked.step - 1)


def test_a_clock_handed_from_one_process_to_another_keeps_the_time_it_had_left():
    """A fleet's process that stops writes the time left (`left_ms`): the next owner's clock runs
    from that, however long the hand-off took (the deadline kept is the old one)."""
    from cthulhu.table.turnclock import resumed

    wall = datetime(2026, 12, 2, 1, 0, 0, tzinfo=timezone.utc)
    handed = {"seat": 1, "step": 7, "deadline": (wall - timedelta(seconds=5)).isoformat(), "paused": False, "idle": False, "left_ms": 42_500}
    clock = resumed(handed, 1, 7, now=100.0, wall=wall)
    assert clock is not None and clock.due == 142.5 and clock.deadline == wall + timedelta(seconds=42)
    plain = resumed({k: v for k, v in handed.items() if k != "left_ms"}, 1, 7, now=100.0, wall=wall)
    assert plain is not None and plain.due == 100.0  # (a restart: its deadline passed)
