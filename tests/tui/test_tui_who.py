"""Who is who (issue 22, item 12): every line a person reads names a seat by its player and the
investigators it plays ("Waiting for Ann (Ada Whitlock)"), never "seat 2"; hot-seat players are
named by their investigators, never "you 2"."""

from __future__ import annotations

import asyncio

from support.tui_drive import SEED, screen_text, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.core import Game, Setup
from cthulhu.tui.app import CthulhuApp
from cthulhu.table import TableSpec, open_table
from cthulhu.table import ThreadedHost
from cthulhu.tui.netlink import JoinAs, NetLink
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.lobby import LobbyScreen
from cthulhu.tui.widgets.prompt_bar import PromptBar

# SEED, two seats: Ada Whitlock plays seat 1 (and starts), Mina Castellane seat 2.


def _log(screen) -> str:
    return "\n".join(screen.query_one("#log").lines_plain)


async def _table_dialog(pilot) -> str:
    await pilot.press("L")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, LobbyScreen) and "Seats" in screen_text(pilot.app))
    text = " ".join(screen_text(pilot.app).split())  # (one space between words: styles split the text)
    await pilot.press("escape")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, GameScreen))
    return text


def test_the_host_names_the_missing_seat_the_joiner_and_whose_decision_it_is(tmp_path):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, players=2, remote_seats=1, host_table=True, code="owl", skip_title=True,
                                     saves_dir=tmp_path, name="Ann", bot_delay=0), link_factory=table_link)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            bar = screen.query_one(PromptBar)
            await wait_for(pilot, lambda: "Waiting for players before the game starts: nobody plays Mina Castellane yet" in bar.text)
            bob = NetLink(JoinAs(host="127.0.0.1", port=screen.link.port, name="Bob", code="owl"))
            await bob.open()
            try:
                await wait_for(pilot, lambda: "Bob sits down to play Mina Castellane." in _log(screen) and bool(bar.options))
                table = await _table_dialog(pilot)
                assert "1 Ann plays Ada Whitlock (you)" in table and "2 Bob plays Mina Castellane" in table, table
                end = next(n for n, o in enumerate(bar.options) if o["command"]["kind"] == "end_actions")
                await pilot.press(bar.keys[end])
                for _ in range(50):  # Ada's Mythos card may ask her more; the first option each time
                    await wait_for(pilot, lambda: bool(bar.options) or screen.view["prompt"]["seat"] == 1)
                    if screen.view["prompt"]["seat"] == 1:
                        break
                    seen = screen.updates_seen
                    await pilot.press(bar.keys[0])
                    await wait_for(pilot, lambda: screen.updates_seen > seen)
                assert bar.text.startswith("Waiting for Bob (Mina Castellane): choose an action"), bar.text
                assert "seat 2" not in _log(screen).lower() and "seat 2" not in bar.text.lower()
            finally:
                await bob.close()
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_joiner_is_told_what_they_play_and_whom_they_wait_for():
    async def main():
        host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=SEED, players=2)), code="owl")))
        port = await host.start()
        ann = NetLink(JoinAs(host="127.0.0.1", port=port, name="Ann", code="owl"))
        await ann.open()
        try:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", port), code="owl", name="Bob"))
            async with app.run_test(size=(80, 24)) as pilot:
                screen = await started(pilot)
                bar = screen.query_one(PromptBar)
                await wait_for(pilot, lambda: not screen.link_status)
                assert f"Joined the table at 127.0.0.1:{port}; you play Mina Castellane." in _log(screen)
                assert bar.text == "Waiting for Ann (Ada Whitlock): choose an action (3 actions left)", bar.text
                table = await _table_dialog(pilot)
                assert "1 Ann plays Ada Whitlock" in table and "2 Bob plays Mina Castellane (you)" in table, table
                await pilot.press("1")  # a key is not silence: it is Ann's decision
                await wait_for(pilot, lambda: "No choice on 1: not your decision" in bar.text)
                await pilot.press("ctrl+q")
        finally:
            await ann.close()
            await host.stop()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_hot_seat_players_are_named_by_their_investigators_never_you_2(tmp_path):
    """`play --players 2` joins the embedded host once per seat: each connection is named after
    its investigator, the Log has no news of the terminal's own seats, the bar no seat number."""

    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, players=2, skip_title=True, saves_dir=tmp_path), link_factory=table_link)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            bar = screen.query_one(PromptBar)
            await wait_for(pilot, lambda: bool(bar.options))
            await pilot.pause(0.2)  # the second seat's lobby news has come by now
            names = [seat.name for seat in screen.link.embedded.host.seats]
            assert names == ["Ada Whitlock", "Mina Castellane"], names
            assert "you 2" not in _log(screen) and "sits" not in _log(screen), _log(screen)
            assert "\nAda Whitlock: choose an action" in bar.text and "Seat" not in bar.text, bar.text
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_hosted_hot_seat_table_lists_each_local_player_once_by_investigator(tmp_path):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, players=3, remote_seats=1, host_table=True, code="owl", skip_title=True,
                                     saves_dir=tmp_path, name="Ann"), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            await started(pilot)
            for _ in range(100):  # the second local seat sits down over its own connection, maybe after the first frame
                table = await _table_dialog(pilot)
                if "2 open" not in table:
                    break
                await pilot.pause(0.1)
            assert "1 Ada Whitlock (you)" in table and "2 Mina Castellane (you)" in table, table
            assert "3 open for Osric Vane - anyone with the code may take it" in table and "you 2" not in table, table
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_bots_seat_and_a_line_that_names_nobody():
    from cthulhu.tui.who import BOT
    from cthulhu.tui.widgets.prompt_bar import waiting_for, whose

    view = Game.new(Setup(seed=SEED, players=2)).view(1)
    assert waiting_for(view, 0, {0: BOT}, "Ada Whitlock: choose an action") == "Waiting for a bot (Ada Whitlock): choose an action"
    assert waiting_for(view, 0, {}, "Trade: who gives what to whom?") == "Waiting for Ada Whitlock: Trade: who gives what to whom?"
    assert waiting_for(view, 1, {1: "Bob"}, "Mina Castellane, Robe on a Hook: choose one") == "Waiting for Bob (Mina Castellane): Robe on a Hook: choose one"
    assert whose(view, 1, "Trade: who gives what to whom?") == "[Mina Castellane] "  # hot-seat: whose decision
    assert whose(view, 1, "Mina Castellane runs: 3 spaces left") == ""  # the line says so already


