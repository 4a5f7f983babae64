"""The bots every mode builds on, apart from the registry that makes them (`core.bots.make_bot`).

`Mode.bot` gives every mode the random bot, so these sit below the mode registry; `core.bots`
is where callers find them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mypy_extensions import mypyc_attr

from .command import Command
from .rng import Rng

if TYPE_CHECKING:
    from .game import Game


class Bot(Protocol):
    def choose(self, game: Game, seat: int) -> Command: ...
    def choose_view(self, view: Any) -> dict[str, Any]: ...


@mypyc_attr(allow_interpreted_subclasses=True)  # a plug-in mode's bot may build on it, compiled core or not
class ViewBot:
    """A bot that decides from its seat's view alone: `choose` is `choose_view(game.view(seat))`."""

    def choose(self, game: Game, seat: int) -> Command:
        prompt = game.prompt
        if prompt is None or prompt.seat != seat or game.outcome is not None:
            raise ValueError(f"seat {seat} has nothing to decide")
        view = game.view(seat)
        wire = self.choose_view(view)
        # Usually one of the view's own option commands: then the option's command itself, unparsed.
        for option, shown in zip(prompt.options, view["prompt"]["options"]):
            if shown["command"] is wire:
                return option.command
        return Command.from_wire(wire)

    def choose_view(self, view: Any) -> dict[str, Any]:  # pragma: no cover - every bot overrides it
        raise NotImplementedError


class RandomBot(ViewBot):
    """Uniform over the legal commands."""

    def __init__(self, seed: int) -> None:
        self.rng = Rng(seed)

    def choose(self, game: Game, seat: int) -> Command:
        legal = game.legal(seat)
        if not legal:
            raise ValueError(f"seat {seat} has nothing to decide")
        return legal[self.rng.below("bot", len(legal))]

    def choose_view(self, view: Any) -> dict[str, Any]:
        options = view["prompt"]["options"]
        command: dict[str, Any] = options[self.rng.below("bot", len(options))]["command"]
        return command
