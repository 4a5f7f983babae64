"""The Log keeps every line: lines told while its pane is hidden are there when it comes back, and
lines told while the player reads back wait below, with the pane's border saying how many."""

from __future__ import annotations

import asyncio

from tui_drive import SEED, choose, started, wait_for

from cthulhu.tui.app import CthulhuApp, local_link
from cthulhu.tui.options import PlayOptions


def _app() -> CthulhuApp:
    return CthulhuApp(PlayOptions(seed=SEED, local=True, skip_title=True), link_factory=local_link)


def shown_lines(log) -> list[str]:
    """The Log pane's lines as drawn (wrapped to the pane), not only the sentences it was given."""
    return ["".join(segment.text for segment in strip) for strip in log.lines]


def test_a_line_told_while_the_log_pane_is_hidden_is_there_after_tab_back():
    async def main():
        app = _app()
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            log = screen.query_one("#log")
            await pilot.press("tab", "tab", "tab")  # Map -> Investigators -> Story Board -> Log
            assert screen.side == "log" and log.display
            await pilot.press("tab", "tab")  # Map, then Investigators: the Log pane is hidden again
            assert screen.side == "investigators" and not log.display
            await choose(pilot, screen, "Run")
            move = next(t.plain for t in reversed(log.entries) if "takes the action Run" in t.plain)
            await pilot.press("tab", "tab")  # Story Board, then Log
            await pilot.pause(0.1)
            assert screen.side == "log" and log.display
            drawn = " ".join(" ".join(shown_lines(log)).split())
            assert " ".join(move.split()) in drawn, drawn[-300:]
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_new_lines_wait_below_a_log_read_back_and_its_border_says_so():
    async def main():
        app = _app()
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            log = screen.query_one("#log")
            while log.max_scroll_y < 2:  # run about until the Log is longer than its pane
                labels = [o["label"] for o in screen.view["prompt"]["options"]]
                await choose(pilot, screen, "Move to" if any(label.startswith("Move to") for label in labels) else "Run")
            log.focus()
            await pilot.press("home")
            await pilot.pause(0.1)
            assert not log.following and log.scroll_y == 0
            before = shown_lines(log)[: log.size.height]
            told = len(log.entries)
            await choose(pilot, screen, "End actions")
            await wait_for(pilot, lambda: len(log.entries) > told)
            await pilot.pause(0.1)
            new = len(log.entries) - told
            assert log.scroll_y == 0 and shown_lines(log)[: log.size.height] == before  # the view stays where the player reads
            subtitle = str(log.border_subtitle)
            assert f"{new} new line{'s' if new != 1 else ''} below" in subtitle and "End" in subtitle, subtitle
            await pilot.press("end")
            await pilot.pause(0.1)
            assert log.following and log.scroll_y == log.max_scroll_y
            assert "new line" not in str(log.border_subtitle)
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))
