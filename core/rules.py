"""The hooks a game mode gives the engine: a base class every mode's rules subclass.

As a python-chess variant overrides a few methods of its board, a mode overrides the hooks of
`Rules` that it needs. Every hook is declared here with what it means and a default, so the façade
(`Game`), the take-backs (`core.undo`), the search bot and the simulator call hooks and never look
for them. The state is the mode's own plain-data object; the façade passes it to every hook.

Seven hooks make a game and have no default but a clear error: `new_state`, `prompt`, `resolve`,
`view`, `outcome`, `canonical` and `from_canonical`. The others say what the engine may rely on,
and their defaults are the safe answer for a mode that says nothing: its dice are `state.rng`, no
take-backs (`secret`), one view per seat (`projection`), no cause of an ending (`cause`), no Elder
One on the board (`summoned`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from .command import Command, Event, Prompt
from .rng import Rng
from .setup import Setup


@mypyc_attr(allow_interpreted_subclasses=True)  # a plug-in mode's rules (a test's toy) subclass it, compiled core or not
class Rules:
    """One game's rules (a mode makes a fresh instance per game: `Mode.rules`)."""

    # -- the game itself: every mode declares these -------------------------------------------------

    def new_state(self, setup: Setup, content: Any) -> Any:
        """A new game's state for `setup`, from the mode's part of the loaded `content`; `ValueError`
        for a choice the content does not have. Nothing is dealt out to the seats yet (`start`)."""
        raise self._missing("new_state")

    def prompt(self, state: Any) -> Prompt | None:
        """The decision waited for now, with every legal option (None once the game is over).

        The engine alone enumerates them: the façade accepts nothing else. It may be asked many times
        for one step and must not change what the game is."""
        raise self._missing("prompt")

    def resolve(self, state: Any, command: Command) -> list[Event]:
        """Carry out `command`, one of `prompt`'s options (the façade has checked it), up to the next
        decision; the events say what happened, in order."""
        raise self._missing("resolve")

    def view(self, state: Any, seat: int | None) -> Mapping[str, Any]:
        """A fresh view (the mode's declared TypedDict) of what `seat` may see; the façade fills
        its `step`, `outcome` and `prompt`. A spectator (None) sees what every seat sees."""
        raise self._missing("view")

    def outcome(self, state: Any) -> str | None:
        """"won" or "lost" once the game is over; None while it runs."""
        raise self._missing("outcome")

    def canonical(self, state: Any) -> dict[str, Any]:
        """The whole state as plain data, secrets and random streams included (hashes, snapshots,
        undo's rebuilds): the same game gives the same data, whatever happened to get there."""
        raise self._missing("canonical")

    def from_canonical(self, data: dict[str, Any], setup: Setup, content: Any) -> Any:
        """The state `canonical` gave, rebuilt: equal to it in every way the game can tell."""
        raise self._missing("from_canonical")

    def hashed(self, state: Any) -> Any:
        """What the state hash encodes: `canonical`'s very data, though it may share the state's own
        lists and dicts (it is encoded at once and let go), which spares a copy per step.
        Default: `canonical`."""
        return self.canonical(state)

    # -- what the engine may rely on: each has the safe default ---------------------------------------

    def start(self, state: Any) -> list[Event]:
        """Set the table out (deal, place figures) up to the first decision; the events of the setup.
        Default: nothing to set out."""
        return []

    def rng(self, state: Any) -> Rng | None:
        """The state's random streams: `core.undo` counts their draws to tell a step that rolled or
        shuffled, and hands scripted test faces back on a replay. Default: `state.rng`, where every
        mode keeps them; a mode with no chance in it returns None."""
        rng: Rng = state.rng
        return rng

    def secret(self, state: Any) -> Hashable | None:
        """The parts of the state no seat sees (deck orders, the bag), in a form that compares equal
        exactly when they are unchanged: `core.undo` compares it before and after each step, and a
        step that changed it revealed something, so it cannot be taken back. Default None: the mode
        does not name its secrets, so every step counts as revealing and nothing can be taken back."""
        return None

    def projection(self, state: Any, seat: int | None) -> Hashable:
        """A key equal for two seats exactly when their views are equal now (a host builds and sends
        one view for both). Default: the seat itself, so every seat's view is its own."""
        return seat

    def cause(self, state: Any) -> str | None:
        """Why the game ended, as the code `Mode.endings` puts in a sentence (the simulator counts
        them). Default None: while it runs, or for a mode that gives no cause."""
        return None

    def summoned(self, state: Any) -> bool:
        """Whether the Elder One took the board (the simulator's share of games where it did).
        Default False: a mode whose Elder One never comes onto the board."""
        return False

    def _missing(self, hook: str) -> NotImplementedError:
        return NotImplementedError(f"{type(self).__name__} declares no {hook!r} hook, which every mode must (core.rules.Rules)")
