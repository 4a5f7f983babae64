"""The replay viewer: the game screen's panes over a save, with keys to move through its steps.

It is a `GameScreen` fed by a `ReplayLink` instead of a table: nothing to decide,
the Log tells each step taken forward, and the prompt bar says where we are.
Reached from the title screen's `v`, or alone in its app (`tui.replayapp`: `cthulhu replay FILE --tui`).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from rich.text import Text
from textual.binding import Binding

from cthulhu.savegame import luck_of

from ..replay import Replayer, ReplayLink
from .dialogs import GameOverScreen
from .game import GameScreen

PAGE = 10
KEYS_HINT = "left/right step   PgUp/PgDn 10 steps   Home/End first/last   q close"


class ReplayScreen(GameScreen):
    HINTS = False
    WATCHING = "a replay is only watched (left/right step)"
    # The prompt bar lists every stepping key (KEYS_HINT); the footer keeps the two most used.
    BINDINGS = [
        Binding("right", "step(1)", "Step", priority=True),
        Binding("left", "step(-1)", "Back", priority=True),
        Binding("pagedown", f"step({PAGE})", f"+{PAGE}", priority=True, show=False),
        Binding("pageup", f"step(-{PAGE})", f"-{PAGE}", priority=True, show=False),
        Binding("home", "jump(0)", "First", priority=True, show=False),
        Binding("end", "jump(-1)", "Last", priority=True, show=False),
        Binding("escape", "quit_menu", "Close", show=False),
    ]

    link: ReplayLink

    def __init__(self, link: ReplayLink, *, title: str = "", alone: bool = False) -> None:
        super().__init__(link, title=title or f"replay {link.name}".strip())
        self.over_shown = True  # the summary on Enter only, not as soon as the last step shows
        self.alone = alone  # the app's only screen: closing it ends the app

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("save", "choices", "chat", "new_game", "odds"):
            return False
        return super().check_action(action, parameters)

    @property
    def replayer(self) -> Replayer:
        return self.link.replayer

    def action_step(self, delta: int) -> None:
        self.decided(at_once=True)  # each step taken shows its own moments
        self.link.go(self.replayer.step + delta)

    def action_jump(self, where: int) -> None:
        self.decided(at_once=True)
        self.link.go(self.replayer.last if where < 0 else where)

    def redraw(self) -> None:
        refused = self.note
        r = self.replayer
        note = Text()
        note.append(f"Replay: step {r.step} of {r.last}", style="bold")
        note.append(f"   {r.describe()}")
        note.append(f"\n{KEYS_HINT}", style="dim")
        if refused is not None:
            note.append("\n")
            note.append_text(refused)
        self.note = note
        super().redraw()
        self.note = refused

    def action_summary(self) -> None:
        if not self.view.get("outcome"):
            return

        async def decided(what: str | None) -> None:
            if what in ("quit", "new"):
                await self.action_quit_menu()

        save, step = self.replayer.save, self.replayer.step
        luck = partial(luck_of, save, self.replayer.content, upto=step, allow_other_content=self.replayer.allow_other_content)
        self.app.push_screen(GameOverScreen(self.view, self.link.play_again(), luck=luck), decided)

    async def action_quit_menu(self) -> None:  # type: ignore[override]  # Textual runs sync and async actions alike; closing awaits the link
        """Close the viewer: back to the title screen, or out of a viewer-only app."""
        await self.link.close()
        if self.alone:
            self.app.exit()
        else:
            self.app.pop_screen()


def open_replay(path: str | Path, *, step: int = 0, allow_other_content: bool = False) -> ReplayScreen:
    """A viewer screen on the save at `path` (raises the saves module's errors)."""
    replayer = Replayer.open(path, allow_other_content=allow_other_content, step=step)
    return ReplayScreen(ReplayLink(replayer, name=Path(path).name))
