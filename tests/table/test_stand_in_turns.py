"""Your seat stays yours (`table.standin`): a stand-in plays only the turn whose clock ran out, then
the seat is its player's again with a fresh clock; after `away_after` missed turns in a row it
keeps the seat until they are back; a table where no person decides for a whole round pauses
(nothing moves, no clock runs) until a person returns; one active player plays on to the end.

On in-memory streams and virtual time (pytest-trio's `autojump_clock`)."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from cthulhu.core import modes
from cthulhu.net.client import TrioPeer
from cthulhu.table import Pace, TableSpec

from support.memory import MemoryTable, memory_table, play_to_the_end, play_until_seat_decides, until
from support.net_games import make_game

SAFETY = 24 * 3600  # virtual seconds


def _turn(table: MemoryTable) -> tuple[int, int]:
    turn = modes.get("main").turn
    assert turn is not None
    return turn(table.host.game.state)


async def _listen(peer: TrioPeer) -> None:
    """A connected player who does nothing: their interface reads and answers pings, nothing more."""
    while await peer.receive():
        await peer.flush()


async def _wait(condition: Any, step: float = 0.5) -> None:
    while not condition():
        await trio.sleep(step)


def _spec(turn_time: float, away_after: int = 3, on_timeout: str = "stand-in", **kw: Any) -> TableSpec:
    return TableSpec(start=make_game("main", seed=3, players=2), bot_delay=0.1,
                     pace=Pace(turn_time=turn_time, on_timeout=on_timeout, away_after=away_after), **kw)  # type: ignore[arg-type]


def test_the_modes_say_whose_turn_it_is():
    game = make_game("main", seed=3, players=2)
    turn = modes.get("main").turn
    assert turn is not None and turn(game.state)[1] == game.prompt.seat
    sham = make_game("shamblers", seed=2, players=2)
    assert modes.get("shamblers").turn(sham.state)[1] == sham.prompt.seat


def test_away_after_is_kept_with_the_pace_and_refuses_nonsense():
    pace = Pace(turn_time=60, away_after=5)
    assert Pace.of(pace.settings()) == pace and Pace.of({"kind": "turn-based", "turn_time": 60}).away_after == 3
    for bad in (0, 101):
        with pytest.raises(ValueError, match="away-after"):
            Pace(turn_time=60, away_after=bad)


@pytest.mark.trio
async def test_a_stand_in_plays_only_the_turn_that_ran_out_then_the_seat_is_the_players_again(autojump_clock):
    async with memory_table(_spec(60)) as table:
        host = table.host
        a = await table.connect("Ann")
        b = await table.connect("Bob")
        table.nursery.start_soon(_listen, b)
        with trio.fail_after(SAFETY):
            await play_until_seat_decides(a, 1)
            bobs_turn = _turn(table)
            assert bobs_turn[1] == 1
            await _wait(lambda: host.seats[1].clocked_out)  # his minute is up: the stand-in plays his turn
            assert host.turns.missed == {1: 1}
            await _wait(lambda: _turn(table) != bobs_turn)  # ... only that one
            await trio.sleep(0)
            assert not host.seats[1].clocked_out and host.seats[1].stand_in is None
            await until(a, lambda: a.session.mirror.view["step"] == host.game.step)
            await _seat_back(a, 1)  # Ann's table shows his seat as his again
            await play_until_seat_decides(a, 1)  # Ann plays her turn; Bob's next decision is his, on a fresh clock
            await trio.sleep(0)
            assert host.clock is not None and host.clock.seat == 1
            assert host.clock.left(trio.current_time()) == pytest.approx(60, abs=0.5)
            version = b.session.my_prompt["version"]
            b.session.send_command(b.session.my_prompt["options"][0]["command"])
            await b.flush()
            await until(a, lambda: (a.session.mirror.prompt or {}).get("version") != version)
            assert host.turns.missed == {} and host.crashes == 0


async def _seat_back(peer: TrioPeer, seat: int) -> bool:
    await until(peer, lambda: not peer.session.table.seats[seat].stand_in)
    return True


@pytest.mark.trio
async def test_after_away_after_missed_turns_in_a_row_the_stand_in_keeps_the_seat_until_back(autojump_clock):
    async with memory_table(_spec(30, away_after=2)) as table:
        host = table.host
        a = await table.connect("Ann")
        b = await table.connect("Bob")
        table.nursery.start_soon(_listen, b)
        with trio.fail_after(SAFETY):
            for missed in (1, 2):
                await play_until_seat_decides(a, 1)
                turn = _turn(table)
                await _wait(lambda: host.seats[1].clocked_out)
                assert host.turns.missed[1] == missed
                await _wait(lambda: _turn(table) != turn)
                await until(a, lambda: a.session.mirror.view["step"] == host.game.step)
                assert host.seats[1].clocked_out == (missed == 2)  # the second miss in a row: the seat stays the stand-in's
            assert a.session.table.seats[1].stand_in
            b.session.send_back()  # Bob is back at his keyboard
            await b.flush()
            await _seat_back(a, 1)
            assert not host.seats[1].clocked_out and host.turns.missed == {}


@pytest.mark.trio
async def test_a_table_nobody_plays_pauses_within_two_rounds_until_a_person_returns(autojump_clock):
    """Two people who never press a key, two seconds a decision: the table pauses (no clock runs,
    no stand-in plays) and stays paused; Bob's `back` starts it again."""
    async with memory_table(_spec(2)) as table:
        host, game = table.host, table.host.game
        a = await table.connect("Ann")
        b = await table.connect("Bob")
        table.nursery.start_soon(_listen, a)
        table.nursery.start_soon(_listen, b)
        with trio.fail_after(SAFETY):
            await _wait(lambda: host.clock is not None and host.clock.idle)
        assert _turn(table)[0] <= 5  # within two rounds of two turns (the first turn is 1)
        assert host.clock.paused and host.clock.due is None and host.clock.seat == game.prompt.seat
        assert host.clock_info().idle and host.clock_info().deadline is None
        step = game.step
        await trio.sleep(3 * 86_400)  # three days: nothing moves
        assert game.step == step and game.outcome is None and host.clock.idle
        b.session.send_back()
        await b.flush()
        with trio.fail_after(SAFETY):
            await _wait(lambda: game.step > step)  # a person is back: the clocks run and the table goes on
        assert not host.turns.idle and host.crashes == 0


