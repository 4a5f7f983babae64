"""A save's luck report: its steps replayed through the rules, every event shown to the mode's keeper.

Only the save is read (its setup, seed and command log, every hash checked on the way), so any
copy of a game gives the same report: `cthulhu replay FILE --stats`, the replay viewer's
game-over dialog.
"""

from __future__ import annotations

from typing import Any

from cthulhu.core.luck import LuckReport, keeper, seats_of

from .file import SaveFile
from .replay import steps_told


def luck_of(save: SaveFile, content: Any = None, *, upto: int | None = None, allow_other_content: bool = False) -> LuckReport | None:
    """The luck report of the game up to step `upto` (default: the last); None for a mode that keeps none."""
    keep = None
    game = None
    for step, (game, events) in enumerate(steps_told(save, content, upto=upto, allow_other_content=allow_other_content)):
        if keep is None:
            keep = keeper(game)  # shown the setup's own events
            if keep is None:
                return None
        else:
            keep.see(step, events)
    assert keep is not None and game is not None  # steps_told always yields the setup
    return seats_of(keep.report(), game)
