"""What an update redraws (issue 28): only the panes whose text changed, and the footer's keys shown and
hidden rather than rebuilt, the screen always as a fresh drawing would leave it. Renders are counted,
never timed."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from textual.widgets._footer import FooterKey
from support.tui_drive import SEED, options, press_option, started

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.widgets.footer import FittedFooter
from cthulhu.tui.widgets.panes import ViewPane

from support.terminal_capture import Capture

PANES = ("map", "story", "investigators")


def count_renders(widget: Any, counts: Counter[str], name: str) -> None:
    """Count the lines Textual asks `widget` to render (it asks only for lines marked dirty or never drawn)."""
    render_line = widget.render_line

    def counted(y: int) -> Any:
        counts[name] += 1
        return render_line(y)

    widget.render_line = counted


def shown_rows(capture: Capture, widget: Any) -> list[str]:
    """The text of `widget`'s content region as the emulated terminal shows it."""
    region = widget.content_region
    rows = capture.ours.screen.display
    return [rows[y][region.x : region.x + widget.text_width] for y in range(region.y, region.y + region.height)]


def pane_rows(pane: ViewPane) -> list[str]:
    """What the pane's lines say at its scroll position, cropped to its text width."""
    width, top = pane.text_width, pane.scroll_offset.y
    lines = [strip.text for strip in pane.lines[top : top + pane.content_region.height]]
    lines += [""] * (pane.content_region.height - len(lines))
    return [line[:width].ljust(width) for line in lines]


def play(test: Callable[[Any, GameScreen, Capture], Awaitable[None]]) -> None:
    """Run `test(pilot, screen, capture)` on a solo game at 120x40, its frames captured as a terminal gets them."""

    async def main() -> None:
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, hints=False), link_factory=table_link)
        capture = Capture(app)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await pilot.pause(0.2)
            await test(pilot, screen, capture)

    asyncio.run(main())


def test_an_update_redraws_the_panes_it_changed_and_no_other():
    async def test(pilot: Any, screen: GameScreen, capture: Capture) -> None:
        panes = {name: screen.query_one(f"#{name}", ViewPane) for name in PANES}
        counts: Counter[str] = Counter()
        for name, pane in panes.items():
            count_renders(pane, counts, name)
        changed_seen = unchanged_seen = 0
        for _ in range(14):
            if screen.view.get("outcome") or not options(screen):
                break
            before = {name: (pane.text(), pane.size) for name, pane in panes.items()}
            counts.clear()
            labels = options(screen)
            end = [n for n, label in enumerate(labels) if label.startswith("End actions")]
            await press_option(pilot, screen, end[0] if end else 0)
            await pilot.pause(0.15)
            for name, pane in panes.items():
                assert shown_rows(capture, pane) == pane_rows(pane), name  # the screen shows the pane's new state
                if (pane.text(), pane.size) == before[name]:
                    assert counts[name] == 0, f"{name} did not change but was rendered again"
                    unchanged_seen += 1
                elif pane.text() != before[name][0]:
                    assert counts[name] > 0, name
                    changed_seen += 1
        assert changed_seen and unchanged_seen  # both cases were met

    play(test)


def test_footer_keys_come_and_go_without_a_rebuild_and_look_as_a_rebuilt_footer():
    async def test(pilot: Any, screen: GameScreen, capture: Capture) -> None:
        footer = screen.query_one(FittedFooter)

        def undo_shown() -> bool:
            return any(k.action == "undo" and k.display for k in footer.query(FooterKey))

        states, rebuilds = [undo_shown()], None
        for _ in range(16):
            if screen.view.get("outcome") or not options(screen):
                break
            await press_option(pilot, screen, 0)
            await pilot.pause(0.1)
            states.append(undo_shown())
            assert ("u Undo" in capture.text().splitlines()[-1]) == states[-1]
            if states[-1] and rebuilds is None:
                rebuilds = footer.rebuilds  # Undo's widget exists from here on
        changes = sum(a != b for a, b in zip(states, states[1:]))
        assert rebuilds is not None and changes >= 3, states
        assert footer.rebuilds == rebuilds  # shown and hidden, never rebuilt

        drawn = capture.ours.cells()[-1]
        footer._kept = []  # forget the hidden keys: a footer of fresh widgets, as Textual builds one
        footer.call_later(footer.recompose)  # (in the footer's own context, as Textual recomposes)
        await pilot.pause(0.2)
        assert footer.rebuilds == rebuilds + 1
        assert capture.ours.cells()[-1] == drawn

    play(test)
