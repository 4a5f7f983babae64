"""The Log keeps every line: lines told while its pane is hidden are there when it comes back, and
lines told while the player reads back wait below, with the pane's top border saying how many."""

from __future__ import annotations

import asyncio

from support.tui_drive import SEED, choose, screen_text, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions


def _app() -> CthulhuApp:
    return CthulhuApp(PlayOptions(seed=SEED, skip_title=True), link_factory=table_link)


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
            await wait_for(pilot, lambda: log.scroll_y == 0)  # where the scroll ends, not a fixed while
            assert not log.following
            before = shown_lines(log)[: log.size.height]
            told = len(log.entries)
            await choose(pilot, screen, "End actions")
            await wait_for(pilot, lambda: len(log.entries) > told and str(log.border_title) != "Log")  # the border is told by a message
            new = len(log.entries) - told
            # The view stays where the player reads (the pane may be shorter now: a moment card came).
            assert log.scroll_y == 0 and shown_lines(log)[: log.size.height] == before[: log.size.height]
            title = str(log.border_title)  # the top border: the moment card may lie over the pane's foot
            assert f"{new} new line{'s' if new != 1 else ''} below" in title and "End" in title, title
            assert f"{new} new line" in screen_text(app)  # drawn, not under the moment card
            await pilot.press("end")
            await wait_for(pilot, lambda: log.scroll_y == log.max_scroll_y and str(log.border_title) == "Log")
            assert log.following
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_loaded_game_starts_with_the_story_so_far_in_its_log(tmp_path):
    """`play --load`: the Log is rebuilt from the saved commands (the host replays them), not an empty pane."""

    async def main() -> None:
        saves = tmp_path
        first = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=saves), link_factory=table_link)
        async with first.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await choose(pilot, screen, "Run")
            await choose(pilot, screen, "Move to")
            said = [t.plain for t in screen.query_one("#log").entries]
            await pilot.press("ctrl+q")
        (save,) = saves.glob("*.save")
        moved = next(line for line in said if " moves to " in line)
        again = CthulhuApp(PlayOptions(load=save, saves_dir=saves), link_factory=table_link)
        async with again.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            told = [t.plain for t in screen.query_one("#log").entries]
            assert "The story so far (up to step 2):" in told, told
            assert told.index(moved) > told.index("The story so far (up to step 2):"), told
            assert told[-1].startswith("Turn 1: ")  # then where the game stands
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_hosted_game_carried_on_tells_its_moves_but_not_its_chat(tmp_path):
    """`host --load`: the rebuilt Log holds what was played; chat is no part of the saved game."""

    async def main() -> None:
        options = PlayOptions(seed=SEED, players=2, remote_seats=1, skip_title=True, saves_dir=tmp_path, name="Ann")
        first = CthulhuApp(options, link_factory=table_link)
        async with first.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await screen.link.start_with_bots()  # a bot in the open seat: play starts
            await wait_for(pilot, lambda: any(o["label"] == "Run" for o in (screen.view.get("prompt") or {}).get("options", []))
                           and screen.view["prompt"]["seat"] in screen.link.local_seats and not screen.link_status)
            await pilot.press("c", *"a word before we go", "enter")
            await wait_for(pilot, lambda: any("a word before we go" in t.plain for t in screen.query_one("#log").entries))
            await choose(pilot, screen, "Run")
            await pilot.press("ctrl+q")
        (save,) = tmp_path.glob("*.save")
        again = CthulhuApp(PlayOptions(load=save, saves_dir=tmp_path, name="Ann", host_table=True), link_factory=table_link)
        async with again.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            told = " ".join(t.plain for t in screen.query_one("#log").entries)
            assert "takes the action Run" in told and "The story so far" in told, told
            assert "a word before we go" not in told
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_new_game_tells_its_set_up_once():
    """A table's welcome at step 0 carries the set-up's own events; its recap of the same step is not
    told again under "The story so far"."""

    async def main() -> None:
        app = _app()
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await pilot.pause(0.2)
            told = [t.plain for t in screen.query_one("#log").entries]
            assert not any(line.startswith("The story so far") for line in told), told
            assert told and len(told) == len(set(told)), told  # every set-up line once
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))
