"""A third mode added by files only plays in the real app: the toy, with its own interface and without one."""

from __future__ import annotations

import asyncio

from support import toy_tui
from support.tui_drive import screen_text, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions


def _play_two_moves(expect_map: str, expect_log: str) -> None:
    async def main() -> None:
        app = CthulhuApp(PlayOptions(mode="toy", seed=3, skip_title=True), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await wait_for(pilot, lambda: expect_map in screen.query_one("#map").text())
            for _ in range(2):
                step = screen.view["step"]
                await pilot.press("1")
                await wait_for(pilot, lambda: screen.view["step"] > step)
            await wait_for(pilot, lambda: expect_log in screen_text(app))
            await pilot.press("question_mark")
            await pilot.pause()
            assert "Keys" in screen_text(app)

    asyncio.run(asyncio.wait_for(main(), 60))


def test_the_toy_plays_with_its_own_interface():
    toy_tui.install()
    try:
        _play_two_moves("Deck: ", "draws a card")
    finally:
        toy_tui.uninstall()


def test_a_mode_without_an_interface_plays_with_the_generic_one():
    toy_tui.uninstall()
    _play_two_moves("deck:", "Drew: seat")
