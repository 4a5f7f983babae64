"""Helpers for the save tests: real games played by seeded bots, recorded as they go."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot

MODES = ("main", "shamblers")


def mode_available(mode: str) -> bool:
    try:
        Game.new(Setup(mode=mode, seed=1))
    except Exception:  # a mode still being written; its tests are skipped, not failed
        return False
    return True


def mode_params() -> list:
    return [pytest.param(m, marks=pytest.mark.skipif(not mode_available(m), reason=f"mode {m} not in core yet")) for m in MODES]


def any_mode() -> str:
    for m in MODES:
        if mode_available(m):
            return m
    pytest.skip("no game mode in core yet")


def play(
    game: Game,
    on_step: Callable[[int, dict, str], None] | None = None,
    *,
    steps: int = 60,
    bot_seed: int = 1,
) -> list[tuple[int, dict, str]]:
    """Play up to `steps` commands with a random bot; returns the (seat, command, hash) log."""
    bot = make_bot("random", game.setup.mode, bot_seed)
    log = []
    while game.outcome is None and len(log) < steps:
        seat = game.prompt.seat
        command = bot.choose(game, seat)
        game.apply(seat, command)
        entry = (seat, command.wire(), game.state_hash())
        log.append(entry)
        if on_step is not None:
            on_step(*entry)
    return log
