"""The interface as `host --ssh/--web` serves it: stand-ins for keys a browser keeps (the page lists
them), the kiosk a visitor gets, and the doors shown in the host's table dialog."""

from __future__ import annotations

import asyncio

from textual.command import CommandPalette
from support.tui_drive import SEED, notices, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.widgets.chat import ChatInput
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import HelpScreen, QuitScreen
from cthulhu.tui.screens.lobby import lobby_text


def test_stand_ins_for_ctrl_p_f1_and_ctrl_q(tmp_path):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, players=2, remote_seats=1, skip_title=True, saves_dir=tmp_path), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await pilot.press("colon")  # for ctrl+p
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen)
            await pilot.press("question_mark")  # for F1
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
            await pilot.press("escape")
            await pilot.press("q")  # for ctrl+q: the quit menu
            await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen)
            await pilot.press("c", *"a:b")  # typed into the chat line, ':' stays text
            chat = screen.query_one(ChatInput)
            assert chat.value == "a:b" and not isinstance(app.screen, CommandPalette)
            await pilot.press("escape")
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_kiosk_offers_no_new_game_and_no_screenshot_and_leaves_instead_of_a_title(tmp_path):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=tmp_path, kiosk=True), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            titles = {c.title for c in app.get_system_commands(screen)}
            assert "New game" not in titles and "Screenshot" not in titles and "Help" in titles
            await screen.action_new_game()  # (the game-over dialog's "new game") ends a visitor's session
            await wait_for(pilot, lambda: not app.is_running)
            assert not any(type(s).__name__ == "TitleScreen" for s in app.screen_stack)

    asyncio.run(asyncio.wait_for(main(), 60))


def test_the_table_dialog_shows_the_doors_to_the_host_and_the_way_back_to_a_visitor():
    table = {"mode": "main", "started": True, "seats": [{"seat": 0, "kind": "human", "name": "ann", "connected": True}]}
    doors = ("Over SSH:   ssh -p 2222 C0de@box   (host key SHA256:abc)", "In a browser: http://box:8000/?code=C0de")
    host = lobby_text({"hosting": True, "address": "box:7777", "join": "cthulhu join box:7777 --code C0de", "code": "C0de",
                       "table": table, "doors": doors}).plain
    assert "cthulhu join box:7777 --code C0de" in host and all(line in host for line in doors)
    back = "Your return ticket is abcdefghijkm: to come back to your seat, type  ssh -p 2222 abcdefghijkm@box"
    visitor = lobby_text({"visitor": True, "address": None, "join": None, "code": "C0de", "table": table, "comeback": back}).plain
    assert "SSH or web door" in visitor and back in visitor
    assert "127.0.0.1" not in visitor and "None" not in visitor and "cthulhu join" not in visitor


def test_a_visitor_who_finds_every_seat_taken_is_not_told_of_a_seat_to_come_back_to():
    """The door's way back names "your seat": a visitor who only watches has none, so neither the
    notice, the table dialog nor the farewell offers it (a seated visitor's still does)."""
    from cthulhu.core import Game, Setup
    from cthulhu.table import TableSpec, open_table
    from cthulhu.table import ThreadedHost
    from cthulhu.tui.netlink import JoinAs, NetLink

    back = "Your return ticket is abcdefghijkm: to come back to your seat, type  ssh -p 2222 abcdefghijkm@box"

    async def main():
        host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=SEED, players=2)), code="owl")))
        port = await host.start()
        links = [NetLink(JoinAs(host="127.0.0.1", port=port, code="owl", name=name, visitor=back)) for name in ("ann", "bob", "cy")]
        try:
            seated = [await link.open() for link in links]
            for update, link in zip(seated[:2], links):
                assert back in notices(update) and link.lobby_info()["comeback"] == back and link.comeback == back
            seats = links[2].lobby_info()["table"]["seats"]  # plain data, as the table dialog reads it
            assert [(s["name"], s["connected"]) for s in seats] == [("ann", True), ("bob", True)], seats
            watching = seated[2]
            said = notices(watching)
            assert "Every seat is taken, so you are watching." in said, said
            assert "return ticket" not in said and "your seat" not in said, said
            assert links[2].lobby_info()["comeback"] is None  # no seat to come back to...
            assert "seat" not in links[2].comeback and "ticket" not in links[2].comeback  # ...only what quitting does (watching)
            assert links[2].comeback.startswith("You are watching")
        finally:
            for link in links:
                await link.close()
            await host.stop()

    asyncio.run(asyncio.wait_for(main(), 60))
