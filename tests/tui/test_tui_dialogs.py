"""Every dialog can be read to its last line: at 80x24 and 120x40, End (or the arrows) reaches it.

The lines looked for are the dialog's own: the last lines of each text it holds and
its last option, found on the emulated terminal inside the dialog's box, so a line
cut off by the box's edge does not count however it is scrolled.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static

from support.tour import SAVES, STOPS, Stop, _on, _play, visit
from support.tui_drive import started, wait_for

from cthulhu.tui.screens.dialogs import ChoiceScreen, GameOverScreen, HelpScreen
from cthulhu.tui.replayapp import ReplayApp
from cthulhu.tui.screens.replay import ReplayScreen
from cthulhu.tui.screens.title import LoadScreen

SIZES = [(80, 24), (120, 40)]


def _replay_won(options: Any, saves: Any) -> Any:
    from cthulhu.tui.replay import Replayer

    return ReplayApp(Replayer.open(SAVES / "example-won-shamblers.save"), name="example-won-shamblers.save", options=options)


async def _replay_summary(pilot: Any) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen) and pilot.app.screen.updates_seen > 0)
    await pilot.press("end")
    await wait_for(pilot, lambda: bool(pilot.app.screen.view.get("outcome")))
    await pilot.press("enter")


async def _long_choices(pilot: Any) -> None:
    """A choice longer than any terminal: the list dialog of 40 options."""
    await started(pilot)
    pilot.app.push_screen(ChoiceScreen("Pick one of many", [f"Option number {n + 1} of the long list" for n in range(40)]))


async def _long_saves(pilot: Any) -> None:
    """The title screen's saves list with more saves than any terminal has rows."""
    from pathlib import Path
    from types import SimpleNamespace

    await pilot.pause()
    header = SimpleNamespace(mode="main", step=12, outcome=None, updated="2026-12-01T12:00:00")
    entries = [SimpleNamespace(path=Path(f"saved-game-{n + 1:02}.save"), save=SimpleNamespace(header=header)) for n in range(40)]
    pilot.app.push_screen(LoadScreen(entries))


async def _shamblers_help(pilot: Any) -> None:
    await started(pilot)
    await pilot.press("question_mark")


async def _over(pilot: Any) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))


DIALOGS = [s for s in STOPS if s.name in ("help", "choices", "quit", "table", "game-over")] + [
    Stop("help-shamblers", _play(mode="shamblers", skip_title=True), _shamblers_help, _on(HelpScreen)),
    Stop("long-choices", _play(skip_title=True), _long_choices, _on(ChoiceScreen)),
    Stop("long-saves", _play(), _long_saves, _on(LoadScreen)),
    Stop("game-over-shamblers", _play(load="example-won-shamblers.save"), _over, _on(GameOverScreen)),
    Stop("replay-summary", _replay_won, _replay_summary, _on(GameOverScreen)),
]


def pieces_of(dialog: Any) -> list[tuple[Any, str]]:
    """What the dialog holds, one (widget, plain string) per text or list in it (in screen order)."""
    out = []
    for widget in dialog.query("*"):
        if isinstance(widget, OptionList) and widget.option_count:
            prompt = widget.get_option_at_index(widget.option_count - 1).prompt
            out.append((widget, prompt.plain if isinstance(prompt, Text) else str(prompt)))
        elif isinstance(widget, Static) and not isinstance(widget, OptionList):
            content = widget.content
            out.append((widget, content.plain if isinstance(content, Text) else str(content)))
    return [(widget, text) for widget, text in out if text.strip()]


def texts_of(dialog: Any) -> list[str]:
    """What the dialog holds, one plain string per text or list in it (in screen order)."""
    return [text for _, text in pieces_of(dialog)]


def scrolled_past(dialog: Any) -> list[tuple[Any, str]]:
    """The texts a scrolling body holds before its last one: End shows the last, not these."""
    pieces = pieces_of(dialog)
    out = []
    for n, (widget, text) in enumerate(pieces):
        body = widget.parent
        if isinstance(body, VerticalScroll) and any(other.parent is body for other, _ in pieces[n + 1:]):
            out.append((widget, text))
    return out


