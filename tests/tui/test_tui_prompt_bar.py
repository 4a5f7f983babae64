"""The prompt bar and the footer at 80 columns (issue 22, item 13): the footer keeps Help and Quit
in a networked game, notifications never cover the bar, a wrapped choice carries on under its
text, and a key that picks nothing says so (to a joiner while another player decides: test_tui_who)."""

from __future__ import annotations

import asyncio
import re

import pytest
from support.terminal_capture import Capture
from test_tui_hints import _before_mythos_then_discovery
from support.tui_drive import SEED, started, table_of, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.netlink import JoinAs, NetLink
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import HelpScreen
from cthulhu.tui.widgets.prompt_bar import PromptBar

SIZES = [(80, 24), (120, 40)]


def at_the_discovery_choice() -> tuple[CthulhuApp, int]:
    """Seed 7, one command before the Robe on a Hook, whose two options are wider than 80 columns;
    the app, and the option that gets there."""
    game, command = _before_mythos_then_discovery()
    option = next(n for n, o in enumerate(game.prompt.options) if o.command == command)
    return CthulhuApp(PlayOptions(skip_title=True), link_factory=table_of(game)), option


async def to_the_discovery_choice(pilot, option: int) -> PromptBar:
    screen = await started(pilot)
    bar = screen.query_one(PromptBar)
    await pilot.press(bar.keys[option])
    await wait_for(pilot, lambda: screen.view["prompt"]["kind"] == "choose")
    await pilot.pause(0.1)
    return bar


def test_the_footer_keeps_help_and_quit_at_80_columns_in_a_networked_game(tmp_path):
    """Chat, Table and Undo used to push Quit under the command palette's key."""

    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, players=2, remote_seats=1, host_table=True, code="owl", skip_title=True,
                                     saves_dir=tmp_path, name="Ann"), link_factory=table_link)
        capture = Capture(app)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            bob = NetLink(JoinAs(host="127.0.0.1", port=screen.link.port, name="Bob", code="owl"))
            await bob.open()
            try:
                bar = screen.query_one(PromptBar)
                await wait_for(pilot, lambda: bool(bar.options))
                await pilot.press(bar.keys[0])  # Run: a decision to take back, so Undo shows too
                await wait_for(pilot, lambda: screen.can_undo)
                await pilot.pause(0.3)
                footer = capture.text().splitlines()[-1]
                for key in ("? Help", "q Quit", "u Undo", "c Chat", "L Table", "o Choices"):
                    assert key in footer, footer
                await pilot.resize_terminal(120, 40)
                await pilot.pause(0.3)
                wide = capture.text().splitlines()[-1]
                assert "z Zoom" in wide and "^p palette" in wide and "q Quit" in wide, wide  # room for all of them
            finally:
                await bob.close()
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40), (250, 80)])
def test_notifications_never_cover_the_prompt_bar(size):
    async def main():
        app, option = at_the_discovery_choice()
        capture = Capture(app)
        async with app.run_test(size=size, notifications=True) as pilot:
            bar = await to_the_discovery_choice(pilot, option)
            for n in range(6):
                app.notify(f"Notice {n}: " + "a line about something that happened at the table " * 3, timeout=60)
            await pilot.pause(0.3)
            rows = capture.text().splitlines()
            assert any("Notice 5" in row for row in rows), "the newest notification is in sight"
            guarded = rows[bar.region.y : bar.region.y + bar.region.height]
            assert guarded and not any("Notice" in row or "table" in row for row in guarded), "\n".join(rows)
            assert "Robe on a Hook: choose one" in "\n".join(guarded)
            await pilot.press("question_mark")  # a dialog over the table: its notifications keep clear too
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
            app.notify("Notice 6: " + "a line about something that happened at the table " * 3, timeout=60)
            await pilot.pause(0.3)
            rows = capture.text().splitlines()
            assert any("Notice 6" in row for row in rows)
            assert not any("Notice" in row for row in rows[bar.region.y : bar.region.y + bar.region.height]), "\n".join(rows)
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


@pytest.mark.parametrize("size", SIZES)
def test_a_wrapped_choice_carries_on_under_its_text_not_under_its_key(size):
    async def main():
        app, option = at_the_discovery_choice()
        capture = Capture(app)
        async with app.run_test(size=size) as pilot:
            bar = await to_the_discovery_choice(pilot, option)
            rows = (await capture.settled(pilot)).splitlines()[bar.region.y : bar.region.y + bar.region.height]
            await pilot.press("ctrl+q")
            return rows

    rows = asyncio.run(asyncio.wait_for(main(), 60))
    first = next(n for n, row in enumerate(rows) if row.startswith("  1  "))
    options = [row for row in rows[first:] if row.strip()]
    assert len(options) > 2, rows  # the option text is wider than the bar: it wraps
    for row in options:
        assert re.match(r"  \d  \S", row) or re.match(r" {5}\S", row), rows  # a key, or under the text after one


def test_a_key_with_no_option_says_so_in_the_bar(monkeypatch):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True), link_factory=table_link)
        capture = Capture(app)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            bar = screen.query_one(PromptBar)
            await wait_for(pilot, lambda: bool(bar.options))
            rows_before = bar.rows
            await pilot.press("7")
            await pilot.pause(0.1)
            assert "No choice on 7: choose 1 or 2" in capture.text(), capture.text()
            assert screen.view["step"] == 0 and bar.rows == rows_before  # nothing chosen; the bar kept its height
            seen = screen.updates_seen
            await pilot.press(bar.keys[0])
            await wait_for(pilot, lambda: screen.updates_seen > seen)
            assert "No choice" not in bar.text  # the next prompt takes it away
            await pilot.press("x")
            await wait_for(pilot, lambda: "No choice on x: choose" in bar.text)
            monkeypatch.setattr(PromptBar, "FLASH_SECONDS", 0.2)
            await pilot.press("x")  # (again, with a short while to stay)
            await wait_for(pilot, lambda: "No choice" not in bar.text, tries=500)  # and so does a short while
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))