@pytest.mark.trio
async def test_with_skip_a_table_nobody_plays_pauses_too(autojump_clock):
    async with memory_table(_spec(2, on_timeout="skip")) as table:
        host = table.host
        for name in ("Ann", "Bob"):
            table.nursery.start_soon(_listen, await table.connect(name))
        with trio.fail_after(SAFETY):
            await _wait(lambda: host.clock is not None and host.clock.idle)
        assert not any(s.clocked_out for s in host.seats) and host.game.outcome is None


@pytest.mark.trio
async def test_one_active_player_plays_on_to_the_end_beside_a_silent_one(autojump_clock):
    async with memory_table(_spec(2)) as table:
        host = table.host
        a = await table.connect("Ann")
        table.nursery.start_soon(_listen, await table.connect("Bob"))
        with trio.fail_after(SAFETY):
            session = await play_to_the_end(a, "heuristic")
        assert session.game_over is not None and host.game.outcome is not None
        assert any(seat == 0 for seat, _ in host.log.commands())  # Ann's own moves reached the end
        assert host.seats[1].clocked_out  # Bob missed three turns in a row: the stand-in kept his seat


def test_a_paused_row_says_so_in_the_lobby_and_a_stand_in_seat_is_not_away():
    from datetime import datetime, timezone

    from cthulhu.net.clock import pace_words
    from cthulhu.net.lobbymessages import SeatRow, TableRow

    seats = [SeatRow(seat=0, name="Ann", status="stand_in"), SeatRow(seat=1, name="Bob", status="away")]
    row = TableRow(id="t", mode="main", setup={}, seats=seats, pace="turn-based", turn_time=43_200, on_timeout="stand-in",
                   away_after=3, paused=True)
    assert pace_words(row, datetime(2030, 1, 1, tzinfo=timezone.utc)) == ", 12h a move, paused"
    from cthulhu.cli.tables import table_json

    listed = table_json(row)
    assert [s["status"] for s in listed["seats"]] == ["stand_in", "away"] and listed["paused"] is True and listed["away_after"] == 3
