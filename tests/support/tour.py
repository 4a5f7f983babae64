"""A tour of every screen, dialog and notice of the app, for tests that must look at all of them.

Each `STOPS` entry starts a fresh app (real links: the embedded host on a loopback
port, a real example save) and drives it with Pilot to one place, then hands over
to the test: `async with visit(stop, ...) as (pilot, capture)`. Screens are
reached the way a player reaches them (keys), except the table dialog of a hosted
game, which is opened on the solo table's own link.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.color import ColorSystem

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import ChoiceScreen, GameOverScreen, HelpScreen, QuitScreen, TooSmallScreen
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.lobby import LobbyScreen
from cthulhu.tui.replayapp import ReplayApp
from cthulhu.tui.screens.replay import ReplayScreen
from cthulhu.tui.screens.title import LoadScreen, TitleScreen

from support.terminal_capture import Capture
from support.tui_drive import SEED, started, wait_for

SAVES = Path(__file__).resolve().parents[2] / "saves"


@dataclass(frozen=True)
class Stop:
    name: str
    app: Callable[[PlayOptions, Path], CthulhuApp]  # (options, a saves folder) -> the app
    reach: Callable[[Any], Awaitable[None]]  # drives the pilot there
    is_there: Callable[[CthulhuApp], bool]


def _play(load: str | None = None, **changes: Any) -> Callable[[PlayOptions, Path], CthulhuApp]:
    def make(options: PlayOptions, saves: Path) -> CthulhuApp:
        options = options.with_(seed=SEED, saves_dir=saves, load=saves / load if load else None, **changes)
        return CthulhuApp(options, link_factory=table_link)

    return make


def _embedded(options: PlayOptions, saves: Path) -> CthulhuApp:
    return CthulhuApp(options.with_(seed=SEED, saves_dir=saves, skip_title=True), link_factory=table_link)


def _replay(options: PlayOptions, saves: Path) -> CthulhuApp:
    from cthulhu.tui.replay import Replayer

    return ReplayApp(Replayer.open(saves / "example-midgame-main.save", step=12), name="example-midgame-main.save", options=options)


async def _nothing(pilot: Any) -> None:
    await pilot.pause()


async def _game(pilot: Any) -> None:
    await started(pilot)


async def _keys(pilot: Any, *keys: str) -> None:
    await started(pilot)
    await pilot.press(*keys)


async def _notice(pilot: Any) -> None:
    await started(pilot)
    pilot.app.notify("The table is saved after every move.", title="Saved")
    pilot.app.notify("The save folder is read-only: playing on without saves.", severity="warning")
    await pilot.pause(0.2)


async def _lobby(pilot: Any) -> None:
    screen = await started(pilot)
    pilot.app.push_screen(LobbyScreen(screen.link))


async def _load(pilot: Any) -> None:
    await pilot.pause()
    await pilot.press("l")


async def _palette(pilot: Any) -> None:
    await started(pilot)
    await pilot.press("ctrl+p")


async def _over(pilot: Any) -> None:
    """The game-over dialog once this seat has checked every roll (it says so when it is done)."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen) and (pilot.app.screen.dice or "").startswith("Dice: every roll"))


async def _replay_steps(pilot: Any) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen) and pilot.app.screen.updates_seen > 0)
    await pilot.press("right", "right")


def _on(kind: type) -> Callable[[CthulhuApp], bool]:
    return lambda app: isinstance(app.screen, kind)


def _game_with(predicate: Callable[[GameScreen], bool]) -> Callable[[CthulhuApp], bool]:
    return lambda app: isinstance(app.screen, GameScreen) and app.screen.updates_seen > 0 and predicate(app.screen)


STOPS = [
    Stop("title", _play(), _nothing, _on(TitleScreen)),
    Stop("load", _play(), _load, _on(LoadScreen)),
    Stop("game", _embedded, _game, _game_with(lambda s: True)),
    Stop("shamblers", _play(mode="shamblers", skip_title=True), _game, _game_with(lambda s: s.view["mode"] == "shamblers")),
    Stop("help", _play(skip_title=True), lambda p: _keys(p, "question_mark"), _on(HelpScreen)),
    Stop("choices", _play(skip_title=True), lambda p: _keys(p, "o"), _on(ChoiceScreen)),
    Stop("quit", _play(skip_title=True), lambda p: _keys(p, "q"), _on(QuitScreen)),
    Stop("notice", _play(skip_title=True), _notice, lambda app: bool(app.screen.query("Toast"))),
    Stop("palette", _play(skip_title=True), _palette, lambda app: type(app.screen).__name__ == "CommandPalette"),
    Stop("table", _embedded, _lobby, _on(LobbyScreen)),
    Stop("game-over", _play(load="example-won-main.save"), _over, _on(GameOverScreen)),
    Stop("replay", _replay, _replay_steps, _game_with(lambda s: s.replayer.step == 14)),
]

# The main game on a table in this process (no port number in the Log): for pictures that must not change.
LOCAL_GAME = Stop("main-game", _play(skip_title=True), _game, _game_with(lambda s: s.view["mode"] == "main"))


@contextlib.asynccontextmanager
async def visit(
    stop: Stop,
    *,
    size: tuple[int, int] = (80, 24),
    options: PlayOptions | None = None,
    color_system: ColorSystem = ColorSystem.TRUECOLOR,
    reference: bool = False,
) -> AsyncIterator[tuple[Any, Capture]]:
    """The app at `stop`, its output captured; the saves folder is a fresh temporary one."""
    saves = Path(tempfile.mkdtemp(prefix="cthulhu-tour-"))
    for name in ("example-won-main.save", "example-midgame-main.save", "example-won-shamblers.save"):
        shutil.copy(SAVES / name, saves / name)
    app = stop.app(options or PlayOptions(), saves)
    capture = Capture(app, color_system, reference=reference)
    try:
        async with app.run_test(size=size, notifications=True) as pilot:
            await stop.reach(pilot)
            await wait_for(pilot, lambda: stop.is_there(app))
            await pilot.pause(0.1)
            yield pilot, capture
            await pilot.press("ctrl+q")
    finally:
        shutil.rmtree(saves, ignore_errors=True)


__all__ = ["LOCAL_GAME", "STOPS", "Stop", "TooSmallScreen", "visit"]
