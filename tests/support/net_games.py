"""Games for network tests: every registered mode, the tests' toy mode included."""

from __future__ import annotations

from support import net_toy  # noqa: F401  (registers the toy mode)
from cthulhu.core import Game, Setup, modes

MODES = modes.names()


def make_game(mode: str, seed: int = 1, players: int = 4) -> Game:
    return Game.new(Setup(mode=mode, seed=seed, players=players))
