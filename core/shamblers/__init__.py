"""Shamblers mode (RULES.md Part B): banish the Shamblers from a ring of Town Cards."""

from __future__ import annotations

from typing import Any

from ..modes import Mode
from .events import ShamblersEvent
from .prompts import PROMPTS
from .view import ShamblersView


def _rules() -> Any:
    from .rules import ShamblerRules

    return ShamblerRules()


def _content(docs: dict[str, dict[str, Any]]) -> Any:
    from .content import load_shamblers

    return load_shamblers(docs)


def _heuristic(seed: int) -> Any:
    from .heuristic import HeuristicBot

    return HeuristicBot(seed)


def _summary(game: Any) -> dict[str, str | int | bool | None]:
    view = game.view(None)
    return {"turn": view["turn"], "phase": view["phase"]}


def _scramble(state: Any) -> None:
    state.bag.reverse()
    state.track.reverse()
    state.rng.seed ^= 0x5EC12E7
    state.rng.counters = {k: v + 1 for k, v in state.rng.counters.items()}


MODE = Mode(
    name="shamblers",
    title="Shamblers",
    rules=_rules,
    view=ShamblersView,
    events=ShamblersEvent,
    prompts=PROMPTS,
    content=_content,
    bots={"heuristic": _heuristic},
    summary=_summary,
    scramble=_scramble,
)
