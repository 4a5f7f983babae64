"""`cthulhu replay FILE --tui`: an app whose only screen is the replay viewer.

Apart from the viewer (`tui.screens.replay`), which the title screen opens too: an app imports its
screens, a screen never its app.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events

from .app import CthulhuApp, run_app
from .options import PlayOptions
from .replay import Replayer, ReplayLink
from .screens.replay import ReplayScreen


class ReplayApp(CthulhuApp):
    """The viewer alone: no title screen, no game; closing the viewer ends the app."""

    def __init__(self, replayer: Replayer, *, name: str = "", options: PlayOptions | None = None, link: ReplayLink | None = None) -> None:
        super().__init__(options or PlayOptions())
        self.replayer = replayer
        self.replay_name = name
        self.replay_link = link or ReplayLink(replayer, name=name)  # a recording's hides an unfinished game's seed (`tui.record`)

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # not the title screen nor a game
        self.use_theme(self.options.theme)
        self.push_screen(ReplayScreen(self.replay_link, alone=True))
        self.check_size()


def run_replay(save: Any, path: str | Path, *, step: int = 0, allow_other_content: bool = False, options: PlayOptions | None = None) -> int:
    replayer = Replayer(save, allow_other_content=allow_other_content, step=step)
    run_app(ReplayApp(replayer, name=Path(path).name, options=options))
    return 0
