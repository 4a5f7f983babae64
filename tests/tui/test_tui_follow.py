"""A newcomer can follow the story (issue 14): at 80x24, 100x30 and 120x40 the latest event is in sight,
every pane is reached, scrolled and zoomed by keys alone, rolls say whose they are, the first decisions
of each kind come with a hint, and bot moves come at a pace people can follow."""

from __future__ import annotations

import asyncio
import re

import pytest
import trio
from support.helpers import new_game, rearrange
from support.helpers import mythos_id
from support.tui_drive import choose, started, table_of, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.table import Host
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.panes import PANES

SIZES = [(80, 24), (100, 30), (120, 40)]


def screen_rows(app) -> list[str]:
    """The terminal's rows as text, rebuilt from an SVG screenshot (cells placed by their x position)."""
    import html

    svg = app.export_screenshot()
    width = float(re.search(r'<svg[^>]*viewBox="0 0 ([\d.]+)', svg).group(1))
    cell = width / app.size.width
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text[^>]*x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg, flags=re.S):
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), html.unescape(m.group(3)).replace("\xa0", " ")))
    out = []
    for y in sorted(rows):
        line = ""
        for x, text in sorted(rows[y]):
            line = line.ljust(int(round(x / cell))) + text
        out.append(line)
    return out


def summon_and_attack_game():
    """Ada at the blue gate; the next Mythos card sends a Disciple of the Sign through it, which attacks her at once."""
    game = new_game("ada_whitlock", "mina_castellane", episode="wexley_mill", elder_one="hastur")
    rearrange(game, at={0: "coal_cellar", 1: "yard_gate"}, figures=[], fire={})
    game.state.mythos_deck[:] = [mythos_id(game, "A Song From Nowhere")]
    return game


@pytest.mark.parametrize("size", SIZES)
def test_the_latest_event_is_in_sight_after_a_mythos_summon_and_attack(size):
    game = summon_and_attack_game()

    async def main():
        app = CthulhuApp(PlayOptions(skip_title=True), link_factory=table_of(game))
        async with app.run_test(size=size) as pilot:
            screen = await started(pilot)
            await choose(pilot, screen, "End actions")
            await wait_for(pilot, lambda: screen.view["prompt"] is not None and screen.view["prompt"]["kind"] == "reroll")
            await pilot.pause(0.1)
            log = screen.query_one("#log")
            told = [t.plain for t in log.entries]
            assert any(t.startswith("A Disciple of the Sign arrives at Coal Cellar through the blue gate") for t in told), told
            latest = told[-1]
            assert latest.startswith("The Disciple of the Sign rolls 2 dice against Ada Whitlock"), latest
            rows = screen_rows(app)
            flat = " ".join(" ".join(rows).split())
            # The latest sentence's last line is on screen: in the strip under the map, or in the Log pane.
            strip = screen.query_one("#strip")
            card = screen.query_one("#moments")
            if strip.display:
                assert size[0] < 110 and screen.query_one("#log").display is False
                shown = strip.text.split("\n")
            elif card.display and not log.display:  # the moment card in the strip's place: the newest line is its last
                assert size[0] < 110
                shown = card.text.split("\n")
            else:
                assert log.display and log.scroll_y == log.max_scroll_y  # following the newest line
                shown = ["".join(seg.text for seg in line) for line in log.lines]
            last = shown[-1].strip()
            assert last and " ".join(latest.split()).endswith(" ".join(last.split())), (last, latest)
            assert any(last in row for row in rows), (last, rows)
            # The dice line says whose roll it is and what its successes do, beside the dice.
            assert "The Disciple of the Sign attacks Ada Whitlock: each success is a wound to Ada Whitlock" in flat
            assert "keep the dice" in flat
            await pilot.press("ctrl+q")

    asyncio.run(main())


def played_app(size):
    """A game some steps in (the Log holds more than a pane's height), at `size`."""
    return CthulhuApp(PlayOptions(seed=3, skip_title=True, bots=1, bot_kind="random", bot_delay=0), link_factory=table_link)


