"""A turn-based table in the interface at 80x24 (Pilot, with its real embedded host on 127.0.0.1
and a real joiner): while a stand-in plays my seat the prompt bar says so in place of the
choices and the header says it within 80 columns; `b` takes the seat back, in words, and the
choices are mine again; the others read "Waiting for the stand-in for Ann"; the quit dialog says
what my clock does once I have left. Real time, short turn times: every wait is on a condition."""

from __future__ import annotations

import asyncio
import re

from support.tui_drive import SEED, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.core import Game, Setup
from cthulhu.net.seatstore import SeatStore
from cthulhu.table import Pace, TableSpec, open_table
from cthulhu.tui.app import CthulhuApp
from cthulhu.cli.embedded import embedded_link
from cthulhu.tui.netlink import JoinAs, NetLink
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import QuitScreen
from cthulhu.tui.standin import IDLE_BAR, STAND_IN_BAR
from cthulhu.tui.widgets.prompt_bar import PromptBar

SIZE = (80, 24)


def _app(tmp_path, game: Game, pace: Pace, name: str, bot_delay: float = 5.0) -> CthulhuApp:
    """This terminal hosts `game` (its first seat), the second left for a joiner; the stand-in
    waits `bot_delay` before each move, so what the screen says meanwhile can be read."""

    async def factory(options):
        return await embedded_link(options, open_table(TableSpec(start=game, pace=pace, bot_delay=bot_delay, code="owl-17")))

    options = PlayOptions(players=2, remote_seats=1, host_table=True, code="owl-17", skip_title=True, saves_dir=tmp_path, name=name)
    return CthulhuApp(options, link_factory=factory)


async def _joiner(port: int, tmp_path, name: str) -> NetLink:
    link = NetLink(JoinAs(host="127.0.0.1", port=port, name=name, code="owl-17"), store=SeatStore(tmp_path / name / "seats.json"))
    await link.open()
    return link


def _bar(screen) -> str:
    return screen.query_one(PromptBar).text


def test_a_stand_in_playing_my_seat_is_said_in_the_bar_and_header_and_b_takes_it_back(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))

    async def main():
        app = _app(tmp_path, Game.new(Setup(seed=SEED, players=2)), Pace(turn_time=3), "Ann")
        async with app.run_test(size=SIZE) as pilot:
            screen = await started(pilot)
            host = screen.link.embedded.host
            bob = await _joiner(screen.link.port, tmp_path, "Bob")
            await wait_for(pilot, lambda: host.seats[0].clocked_out, tries=3000)  # Ann's three seconds are up
            await wait_for(pilot, lambda: STAND_IN_BAR in _bar(screen))
            bar = screen.query_one(PromptBar)
            assert not bar.local and not bar.options  # in place of the choices
            assert "a stand-in plays for you (b)" in screen._status.plain[:80]
            await pilot.press("1")  # a choice key does nothing while the stand-in has the seat
            await pilot.press("b")
            await wait_for(pilot, lambda: "Your seat is yours again" in "\n".join(screen.query_one("#log").lines_plain))
            await wait_for(pilot, lambda: bar.local and bar.options, tries=1000)  # the choices are hers again
            await pilot.press(bar.keys[0])  # (heard once the stand-in's pause before its move is over)
            await wait_for(pilot, lambda: host.game.step >= 1, tries=3000)
            assert 1 not in host.log.sealed  # that decision was Ann's own, not a stand-in's
            await bob.close()

    asyncio.run(main())


