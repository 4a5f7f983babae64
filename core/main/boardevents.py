"""Events of the decks and the board: Mythos and Discovery cards, the Elder One's track, figure
and Stages, the ritual, tokens and fire on spaces, and the game's end.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict

from .eventparts import Cause, HalfInfo


class SpaceTokensChanged(TypedDict):
    type: Literal["space_tokens_changed"]
    space: str
    space_name: str
    token: str
    token_name: str
    n: int  # how many lie there now
    change: int
    cause: Cause | None


class RitualProgress(TypedDict):
    type: Literal["ritual_progress"]
    progress: int
    needed: int
    name: str
    cause: Cause | None


class ElderPlaced(TypedDict):
    type: Literal["elder_placed"]
    name: str
    space: str
    space_name: str
    cause: Cause | None


class FireSpread(TypedDict):
    type: Literal["fire_spread"]
    space: str
    space_name: str
    n: int
    total: int  # Fire tokens on the space now
    cause: Cause | None


class RitualDisrupted(TypedDict):
    type: Literal["ritual_disrupted"]
    name: str


class MythosKept(TypedDict):
    type: Literal["mythos_kept"]
    inv: int
    name: str
    card: str


class ElderMoved(TypedDict):
    type: Literal["elder_moved"]
    name: str
    space: str
    space_name: str
    cause: Cause | None


class StageRevealed(TypedDict):
    type: Literal["stage_revealed"]
    name: str
    elder: str
    stage: int
    stages: int
    text: str


class GameWon(TypedDict):
    type: Literal["game_won"]
    name: str


class GameLost(TypedDict):
    type: Literal["game_lost"]
    cause: str
    text: str


class MythosShuffled(TypedDict):
    type: Literal["mythos_shuffled"]
    deck: int


class MythosDrawn(TypedDict):
    type: Literal["mythos_drawn"]
    inv: int
    card: str
    text: str
    summoning: bool


class ElderAdvanced(TypedDict):
    type: Literal["elder_advanced"]
    name: str
    track: int
    last: int
    token: Literal["progression", "figure"]
    symbols: int  # summoning symbols in the Mythos discard that moved it


class ElderSummoned(TypedDict):
    type: Literal["elder_summoned"]
    name: str
    track: int
    why: Literal["ritual", "track"]


class DiscoveryDrawn(TypedDict):
    type: Literal["discovery_drawn"]
    inv: int
    card: str
    text: str
    left: NotRequired[HalfInfo]
    right: NotRequired[HalfInfo]


class MythosRecurs(TypedDict):
    type: Literal["mythos_recurs"]
    inv: int
    name: str
    card: str


class DiscoveryEmpty(TypedDict):
    type: Literal["discovery_empty"]
