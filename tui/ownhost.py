"""The table this process hosts, as the app's link sees it.

`cthulhu play` and `cthulhu host` run the table's host in a thread beside the app
(`table.thread.ThreadedHost`, seated by `cli.embedded`); the interface knows it only by
this face: it never imports the table's own package.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol


class OwnTable(Protocol):
    """A host in this process: its save, its seat changes (the table dialog), its end."""

    bind: str
    """The address it listens on (what the table dialog says others join)."""
    hosting: bool
    """Others join this table from elsewhere (`cthulhu host`)."""
    doors: tuple[str, ...]
    """How friends come in by `ssh` or a browser (the lines printed)."""
    on_crash: Callable[[str], None] | None
    """Called from the host's thread with the error's first line when its loop raises."""

    @property
    def seed(self) -> int:
        """The game's seed (this terminal's own table: no secret from it)."""
    @property
    def table_id(self) -> str:
        """The table's id (this machine's seat tokens for it are kept by it)."""
    @property
    def saving(self) -> bool:
        """The game is written to a save file (not `--no-save`)."""
    @property
    def save_started(self) -> bool:
        """The save file exists (a new game's from its first move on)."""
    @property
    def save_trouble(self) -> str | None:
        """Why autosaving fails now (None: it works)."""
    @property
    def save_path(self) -> Path | None:
        """The file the game is saved to."""
    @property
    def save_hint(self) -> str | None:
        """How to carry the game on later, when it is being saved."""

    def on_save_trouble(self, call: Callable[[str | None], None]) -> None:
        """`call(reason)` from the host's thread when autosave fails, `call(None)` when it works again."""
    def bot_kinds(self) -> dict[int, str | None]:
        """The kind of every seat a bot plays."""
    async def survives(self) -> bool:
        """Whether the host still runs once it has had a moment to end."""
    async def stop(self) -> None:
        """Close the table, write the final save and let the file go."""
    async def save(self) -> Path:
        """Write the save now; the file written."""
    async def hand_to_bot(self, seat: int) -> None:
        """Let a bot play an away player's seat until they come back."""
    async def start_with_bots(self) -> None:
        """Start now: bots play the seats nobody has taken."""
    async def free_seat(self, seat: int) -> None:
        """Give an away player's seat up for a new joiner."""
