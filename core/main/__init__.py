"""The main game (seed 001): investigators against a ritual and its Elder One."""

from __future__ import annotations

from typing import Any

from ..modes import Mode
from .events import MainEvent
from .prompts import PROMPTS
from .view import MainView


def _rules() -> Any:
    from .rules import MainRules

    return MainRules()


def _content(docs: dict[str, dict[str, Any]]) -> Any:
    from .content import load_main

    return load_main(docs)


def _heuristic(seed: int) -> Any:
    from .heuristic import HeuristicBot

    return HeuristicBot(seed)


def _summary(game: Any) -> dict[str, str | int | bool | None]:
    view = game.view(None)
    return {
        "turn": view["turn"],
        "phase": view["phase"],
        "elder_one_summoned": view["elder_one"]["summoned"],
        "episode": view["episode"]["name"],
        "elder_one": view["elder_one"]["name"],
    }


def _coverage(content: Any, setup: Any) -> dict[str, list[str]] | None:
    from ..sim import coverage_entries
    from .rules import resolve_setup

    try:
        episode, elder_one, _ = resolve_setup(setup, content.main)
    except ValueError:
        return None  # every game will fail the same way and be reported as an error
    return coverage_entries(content.main, episode, elder_one)


def _scramble(state: Any) -> None:
    state.mythos_deck.reverse()
    state.discovery_deck.reverse()
    state.rng.seed ^= 0x5EC12E7
    state.rng.counters = {k: v + 1 for k, v in state.rng.counters.items()}


MODE = Mode(
    name="main",
    title="Main game",
    rules=_rules,
    view=MainView,
    events=MainEvent,
    prompts=PROMPTS,
    content=_content,
    bots={"heuristic": _heuristic},
    summary=_summary,
    coverage=_coverage,
    scramble=_scramble,
)
