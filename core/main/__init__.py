"""The main game (seed 001): investigators against a ritual and its Elder One."""

from __future__ import annotations

from typing import Any

from ..choices import ADVICE, Choice, SetupOption
from ..game import Game
from ..modes import Mode
from ..search import Searchable, SearchBot
from ..setup import Setup
from .content import MainContent
from .load import load_main
from .events import MainEvent
from . import sample, value
from .heuristic import HeuristicBot
from .luck import MainLuck
from .policy import SearchPolicy
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


def _turn(state: MainState) -> tuple[int, int]:
    """The turn under way and the seat of its investigator (`Mode.turn`)."""
    return state.turn, state.investigators[state.active].seat


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


def _policy(seed: int, content: Any) -> SearchPolicy:
    return SearchPolicy(seed, content.part("main"))


def _describe(main: MainContent) -> str:
    return (f"{len(main.episodes)} episode(s), {len(main.investigators)} investigator(s), "
            f"{len(main.enemies)} enemy kind(s), {len(main.skills)} skill(s)")


def _episodes(main: MainContent) -> list[Choice]:
    # Easiest first: the rules' own default (resolve_setup) leads.
    order = sorted(main.episodes, key=lambda k: (main.episodes[k].difficulty, k))
    return [Choice(k, main.episodes[k].name, f"difficulty {main.episodes[k].difficulty}") for k in order]


def _elder_ones(main: MainContent) -> list[Choice]:
    order = sorted(main.elder_ones, key=lambda k: (k != main.rules.default_elder_one, k))
    return [Choice(k, main.elder_ones[k].name) for k in order]


def _investigators(main: MainContent) -> list[Choice]:
    return [Choice(k, i.name, i.title) for k, i in sorted(main.investigators.items())]


OPTIONS = (
    SetupOption("episode", "Episode", "episode", "episodes", "an episode", _episodes,
                lambda main: [_episodes(main)[0].id] if main.episodes else []),
    SetupOption("elder_one", "Elder One", "Elder One", "Elder Ones", "an Elder One", _elder_ones,
                lambda main: [main.rules.default_elder_one]),
    SetupOption("investigators", "Investigator", "investigator", "investigators", "investigators, one per seat", _investigators,
                lambda main: sorted(main.investigators)[: main.rules.default_investigators], many=True, rows=4),
    ADVICE,
)


ENDINGS = {
    "elder_defeated": "{elder} is put down: its Final Stage is defeated.",
    "died_before_summoning": "An investigator died before {elder} took the board.",
    "all_dead": "Every investigator is dead.",
    "track_end": "The Progression token reached the end of the summoning track.",
}

MODE = Mode(
    name="main",
    title="Main game",
    rules=MainRules,
    view=MainView,
    events=MainEvent,
    prompts=PROMPTS,
    content=load_main,
    bots={"heuristic": HeuristicBot, "search": SearchBot},
    summary=_summary,
    turn=_turn,
    coverage=_coverage,
    scramble=_scramble,
    options=OPTIONS,
    describe=_describe,
    search=Searchable(sample=sample.sample, value=value.value, policy=_policy),
    characters=_characters,
    endings=ENDINGS,
    luck=MainLuck,
    skips=frozenset({"end_actions", "done", "stop", "keep"}),
)
