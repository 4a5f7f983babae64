"""A saved game to move through step by step, as a `TableLink` the game screen can show.

One step forward applies the recorded command to the game at hand (so its events
can be told in the Log); any other move seeks from the nearest snapshot with
`cthulhu.savegame.seek`. Every state reached is checked against the recorded
hash, so the viewer never shows a state the save does not vouch for.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cthulhu.core import Command, Game
from cthulhu.net import DiceVerdict

if TYPE_CHECKING:
    from cthulhu.savegame import SaveFile

from .link import Moved, Noticed, Opened, QueuedUpdates, Refused, TableLobby, Update
from .who import BOT, player


class Replayer:
    """The game at any step of a save."""

    def __init__(self, save: SaveFile, content: Any = None, *, allow_other_content: bool = False, step: int = 0) -> None:
        from cthulhu.savegame import seek

        if content is None:
            from cthulhu.content import builtin

            content = builtin()
        self.save = save
        self.content = content
        self.allow_other_content = allow_other_content
        self.labels: dict[int, str] = {}  # step -> the option's label, learnt when stepping onto it
        self.game: Game = seek(save, 0, content, allow_other_content=allow_other_content)
        self.go(step)

    @classmethod
    def open(cls, path: str | Path, **kw: Any) -> "Replayer":
        from cthulhu.savegame import load

        return cls(load(path), **kw)

    @property
    def last(self) -> int:
        return self.save.last_step

    @property
    def step(self) -> int:
        return self.game.step

    def _clamp(self, step: int) -> int:
        return max(0, min(self.save.last_step, step))

    def go(self, step: int) -> list[dict[str, Any]]:
        """Move to `step` (clamped to the save); the events, when it was one step forward."""
        from cthulhu.savegame import seek

        step = self._clamp(step)
        if step == self.game.step:
            return []
        if step != self.game.step + 1:
            # A jump: seek to the step before and take the last one forward, so the
            # viewer can still say which choice led here.
            self.game = seek(self.save, step - 1 if step else 0, self.content, allow_other_content=self.allow_other_content)
            if step:
                self._forward(step)
            return []
        return self._forward(step)

    def _forward(self, step: int) -> list[dict[str, Any]]:
        from cthulhu.core import Rejected
        from cthulhu.savegame import HashMismatch, ReplayRejected, seek

        entry = self.save.steps[step - 1]
        prompt = self.game.prompt
        if prompt is not None:
            label = next((o.label for o in prompt.options if o.command.wire() == entry.command), None)
            if label is not None:
                self.labels[step] = label
        try:
            events = self.game.apply(entry.seat, Command.from_wire(entry.command))
        except Rejected as exc:  # an edited save: the rules refuse the recorded command
            raise ReplayRejected(f"step {step}: the recorded command was refused: {exc}", step=step) from None
        if self.game.state_hash() != entry.hash:
            self.game = seek(self.save, step - 1, self.content, allow_other_content=self.allow_other_content)
            raise HashMismatch(f"hash mismatch at step {step}: the save and the rules disagree", step=step)
        return [e.wire() for e in events]

    def describe(self, step: int | None = None) -> str:
        """Who did what to reach `step` (default: the current one)."""
        step = self.step if step is None else step
        if step <= 0:
            return "the table as set up"
        entry = self.save.steps[step - 1]
        what = self.labels.get(step)
        if what is None:
            args = ", ".join(f"{k}={v}" for k, v in entry.command.items() if k != "kind")
            what = str(entry.command.get("kind", "?")).replace("_", " ") + (f" ({args})" if args else "")
        by = " (a stand-in bot decided it)" if step in self.save.header.sealed else ""  # for an away player, or one out of time
        return f"{player(self.game.view(None), entry.seat, self.seat_names())}: {what}{by}"

    def seat_names(self) -> dict[int, str]:
        """Who sat where, as the save says (cleaned where it is drawn, like every name from a file). A game
        played at one terminal calls its player "you" (`PlayOptions.name`): no name to a viewer."""
        return {p.seat: BOT if p.bot else p.name for p in self.save.header.players if p.bot or p.name != "you"}


class ReplayLink(QueuedUpdates):
    """A `TableLink` over a `Replayer`: no seats to play, updates when the viewer moves."""

    local_seats: frozenset[int] = frozenset()
    chat_ok = False
    dice: DiceVerdict | None = None
    verifies_dice = False  # the save's dice are checked by `cthulhu replay --verify`, not here
    save_path: Path | None = None  # the save is only read
    comeback: str | None = None
    lobby: TableLobby | None = None

    def __init__(self, replayer: Replayer, *, name: str = "") -> None:
        self.replayer = replayer
        self.name = name
        self.label = f"replay {name}".strip()
        self.seed: int | None = replayer.save.setup.seed
        self.advice = replayer.save.setup.advice  # the game's house rule, shown in the header (the viewer has no odds panel)
        self._queue: asyncio.Queue[Update | None] = asyncio.Queue()
        self._closed = False

    def view(self) -> dict[str, Any]:
        return self.replayer.game.view(None)

    def play_again(self) -> str | None:
        from cthulhu.net import play_again_command

        save = self.replayer.save
        return play_again_command(save.setup, save.header.bot_seats())

    def seat_names(self) -> dict[int, str]:
        return self.replayer.seat_names()

    async def open(self) -> Opened:
        r = self.replayer
        outcome = r.save.header.outcome or "in play"
        view = self.view()
        return Opened(view=view, news=(Noticed(view=view, text=f"Replay of {self.name or 'a save'}: {r.last} steps, {outcome}. Now at step {r.step}."),))

    def go(self, step: int) -> None:
        """Move the replay; the screen hears about it through `updates()`."""
        from cthulhu.savegame import SaveError

        r = self.replayer
        before = r.step
        try:
            events = r.go(step)
        except SaveError as exc:
            self._queue.put_nowait(Refused(view=self.view(), reason=str(exc)))
            return
        if r.step == before:
            return
        if events:  # "Step 12: ..." before what happened in it
            self._queue.put_nowait(Moved(view=self.view(), events=events, heading=f"Step {r.step}: {r.describe()}."))
        else:
            self._queue.put_nowait(Noticed(view=self.view(), text=f"{'Back' if r.step < before else 'On'} to step {r.step} of {r.last}."))

    async def send(self, seat: int, command: dict[str, Any], version: int | None) -> None:
        return None  # a replay is only watched

    async def undo(self, seat: int, version: int | None) -> None:
        return None  # no seat is local to a replay (`local_seats` is empty), so nothing is ever taken back

    def clock(self) -> None:
        return None  # a replay has no clock running

    def held(self) -> None:
        return None  # a replay writes nothing

    def unsaved(self) -> None:
        return None  # nor needs to

    async def back(self) -> None:
        return None

    async def chat(self, text: str) -> None:
        return None

    async def save(self) -> str | None:
        from .link import SaveUnavailable

        raise SaveUnavailable("A replay is only watched; the save file is never changed.")

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._queue.put_nowait(None)