def last_lines(text: str, n: int = 2) -> list[str]:
    """The last `n` non-blank lines, as their last words (a long line wraps: its tail is on the last row)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()][-n:]
    return [" ".join(line.split()[-6:]) for line in lines]


def in_box(capture: Any, region: Any) -> str:
    """The screen inside `region` (a dialog's content region: no border, no padding), one row a line."""
    rows = capture.text().splitlines()
    return "\n".join(row[region.x : region.right] for row in rows[region.y : region.bottom])


def squeezed(text: str) -> str:
    """Without any whitespace: a word cut over two rows (a long path, a token) reads whole again."""
    return "".join(text.split())


async def read_to_the_end(pilot: Any, capture: Any, stop: str, size: tuple[int, int]) -> None:
    """End shows the last line of the dialog's last text; each text a long body holds before it can be
    scrolled to until its own last line is on screen."""
    screen = pilot.app.screen
    dialog = screen.query_one(".dialog")
    before = scrolled_past(dialog)
    await pilot.press("end")

    def missing(texts: list[str]) -> list[str]:
        box = in_box(capture, dialog.content_region)
        return [line for text in texts for line in last_lines(text) if squeezed(line) not in squeezed(box)]

    at_end = [text for widget, text in pieces_of(dialog) if all(widget is not w for w, _ in before)]
    try:  # until the scroll has reached the terminal (a loaded machine draws late), never longer than wait_for's limit
        await wait_for(pilot, lambda: not missing(at_end), tries=200)
    except AssertionError:
        pass  # said below, with the screen
    box = in_box(capture, dialog.content_region)
    assert dialog.region.bottom <= size[1] and dialog.region.right <= size[0], (stop, dialog.region)
    wanted = [line for text in texts_of(dialog) for line in last_lines(text)]
    assert wanted, stop
    assert not missing(at_end), f"{stop} at {size}: {missing(at_end)} not on screen:\n{box}"
    for widget, text in before:  # its last row at the bottom of the body's view
        body = widget.parent
        body.scroll_to(y=max(0, widget.virtual_region.bottom - body.scrollable_content_region.height), animate=False)
        try:
            await wait_for(pilot, lambda text=text: not missing([text]), tries=200)
        except AssertionError:
            pass
        assert not missing([text]), f"{stop} at {size}: {missing([text])} not on screen:\n{in_box(capture, dialog.content_region)}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("stop", DIALOGS, ids=lambda s: s.name)
def test_every_dialog_scrolls_to_its_last_line(stop: Stop, size: tuple[int, int]) -> None:
    async def main() -> None:
        async with visit(stop, size=size) as (pilot, capture):
            await read_to_the_end(pilot, capture, stop.name, size)

    asyncio.run(main())


@pytest.mark.parametrize("mode", ["main", "shamblers"])
def test_help_at_80x24_ends_with_the_win_and_loss_rules(mode: str) -> None:
    """The rules' last paragraphs (how to win and lose, then the legend) are on screen after End."""
    stop = next(s for s in DIALOGS if s.name == ("help" if mode == "main" else "help-shamblers"))

    async def main() -> None:
        async with visit(stop, size=(80, 24)) as (pilot, capture):
            help_screen = pilot.app.screen
            await pilot.press("end")
            await pilot.pause(0.2)
            box = in_box(capture, help_screen.query_one(".dialog").content_region)
            paragraphs = [p for p in help_screen.text.split("\n\n") if p.strip()]
            win_and_loss = next(p for p in paragraphs if p.strip().startswith("Win"))
            for line in [*win_and_loss.splitlines(), *paragraphs[-1].splitlines()]:
                assert " ".join(line.split()) in " ".join(box.split()), f"{line!r} not on screen:\n{box}"

    asyncio.run(main())
