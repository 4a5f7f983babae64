"""The main game (seed 001): investigators against a ritual and its Elder One."""

from __future__ import annotations

from typing import Any

from ..game import Game
from ..modes import Mode
from ..setup import Setup
from .content import MainContent, load_main
from .events import MainEvent
from .heuristic import HeuristicBot
from .prompts import PROMPTS
from .rules import MainRules, resolve_setup
from .state import MainState
from .view import MainView


def _summary(game: Game) -> dict[str, str | int | bool | None]:
    view: MainView = game.view(None)  # type: ignore[assignment]
    return {
        "turn": view["turn"],
        "phase": view["phase"],
        "elder_one_summoned": view["elder_one"]["summoned"],
        "episode": view["episode"]["name"],
        "elder_one": view["elder_one"]["name"],
    }


def _characters(view: MainView) -> dict[int, list[str]]:
    """Each seat's investigators, in turn order."""
    out: dict[int, list[str]] = {}
    for inv in view["investigators"]:
        out.setdefault(inv["seat"], []).append(inv["name"])
    return out


def _coverage(content: Any, setup: Setup) -> dict[str, list[str]] | None:
    from ..sim import coverage_entries

    main: MainContent = content.main
    try:
        episode, elder_one, _ = resolve_setup(setup, main)
    except ValueError:
        return None  # every game will fail the same way and be reported as an error
    return coverage_entries(main, episode, elder_one)


def _scramble(state: MainState) -> None:
    state.mythos_deck.reverse()
    state.discovery_deck.reverse()
    state.rng.seed ^= 0x5EC12E7
    state.rng.counters = {k: v + 1 for k, v in state.rng.counters.items()}


def _describe(main: MainContent) -> str:
    return (f"{len(main.episodes)} episode(s), {len(main.investigators)} investigator(s), "
            f"{len(main.enemies)} enemy kind(s), {len(main.skills)} skill(s)")


def _listing(main: MainContent) -> dict[str, list[tuple[str, str]]]:
    # What a setup without the choice gets first (the rules' own defaults: resolve_setup).
    episodes = sorted(main.episodes, key=lambda k: (main.episodes[k].difficulty, k))
    elders = sorted(main.elder_ones, key=lambda k: (k != main.rules.default_elder_one, k))
    first = sorted(main.investigators)[: main.rules.default_investigators]
    return {
        "episode": [(k, f"{main.episodes[k].name}, difficulty {main.episodes[k].difficulty}" + (" (the default)" if n == 0 else ""))
                    for n, k in enumerate(episodes)],
        "elder_one": [(k, main.elder_ones[k].name + (" (the default)" if n == 0 else "")) for n, k in enumerate(elders)],
        "investigators": [(k, f"{i.name}, {i.title}" + (" (a default)" if k in first else "")) for k, i in sorted(main.investigators.items())],
    }


MODE = Mode(
    name="main",
    title="Main game",
    rules=MainRules,
    view=MainView,
    events=MainEvent,
    prompts=PROMPTS,
    content=load_main,
    bots={"heuristic": HeuristicBot},
    summary=_summary,
    coverage=_coverage,
    scramble=_scramble,
    choices=frozenset({"episode", "elder_one", "investigators"}),
    describe=_describe,
    listing=_listing,
    characters=_characters,
)