def test_every_built_in_mode_names_what_each_seat_plays():
    from cthulhu.core import modes

    for name in ("main", "shamblers"):
        view = Game.new(Setup(mode=name, seed=SEED, players=3)).view(None)
        named = [modes.get(name).playing(view, seat) for seat in range(3)]
        assert all(n and not n.startswith("seat ") for n in named) and len(set(named)) == 3, (name, named)
    solo = Game.new(Setup(seed=SEED)).view(None)
    assert modes.get("main").playing(solo, 0) == "Ada Whitlock and Mina Castellane"


def test_a_hot_seat_terminal_tells_no_news_of_its_own_second_seat_sitting_down():
    """The first connection can hear the second one sit down before the second has been welcomed
    (under load it did: 'Mina Castellane sits down to play Mina Castellane.')."""
    from cthulhu.net.messages import SeatInfo, Table

    link = NetLink(JoinAs(host="127.0.0.1", port=1, seats=(0, 1), names=("Ada Whitlock", "Mina Castellane")))
    ada = SeatInfo(seat=0, kind="human", name="Ada Whitlock", connected=True)
    assert link._seat_news(Table(mode="main", seats=[ada, SeatInfo(seat=1, kind="open")])) == []
    assert link._seat_news(Table(mode="main", seats=[ada, SeatInfo(seat=1, kind="human", name="Mina Castellane", connected=True)])) == []