@pytest.mark.parametrize("size", SIZES)
def test_every_pane_is_reached_scrolled_and_zoomed_by_keys(size):
    async def main():
        app = played_app(size)
        async with app.run_test(size=size) as pilot:
            screen = await started(pilot)
            for _ in range(60):  # fill the Log: take the first choice, the bot plays its own turns
                if len(screen.query_one("#log").entries) > 60 or screen.view.get("outcome"):
                    break
                bar = screen.query_one("#prompt")
                if not bar.options:
                    await pilot.pause(0.02)
                    continue
                seen = screen.updates_seen
                await pilot.press(bar.keys[-1] if bar.options[-1]["command"]["kind"] == "end_actions" else bar.keys[0])
                await wait_for(pilot, lambda: screen.updates_seen > seen)
            assert screen.focused is screen.query_one("#map")
            scrolled = []
            for name in PANES:
                for _ in range(len(PANES)):
                    if screen.focused is screen.query_one(f"#{name}"):
                        break
                    await pilot.press("tab")
                pane = screen.query_one(f"#{name}")
                assert screen.focused is pane, name
                await pilot.pause(0.05)
                assert pane.display and pane.region.width > 10 and pane.region.height > 3, (name, pane.region)
                if pane.max_scroll_y > 0:
                    await pilot.press("home")
                    await pilot.pause(0.05)
                    assert pane.scroll_y == 0
                    await pilot.press("pagedown")
                    await pilot.pause(0.05)
                    assert pane.scroll_y > 0, name
                    await pilot.press("end")
                    await pilot.pause(0.05)
                    assert pane.scroll_y == pane.max_scroll_y, name
                    await pilot.press("up")
                    await pilot.pause(0.05)
                    assert pane.scroll_y == pane.max_scroll_y - 1, name
                    scrolled.append(name)
                before = pane.region.height
                await pilot.press("z")  # zoom: the pane takes the screen, the prompt bar stays
                await pilot.pause(0.05)
                assert screen.maximized is pane and pane.region.height > before, name
                assert screen.query_one("#prompt").region.height > 0
                await pilot.press("z")
                await pilot.pause(0.05)
                assert screen.maximized is None and pane.region.height == before, name
            assert "log" in scrolled and "story" in scrolled  # long panes at every size
            if size == (80, 24):
                assert set(scrolled) == set(PANES)
            await pilot.press("shift+tab")  # back from the Log to the Story Board
            await pilot.pause(0.05)
            assert screen.focused is screen.query_one("#story")
            await pilot.press("l")  # the whole Log, one key away
            await pilot.pause(0.05)
            assert screen.maximized is screen.query_one("#log")
            await pilot.press("l")
            await pilot.pause(0.05)
            assert screen.maximized is None
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_the_footer_shows_the_pane_keys():
    async def main():
        app = played_app((80, 24))
        async with app.run_test(size=(80, 24)) as pilot:
            await started(pilot)
            await wait_for(pilot, lambda: "Quit" in screen_rows(app)[-1])  # the footer fills in after the first frame
            footer = screen_rows(app)[-1]
            for key, what in (("tab", "Pane"), ("z", "Zoom"), ("l", "Log")):
                assert re.search(rf"\b{key}\s+{what}\b", footer), footer
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_hints_come_once_for_each_kind_of_decision_and_can_be_turned_off():
    async def main(hints: bool):
        app = CthulhuApp(PlayOptions(seed=3, skip_title=True, hints=hints), link_factory=table_link)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await started(pilot)
            hint = screen.hints
            first = hint.text
            await choose(pilot, screen, "Run")
            on_run = hint.text
            await choose(pilot, screen, "Stop") if any(o["command"]["kind"] == "stop" for o in screen.view["prompt"]["options"]) else None
            await choose(pilot, screen, "Move to")
            await choose(pilot, screen, "Stop")
            again = hint.text  # the second action prompt: no hint this time
            await pilot.press("ctrl+q")
            return first, on_run, again

    first, on_run, again = asyncio.run(main(True))
    assert first.startswith("Hint: Your turn: 3 actions")
    assert on_run.startswith("Hint: Run: one space at a time")
    assert again == ""
    assert asyncio.run(main(False)) == ("", "", "")


def test_bot_moves_come_at_the_set_pace(monkeypatch):
    """Each bot move waits `bot_delay` first (counted, not timed: tests never read the clock)."""
    waits: list[float] = []

    async def counted(self):
        waits.append(self.spec.bot_delay)
        await trio.sleep(0)

    monkeypatch.setattr(Host, "bot_pause", counted)

    async def main():
        app = CthulhuApp(PlayOptions(seed=3, skip_title=True, bots=1, bot_delay=0.5), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            for _ in range(300):  # our decisions: the first option (End actions when there is one); the bot plays its own
                log = "\n".join(screen.query_one("#log").lines_plain)
                if "Mina Castellane takes the turn." in log and screen.view.get("active") == 0 or screen.view.get("outcome"):
                    break
                bar = screen.query_one("#prompt")
                if not bar.local:  # the bot's move comes from the host
                    await wait_for(pilot, lambda: bar.local or bool(screen.view.get("outcome")))
                    continue
                ends = [n for n, o in enumerate(bar.options) if o["command"]["kind"] == "end_actions"]
                seen = screen.updates_seen
                await pilot.press(bar.keys[ends[0] if ends else 0])
                await wait_for(pilot, lambda: screen.updates_seen > seen)
            await pilot.press("ctrl+q")
            return log

    log = asyncio.run(main())
    assert waits and all(w == 0.5 for w in waits)
    assert "Mina Castellane takes the turn." in log  # every bot move is its own update, told in the Log


def test_the_investigators_pane_shows_whose_turn_it_is_first():
    """At 80x24 the pane has room for about one investigator: when the turn passes to Mina, her entry
    (marked `>`, in full) comes first and Ada's follows it, so nothing has to be scrolled to find her."""
    game = new_game("ada_whitlock", "mina_castellane", episode="wexley_mill", elder_one="hastur")

    async def main():
        app = CthulhuApp(PlayOptions(skip_title=True), link_factory=table_of(game))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            pane = screen.query_one("#investigators")

            def entries() -> list[str]:
                return [strip.text for strip in pane.lines if strip.text[:1] in (">", " ") and strip.text[1:2].isalpha()]

            assert entries()[0].startswith(">A Ada Whitlock") and entries()[1].startswith(" M Mina Castellane")
            for _ in range(40):  # Ada ends her actions; the first choice for the rest of her turn
                prompt = screen.view["prompt"]
                if prompt is not None and prompt["kind"] == "action" and prompt["actor"] == 1:
                    break
                bar = screen.query_one("#prompt")
                seen = screen.updates_seen
                end = next((k for k, o in zip(bar.keys, bar.options) if o["command"]["kind"] == "end_actions"), None)
                await pilot.press(end or bar.keys[0])
                await wait_for(pilot, lambda: screen.updates_seen > seen)
            assert screen.view["prompt"]["actor"] == 1
            await pilot.pause(0.1)
            assert entries()[0].startswith(">M Mina Castellane") and entries()[1].startswith(" A Ada Whitlock")
            first = next(y for y, strip in enumerate(pane.lines) if strip.text.startswith(">"))
            assert pane.scroll_y <= first < pane.scroll_y + pane.scrollable_content_region.height
            await pilot.press("ctrl+q")

    asyncio.run(main())
