"""Games for network tests: the toy mode always, the real modes once they exist."""

from __future__ import annotations

import importlib.util

import pytest

from cthulhu.core import Game, Setup

from net_toy import toy_game


def _available(mode: str) -> bool:
    try:
        return importlib.util.find_spec(f"cthulhu.core.{mode}.rules") is not None
    except ImportError:
        return False


MODES = ["toy"] + [
    pytest.param(m, marks=pytest.mark.skipif(not _available(m), reason=f"mode {m!r} not written yet"))
    for m in ("main", "shamblers")
]


def make_game(mode: str, seed: int = 1, players: int = 4) -> Game:
    if mode == "toy":
        return toy_game(seed, players)
    return Game.new(Setup(mode=mode, seed=seed, players=players))
