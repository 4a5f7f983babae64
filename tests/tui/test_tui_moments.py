"""The big moments stay on screen until the next decision (issue 22): after "End actions" the Mythos
card (and the Elder One, and a Stage) each get their own lines on the moment card, at every size;
in Shamblers the Wheel's turn does."""

from __future__ import annotations

import asyncio

import pytest
from rich.console import Console

from support.terminal_capture import Capture
from support.tui_drive import SEED, choose, options, press_option, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.modes import Beat
from cthulhu.tui.moments import Moments, render_moments
from cthulhu.tui.options import PlayOptions

SIZES = [(80, 24), (120, 40)]


def on_the_card(capture: Capture, screen, words: str) -> bool:
    """`words` drawn inside the moment card's rows of the emulated terminal."""
    card = screen.query_one("#moments")
    if not card.display or not card.region.height:
        return False
    rows = capture.text().splitlines()[card.region.y : card.region.bottom]
    return " ".join(words.split()) in " ".join(" ".join(rows).split())


def deciding(screen) -> bool:
    prompt = screen.view.get("prompt")
    return bool(prompt) and prompt["seat"] in screen.link.local_seats and not screen.pending


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_mythos_card_is_on_screen_when_the_next_decision_comes(size):
    async def main() -> None:
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True), link_factory=table_link)
        capture = Capture(app)
        async with app.run_test(size=size) as pilot:
            screen = await started(pilot)
            await choose(pilot, screen, "End actions")
            await wait_for(pilot, lambda: deciding(screen))
            await pilot.pause(0.1)
            told = [t.plain for t in screen.query_one("#log").entries]
            card, printed = next(line for line in told if line.startswith("Mythos card for ")).split(": ", 1)[1].split(". ", 1)
            card = card.removesuffix(" (it bears a summoning symbol)")
            assert on_the_card(capture, screen, f"Mythos card: {card}"), capture.text()
            assert on_the_card(capture, screen, printed[:24])  # what it says, then what it did
            card_region = screen.query_one("#moments").region
            if size == (80, 24):  # the card stands in the Log strip's place; the side pane's foot stays in sight
                assert not screen.query_one("#strip").display
                side = screen.query_one(f"#{screen.side}")
                assert card_region.y >= side.region.bottom and "tab: " in capture.text().splitlines()[side.region.bottom - 1]
            assert card_region.bottom <= screen.query_one("#prompt").region.y
            await press_option(pilot, screen, 0)  # the next decision: the card gives way
            await pilot.pause(0.1)
            assert printed[:24] not in " ".join(screen.query_one("#moments").text.split())
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_wheel_of_shamblers_is_on_screen_when_the_next_turn_asks(size):
    async def main() -> None:
        app = CthulhuApp(PlayOptions(seed=SEED, mode="shamblers", skip_title=True), link_factory=table_link)
        capture = Capture(app)
        async with app.run_test(size=size) as pilot:
            screen = await started(pilot)
            turn = screen.view["turn"]
            while screen.view["turn"] == turn and not screen.view.get("outcome"):
                labels = options(screen)
                end = [n for n, label in enumerate(labels) if "end" in label.lower()]
                await press_option(pilot, screen, end[0] if end else 0)
            await wait_for(pilot, lambda: deciding(screen))
            await pilot.pause(0.1)
            told = [t.plain for t in screen.query_one("#log").entries]
            wheel = next(line for line in reversed(told) if line.startswith("The Wheel turns to "))
            assert on_the_card(capture, screen, wheel.rstrip(".")), capture.text()
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_moments_follow_their_cards_and_fit_their_lines():
    moments = Moments()
    moments.take(Beat("begin", "mythos:A", "Mythos card: A", "It says this.", quote=True))
    moments.take(Beat("add", "", "", "A Cultist arrives at the Gate."))
    moments.take(Beat("end"))
    assert not moments.take(Beat("add", "", "", "told in the Log only"))  # no card open: not a moment's
    moments.take(Beat("begin", "elder", "Hastur advances: space 3 of 8", "3 symbols moved it."))
    moments.clear()
    assert not moments.items
    # After a decision, a card still at work comes back on the card under its own title.
    assert moments.take(Beat("add", "mythos:A", "Mythos card: A", "Ada loses 1 sanity."))
    assert [(m.title, m.lines) for m in moments.items] == [("Mythos card: A", [("Ada loses 1 sanity.", False)])]
    for n in range(3):
        moments.take(Beat("begin", f"k{n}", f"Moment {n}", "word " * 40))
    text = render_moments(moments.items, Console(width=40), 40, 5).plain.splitlines()
    assert len(text) == 5 and all(len(line) <= 40 for line in text)
    assert [line.split(":")[0] for line in text if line.startswith(("Mythos", "Moment"))] == ["Mythos card", "Moment 0", "Moment 1", "Moment 2"]
    assert text[-1].endswith("…")
