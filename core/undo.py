"""Take-backs bounded by information: what the deciding seat may undo, and how.

A step *reveals* something when chance spoke during it (any RNG stream was
drawn, or a scripted test face was used) or when the mode's secret zones
changed (a card drawn from a shuffled deck, a tentacle pulled from the bag);
a mode names its secret zones with the `Rules.secret(state)` hook, and a mode
that names none (the hook's default) counts every step as revealing, so it
never offers an undo it cannot vouch for. Such a step, a decision by another seat and the setup
itself are lines nothing is taken back across: the seat deciding now may undo
only its own decisions since the last line (its *horizon*).

Undo rebuilds the state from the nearest snapshot at or before that line (the
setup, or a snapshot taken every `REBASE` steps) and replays the log up to the
step wanted. Nothing replayed after the line draws on chance (that is what the
line means), and everything before it is replayed with the same RNG counters
and the same scripted faces, so an undo can never show a different die face
or card. The history is not part of the state: hashes and saves ignore it.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, NamedTuple

from .command import Command, Event
from .errors import CannotUndo
from .wiretypes import Undone as Undone  # declared apart: see `wiretypes`

if TYPE_CHECKING:
    from .game import Game

REBASE = 64  # steps between history snapshots (taken only where nothing can be undone)

_SETUP = "setup"  # base: rebuild from the setup itself (a game made by `Game.new`)


class Entry(NamedTuple):
    """One applied decision, as much as a replay and the log need."""

    seat: int
    command: Command
    label: str
    faces: tuple[Any, ...] = ()  # scripted test faces this step used, handed back on replay


class History:
    """The decisions since the last snapshot, and the line no undo crosses (`floor`)."""

    __slots__ = ("base", "base_step", "entries", "floor", "why")

    def __init__(self, step: int = 0) -> None:
        # At step 0 the setup rebuilds the start; a game restored mid-way takes
        # its first snapshot before its next step (nothing before it is undoable).
        self.base: Any = _SETUP if step == 0 else None
        self.base_step = step
        self.entries: list[Entry] = []
        self.floor = step
        self.why = "nothing has been decided yet"

    def reset(self, step: int) -> None:
        """Forget the past: the state was changed outside `apply` (a test arranging the table).
        The next step takes a fresh snapshot; nothing before it can be taken back."""
        self.base, self.base_step, self.floor = None, step, step
        self.entries.clear()
        self.why = "nothing has been decided yet"

    # -- recording ------------------------------------------------------------

    def before(self, game: "Game") -> tuple[int, tuple[Any, ...], Any]:
        """Called by `Game.apply` just before a legal command is resolved: what a reveal would change."""
        if self.floor == game.step and (self.base is None or game.step - self.base_step >= REBASE):
            self.base = game.rules.canonical(game.state)
            self.base_step = game.step
            self.entries.clear()
        rng = game.rules.rng(game.state)
        secret = game.rules.secret(game.state)
        if rng is None:
            return 0, (), secret
        return rng.draws, tuple(rng.scripted) if rng.scripted else (), secret

    def after(self, game: "Game", seat: int, command: Command, label: str, before: tuple[int, tuple[Any, ...], Any]) -> None:
        """Called by `Game.apply` right after the step; moves the line if the step revealed anything."""
        draws, scripted, secret = before
        rng = game.rules.rng(game.state)
        faces: tuple[Any, ...] = ()
        chance = False
        if rng is not None:
            if scripted:
                faces = scripted[: len(scripted) - len(rng.scripted)]
            chance = bool(faces) or rng.draws != draws
        self.entries.append(Entry(seat, command, label, faces))
        step = game.step
        if chance or secret is None or game.rules.secret(game.state) != secret:  # (no need to look at the secrets after a roll)
            self.floor, self.why = step, "the last step revealed something (a roll, a card, a draw or a shuffle)"
        elif self.floor < step - 1 and self.entries[-2].seat != seat:
            self.floor, self.why = step - 1, f"seat {self.entries[-2].seat + 1} decided since"

    def seal(self, step: int, why: str) -> None:
        """Move the line to `step`: nothing decided before it may be taken back, for `why`."""
        self.floor, self.why = step, why

    # -- taking back ------------------------------------------------------------

    def horizon(self, game: "Game", seat: int) -> int:
        """How many of `seat`'s own decisions can be taken back now (0: none)."""
        return self._horizon(game, seat)[0]

    def _horizon(self, game: "Game", seat: int) -> tuple[int, str]:
        if game.outcome is not None:
            return 0, "the game is over"
        prompt = game.prompt
        if prompt is None or prompt.seat != seat:
            return 0, "another seat is deciding" if prompt is not None else "nobody is deciding"
        if self.floor >= game.step:
            return 0, self.why
        if self.entries[-1].seat != seat:
            return 0, f"the last decision was seat {self.entries[-1].seat + 1}'s"
        return game.step - self.floor, ""

    def refusal(self, game: "Game", seat: int, count: int = 1) -> CannotUndo | None:
        """Why `seat` may not take back `count` decisions now (None: it may); nothing is built."""
        can, why = self._horizon(game, seat)
        if count < 1:
            return CannotUndo("take back at least one decision")
        if can == 0:
            return CannotUndo(f"nothing to take back: {why}")
        if count > can:
            return CannotUndo(f"only {can} decision(s) can be taken back")
        return None

    def undo(self, game: "Game", seat: int, count: int = 1) -> list[Event]:
        """Take back `seat`'s last `count` decisions, or raise `CannotUndo` and change nothing."""
        refusal = self.refusal(game, seat, count)
        if refusal is not None:
            raise refusal
        target = game.step - count
        keep = target - self.base_step
        taken = self.entries[keep:]
        game.state = self._rebuild(game, self.entries[:keep])
        game.step = target
        del self.entries[keep:]
        return [Event("undone", {"seat": seat, "step": target, "taken": [e.label for e in taken]})]

    def _rebuild(self, game: "Game", entries: list[Entry]) -> Any:
        rules = game.rules
        if self.base is _SETUP:
            state = rules.new_state(game.setup, game.content)
            rules.start(state)
        else:
            state = rules.from_canonical(copy.deepcopy(self.base), game.setup, game.content)
        rng = rules.rng(state)
        live = rules.rng(game.state)
        for entry in entries:
            if rng is not None:
                rng.scripted[:] = entry.faces
            rules.resolve(state, entry.command)
        if rng is not None and live is not None:
            rng.scripted[:] = live.scripted
        return state


class Untracked(History):
    """The history of a game played out by a search: nothing is recorded, nothing can be taken back.

    A rollout applies thousands of commands nobody will undo; keeping their history (and its
    snapshots) would cost more than the rollout itself."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(0)
        self.floor = 1 << 62
        self.why = "a search's playout keeps no history"

    def before(self, game: "Game") -> tuple[int, tuple[Any, ...], Any]:
        return 0, (), None

    def after(self, game: "Game", seat: int, command: Command, label: str, before: tuple[int, tuple[Any, ...], Any]) -> None:
        return None
