"""Bots choose among the prompt's options only; they never decide legality themselves.

A bot reads what its seat may see (the view, with the prompt in it), so the same
bot plays inside the host, in a network peer, or in `cthulhu sim`. Its randomness
is its own seeded stream, so a simulated game is a pure function of the game
seed and the bot seed. The bots every mode builds on are declared below the mode
registry (`core.basebots`, since every mode has the random one) and found here.
"""

from __future__ import annotations

from . import modes
from .basebots import Bot as Bot, RandomBot as RandomBot, ViewBot as ViewBot  # declared apart: see `basebots`


def make_bot(kind: str, mode: str, seed: int) -> Bot:
    """A bot of `kind` ("random", "heuristic" ...) for `mode`, from the mode registry."""
    return modes.get(mode).bot(kind, seed)
