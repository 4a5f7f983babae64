"""Bots choose among `Game.legal()` only; they never decide legality themselves.

A bot's randomness is its own seeded stream, so a simulated game is a pure
function of the game seed and the bot seed.
"""

from __future__ import annotations

from typing import Protocol

from .command import Command
from .game import Game
from .rng import Rng


class Bot(Protocol):
    def choose(self, game: Game, seat: int) -> Command: ...


class RandomBot:
    """Uniform over the legal commands."""

    def __init__(self, seed: int) -> None:
        self.rng = Rng(seed)

    def choose(self, game: Game, seat: int) -> Command:
        legal = game.legal(seat)
        if not legal:
            raise ValueError(f"seat {seat} has nothing to decide")
        return legal[self.rng.below("bot", len(legal))]


def make_bot(kind: str, mode: str, seed: int) -> Bot:
    if kind == "random":
        return RandomBot(seed)
    if kind == "heuristic":
        if mode == "main":
            from .main.heuristic import HeuristicBot
        elif mode == "shamblers":
            from .shamblers.heuristic import HeuristicBot
        else:
            raise ValueError(f"unknown mode {mode!r}")
        return HeuristicBot(seed)
    raise ValueError(f"unknown bot {kind!r} (random or heuristic)")
