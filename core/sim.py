"""Whole games played by bots: the simulator, the benches and the property tests share this."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .bots import make_bot
from .command import Event
from .game import Game
from .setup import Setup


@dataclass(slots=True)
class Played:
    seed: int
    outcome: str  # "won", "lost" or "turn_limit"
    commands: int
    turns: int
    final_hash: str
    cause: str | None
    summoned: bool = False
    coverage: dict[str, int] = field(default_factory=dict)


def game_seed(base: int, index: int) -> int:
    """Seeds for a batch: distinct, reproducible, and independent of batch size."""
    return (base * 1_000_003 + index) % (2**63)


def play(
    setup: Setup,
    bot: str = "random",
    turn_limit: int = 200,
    content: Any = None,
    on_events: Callable[[int, list[Event]], None] | None = None,
) -> Played:
    """Play one game to its end (or the turn limit) with one bot per seat."""
    game = Game.new(setup, content)
    bots: dict[int, Any] = {}
    if on_events is not None:
        on_events(0, game.start_events)
    while game.outcome is None and getattr(game.state, "turn", 0) <= turn_limit:
        prompt = game.prompt
        assert prompt is not None, "a running game always waits for someone"
        chooser = bots.get(prompt.seat)
        if chooser is None:
            chooser = bots[prompt.seat] = make_bot(bot, setup.mode, game_seed(setup.seed, prompt.seat + 1))
        events = game.apply(prompt.seat, chooser.choose(game, prompt.seat))
        if on_events is not None:
            on_events(game.step, events)
    state = game.state
    return Played(
        seed=setup.seed,
        outcome=game.outcome or "turn_limit",
        commands=game.step,
        turns=getattr(state, "turn", 0),
        final_hash=game.state_hash(),
        cause=getattr(state, "cause", None),
        summoned=bool(getattr(state, "summoned", False)),
    )
