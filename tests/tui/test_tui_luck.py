"""The game-over dialog tells the luck report: at a live table once this seat has checked every
roll, and in the replay viewer from the save; the same sentences `cthulhu replay --stats` prints."""

from __future__ import annotations

import asyncio
from typing import Any

from support.tour import SAVES, STOPS, Stop, _on, visit
from support.tui_drive import wait_for

from cthulhu.core.luck import LuckReport
from cthulhu.savegame import load, luck_of
from cthulhu.tui.screens.dialogs import GameOverScreen
from cthulhu.tui.replayapp import ReplayApp
from cthulhu.tui.screens.replay import ReplayScreen


def luck_shown(app: Any) -> list[str]:
    """The dialog's luck lines as the app drew them (its Static's text), after the heading, blank lines left out."""
    screen = app.screen
    if not isinstance(screen, GameOverScreen):
        return []
    text = screen.query_one("#luck").render()
    lines = [line for line in str(getattr(text, "plain", text)).strip().splitlines() if line]
    return lines[1:] if lines and lines[0] == "How the dice fell" else []


def told(report: LuckReport) -> list[str]:
    """What the dialog should say: each person's name and seat, then their sentences; then the table's."""
    out = []
    for p in report.people:
        out += [f"{p.name} (seat {p.seat + 1})", *p.lines()]
    return out + report.table


def test_a_live_game_over_dialog_tells_the_luck_report_of_its_own_dice_check():
    stop = next(s for s in STOPS if s.name == "game-over")  # solo play of a won save, through the embedded host
    want = told(luck_of(load(SAVES / "example-won-main.save")))

    async def main() -> None:
        async with visit(stop, size=(120, 40)) as (pilot, _):
            await wait_for(pilot, lambda: bool(luck_shown(pilot.app)))
            assert luck_shown(pilot.app) == want
            assert pilot.app.screen.link.dice.verified  # the report came with this seat's own check of every roll
            await pilot.press("end")
            await wait_for(pilot, lambda: "Stages of the Elder One defeated: 3." in pilot.app.screen.query_one("#luck").render().plain)

    asyncio.run(asyncio.wait_for(main(), 120))


def _replay_won(options: Any, saves: Any) -> Any:
    from cthulhu.tui.replay import Replayer

    return ReplayApp(Replayer.open(saves / "example-won-shamblers.save"), name="example-won-shamblers.save", options=options)


async def _replay_summary(pilot: Any) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen) and pilot.app.screen.updates_seen > 0)
    await pilot.press("end")
    await wait_for(pilot, lambda: bool(pilot.app.screen.view.get("outcome")))
    await pilot.press("enter")


def test_the_replay_viewer_s_game_over_dialog_tells_the_save_s_luck_report():
    want = told(luck_of(load(SAVES / "example-won-shamblers.save")))

    async def main() -> None:
        async with visit(Stop("replay-summary", _replay_won, _replay_summary, _on(GameOverScreen)), size=(80, 24)) as (pilot, _):
            await wait_for(pilot, lambda: bool(luck_shown(pilot.app)))
            assert luck_shown(pilot.app) == want
            assert any("Banishes: 7 tried, 7 won, 0 failed." in line for line in want)

    asyncio.run(asyncio.wait_for(main(), 120))
