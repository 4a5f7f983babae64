"""Shamblers mode (RULES.md Part B): banish the Shamblers from a ring of Town Cards."""

from __future__ import annotations

from typing import Any

from ..choices import ADVICE, Choice, SetupOption
from ..game import Game
from ..modes import Mode
from ..search import Searchable, SearchBot
from .content import ShamblersContent, load_shamblers
from .events import ShamblersEvent
from . import sample, value
from .heuristic import HeuristicBot
from .luck import ShamblersLuck
from .prompts import PROMPTS
from .rules import ShamblerRules
from .state import ShamblerState
from .view import ShamblersView


def _summary(game: Game) -> dict[str, str | int | bool | None]:
    view: ShamblersView = game.view(None)  # type: ignore[assignment]
    return {"turn": view["turn"], "phase": view["phase"]}


def _turn(state: ShamblerState) -> tuple[int, int]:
    """The turn under way and the seat of its Player Mat (`Mode.turn`)."""
    return state.turn, state.mats[state.active].seat


def _characters(view: ShamblersView) -> dict[int, list[str]]:
    """Each seat's Player Mat."""
    out: dict[int, list[str]] = {}
    for mat in view["mats"]:
        out.setdefault(mat["seat"], []).append(mat["name"])
    return out


def _scramble(state: ShamblerState) -> None:
    state.bag.reverse()
    state.track.reverse()
    state.rng.seed ^= 0x5EC12E7
    state.rng.counters = {k: v + 1 for k, v in state.rng.counters.items()}


def _policy(seed: int, content: Any) -> HeuristicBot:
    return HeuristicBot(seed)


def _describe(sh: ShamblersContent) -> str:
    levels = ", ".join(f"{lv.id} (default)" if lv.id == sh.default_difficulty else lv.id for lv in sh.levels)
    return f"{len(sh.towns)} Town Cards, difficulty levels {levels}"


def _levels(content: ShamblersContent) -> list[Choice]:
    return [Choice(lv.id, lv.name) for lv in content.levels]


OPTIONS = (
    SetupOption("difficulty", "Difficulty", "difficulty", "difficulty levels", "a difficulty level", _levels,
                lambda content: [content.default_difficulty]),
    ADVICE,
)


ENDINGS = {
    "banished": "Enough Shamblers of every color are banished.",
    "shambler_mat_full": "The Shambler Mat holds too many tentacles of one color.",
    "delirium": "A Delirium track is full.",
    "shambler_track_empty": "A Shambler was due, and the Shambler Track was empty.",
}

MODE = Mode(
    name="shamblers",
    title="Shamblers",
    rules=ShamblerRules,
    view=ShamblersView,
    events=ShamblersEvent,
    prompts=PROMPTS,
    content=load_shamblers,
    bots={"heuristic": HeuristicBot, "search": SearchBot},
    summary=_summary,
    turn=_turn,
    scramble=_scramble,
    options=OPTIONS,
    describe=_describe,
    search=Searchable(sample=sample.sample, value=value.value, policy=_policy),
    characters=_characters,
    endings=ENDINGS,
    luck=ShamblersLuck,
    skips=frozenset({"end_actions", "decline"}),
)