def test_the_others_read_waiting_for_the_stand_in_for_ann(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    game = Game.new(Setup(seed=SEED, players=2))
    while game.prompt.seat != 1:  # Bob (this terminal) has played his turn: Ann's decision is next
        game.apply(0, game.prompt.options[0].command)

    async def main():
        app = _app(tmp_path, game, Pace(turn_time=2), "Bob")
        async with app.run_test(size=SIZE) as pilot:
            screen = await started(pilot)
            host = screen.link.embedded.host
            ann = await _joiner(screen.link.port, tmp_path, "Ann")
            await wait_for(pilot, lambda: host.seats[1].clocked_out, tries=3000)
            await wait_for(pilot, lambda: "Waiting for the stand-in for Ann" in _bar(screen))
            await ann.close()

    asyncio.run(main())


def test_the_quit_dialog_says_my_clock_keeps_running_and_what_happens_after(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))

    async def main():
        app = _app(tmp_path, Game.new(Setup(seed=SEED, players=2)), Pace(turn_time=43_200), "Ann")
        async with app.run_test(size=SIZE) as pilot:
            screen = await started(pilot)
            bob = await _joiner(screen.link.port, tmp_path, "Bob")
            await wait_for(pilot, lambda: screen.link.clock() is not None and screen.link.clock().clock.seat == 0, tries=1000)
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
            words = app.screen.comeback
            assert re.search(r"Your clock keeps running \((11h 59m|12h) left\); after that a stand-in plays this turn for you\.", words)
            assert "After 3 missed turns in a row it keeps your seat until you are back." in words
            await pilot.press("escape")
            await bob.close()

    asyncio.run(main())


def test_an_idle_table_is_said_paused_in_the_bar_and_b_starts_it_again(tmp_path, monkeypatch):
    """Two people who never press a key, one second a decision: the table pauses for want of
    people; the terminal whose decision it is not reads why and how to go on."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))

    async def main():
        app = _app(tmp_path, Game.new(Setup(seed=SEED, players=2)), Pace(turn_time=1), "Ann", bot_delay=0.0)
        async with app.run_test(size=SIZE) as pilot:
            screen = await started(pilot)
            host = screen.link.embedded.host
            bob = await _joiner(screen.link.port, tmp_path, "Bob")
            await wait_for(pilot, lambda: host.clock is not None and host.clock.idle, tries=6000)
            if host.clock.seat == 0:
                await wait_for(pilot, lambda: STAND_IN_BAR in _bar(screen) or screen.query_one(PromptBar).local)
            else:
                await wait_for(pilot, lambda: IDLE_BAR in _bar(screen))
            await wait_for(pilot, lambda: "paused: nobody played a round (b)" in screen._status.plain[:80])
            step = host.game.step
            await pilot.press("b")
            await wait_for(pilot, lambda: "the table goes on" in "\n".join(screen.query_one("#log").lines_plain), tries=1000)
            await wait_for(pilot, lambda: host.game.step > step or not host.clock.idle, tries=1000)
            await bob.close()

    asyncio.run(main())


def test_the_create_form_says_what_a_stand_in_does_and_asks_away_after_at_80x24(tmp_path, monkeypatch):
    """The server lobby's create form: a turn-based pace asks what happens out of time, a stand-in
    playing that turn and keeping the seat after so many missed turns (`--away-after`) in one row,
    so that the main game's form, its Notify row included, still fits 80x24."""
    from support.tui_drive import screen_text

    from cthulhu.tui.screens.tables import CreateTableScreen

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))

    async def main():
        app = CthulhuApp(PlayOptions(), link_factory=table_link)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            form = CreateTableScreen(app.content)
            app.push_screen(form)
            await wait_for(pilot, lambda: app.screen is form)
            while form.rows[form.cursor] is not form.pace:
                await pilot.press("down")
            await pilot.press("right")  # turn-based, 90 seconds a move
            await wait_for(pilot, lambda: form.timeout in form.rows)
            text = " ".join(screen_text(app).split())
            assert "stand-in plays the turn, stays after 3" in text and "Notify" in text
            assert form.form()["on_timeout"] == "stand-in" and form.form()["away_after"] == 3
            await pilot.press("down", "right")
            await wait_for(pilot, lambda: form.form()["away_after"] == 1)
            assert "stand-in plays until they are back" in " ".join(screen_text(app).split())
            await pilot.press("right", "right")
            await wait_for(pilot, lambda: form.form()["on_timeout"] == "skip")

    asyncio.run(main())
