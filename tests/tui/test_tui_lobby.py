"""The table dialog (L) of a hosted game: code, who sits where, open seats; seat news in the Log."""

from __future__ import annotations

import asyncio

from support.tui_drive import SEED, screen_text, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.netlink import JoinAs, NetLink
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.lobby import LobbyScreen


def _log(screen) -> str:
    return "\n".join(screen.query_one("#log").lines_plain)


def test_table_dialog_shows_code_seats_and_follows_joins_and_leaves(tmp_path):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, players=2, remote_seats=1, code="owl-17", skip_title=True, saves_dir=tmp_path, name="Ann"), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            port = screen.link.port
            await pilot.press("L")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
            text = screen_text(app)
            assert "owl-17" in text and f"cthulhu join 127.0.0.1:{port} --code owl-17" in text
            assert "Ann" in text and "(you)" in text and "1 open seat(s)" in text
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))

            peer = NetLink(JoinAs(host="127.0.0.1", port=port, name="Bob", code="owl-17"))
            await peer.open()
            await wait_for(pilot, lambda: "Bob sits down to play Mina Castellane." in _log(screen))
            await pilot.press("L")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
            text = screen_text(app)
            assert "Bob" in text and "0 open seat(s)" in text
            await pilot.press("escape")
            await peer.close()
            await wait_for(pilot, lambda: "Bob left; Mina Castellane waits for them." in _log(screen))
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: not app.is_running)

    asyncio.run(asyncio.wait_for(main(), 60))


def test_no_table_dialog_in_a_solo_game():
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True), link_factory=table_link)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await started(pilot)
            await pilot.press("L")
            await pilot.pause()
            assert app.screen is screen
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 30))
