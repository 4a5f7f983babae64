"""Helpers for the save tests: real games played by seeded bots, recorded as they go."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


from cthulhu.core import Game, modes
from cthulhu.core.bots import make_bot

# Every mode that ships content (the built-in ones), from the registry.
MODES = tuple(m.name for m in modes.all_modes() if m.content is not None)


def mode_params() -> list[str]:
    return list(MODES)


def any_mode() -> str:
    return MODES[0]


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


def holding_host(path: Path) -> subprocess.Popen:
    """A headless host carrying the save on: it holds it from start to exit."""
    proc = subprocess.Popen([sys.executable, "-m", "cthulhu.cli", "host", "--headless", "--port", "0", "--load", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.lines = [proc.stdout.readline() for _ in range(3)]
    assert proc.lines[2].startswith("Autosave:"), (proc.lines, proc.stderr.read() if proc.poll() is not None else "")
    return proc
