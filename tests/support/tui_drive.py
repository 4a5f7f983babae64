"""Helpers for Pilot tests: press the key of an option by its label, wait for the table to answer.

Pilot tests are plain functions that call `asyncio.run` (Textual needs asyncio; the
suite's network tests are trio-marked one by one, so the two never mix).
"""

from __future__ import annotations

from typing import Any

from cthulhu.tui.link import Earlier, Moved, Noticed, Opened, Update
from cthulhu.tui.screens.game import GameScreen


def _first_seed_where_the_first_investigator_starts() -> int:
    from cthulhu.core import Game, Setup

    return next(seed for seed in range(1, 100) if Game.new(Setup(seed=seed)).view(None)["active"] == 0)


SEED = _first_seed_where_the_first_investigator_starts()  # Ada, at the Yard Gate, 3 spaces from a Cultist


def screen_text(app: Any) -> str:
    """What the terminal shows, as plain text (from an SVG screenshot)."""
    import html
    import re

    svg = app.export_screenshot()
    texts = re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)
    return html.unescape(" ".join(texts)).replace("\xa0", " ")


def table_of(game: Any, **spec: Any) -> Any:
    """The link factory of a table around a game already set up (scripted dice, a game under way):
    `open_table` with the game as its start (and `spec`'s other fields), its host in this process,
    every person's seat here."""
    from cthulhu.table import TableSpec, open_table
    from cthulhu.cli.embedded import embedded_link

    async def factory(options: Any) -> Any:
        return await embedded_link(options, open_table(TableSpec(start=game, **spec)))

    return factory


async def wait_for(pilot: Any, predicate, tries: int = 500) -> None:
    """Until `predicate()` holds, `tries` looks at most. Often at first, then every 0.1 s: a predicate
    may render the whole screen (`screen_text`), and a hundred renders a second cost more CPU than
    the app under test."""
    delay = 0.01
    for _ in range(tries):
        if predicate():
            return
        await pilot.pause(delay)
        delay = min(delay * 1.5, 0.1)
    raise AssertionError("the app never reached the expected state")


async def started(pilot: Any) -> GameScreen:
    """Wait until the game screen shows its first view."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, GameScreen) and pilot.app.screen.updates_seen > 0)
    return pilot.app.screen


async def first_move_then_quit(pilot: Any, screen: GameScreen) -> None:
    """Take the first option (a game is saved from its first command on), wait for it, quit with ctrl+q.

    Not before this terminal can choose: at a hot-seat table the first frame can come before the
    second local seat has sat down ("Waiting for players"), and a key then picks nothing."""
    from cthulhu.tui.widgets.prompt_bar import PromptBar

    bar = screen.query_one(PromptBar)
    await wait_for(pilot, lambda: bar.local and bool(bar.options) and not screen.link_status)
    await pilot.press("1")
    await wait_for(pilot, lambda: screen.view.get("step", 0) >= 1)
    await pilot.press("ctrl+q")


def options(screen: GameScreen) -> list[str]:
    return [str(o.get("label")) for o in screen.query_one("#prompt").options]


async def press_option(pilot: Any, screen: GameScreen, index: int) -> None:
    """Press the key shown for option `index` (keys stay put within a decision sequence) and wait for the table."""
    seen = screen.updates_seen
    await pilot.press(screen.query_one("#prompt").keys[index])
    await wait_for(pilot, lambda: screen.updates_seen > seen)


async def choose(pilot: Any, screen: GameScreen, label_start: str) -> None:
    labels = options(screen)
    matches = [n for n, label in enumerate(labels) if label.startswith(label_start)]
    assert matches, f"no option starting {label_start!r} in {labels}"
    await press_option(pilot, screen, matches[0])


def notices(opened: Opened) -> str:
    """The lines a link's first news tells of the link itself (joined, watching, the way back)."""
    return " ".join(n.text for n in opened.news if isinstance(n, Noticed))


def told_events(update: Update) -> list[dict[str, Any]]:
    """The events a piece of news tells (a first news: all of those in it), the story so far first."""
    if isinstance(update, Opened):
        return [e for n in update.news for e in told_events(n)]
    return list(update.events) if isinstance(update, (Earlier, Moved)) else []
