"""The declared shape of what a seat sees of the main game (`Game.view(seat)`).

A module of types only, like `core.wiretypes`: pydantic validates views against
these (`Mode.check_view`), and a TypedDict declared in a module compiled with
mypyc (setup.py) is `typing`'s, which pydantic refuses before Python 3.12.
`view` builds them and exports them.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict

from ..wiretypes import PromptWire
from .eventparts import Cause


class SpaceRef(TypedDict):
    id: str
    name: str


class TileView(TypedDict):
    id: str
    name: str
    pos: list[int]  # column, row on the table
    spaces: list[SpaceRef]


class RequirementView(TypedDict):
    at: list[str]
    safe: bool
    fire_here: bool
    space_token: str | None
    tokens: dict[str, int]


class EpisodeActionView(TypedDict):
    name: str
    text: str
    requires: RequirementView
    advances: bool  # moves the ritual on (bots aim for these)


class EpisodeView(TypedDict):
    id: str
    name: str
    blurb: str
    tiles: list[TileView]
    adjacent: dict[str, list[str]]
    staircases: list[str]
    tunnels: list[str]
    gates: dict[str, str]  # color -> space
    start: str
    actions: list[EpisodeActionView]


class SkillView(TypedDict):
    """A skill on the board at the level the rules use: the investigator's own plus one per held card granting it."""

    id: str
    name: str
    unique: bool
    levels: list[str]  # the text of each level
    level: int  # the level in effect (`mods.skill_levels`)
    own: int  # the investigator's own level (0: a skill only a held card gives)
    granted: list[str]  # the held cards that add a level, by name


class CardView(TypedDict):
    """A claimed Discovery half; Companions add their wounds and health."""

    card: str
    name: str
    kind: Literal["item", "companion", "condition"]
    text: str
    side: Literal["left", "right"]
    wounds: NotRequired[int]
    health: NotRequired[int | None]


class InsanityView(TypedDict):
    name: str
    text: str


class InvestigatorView(TypedDict):
    index: int
    id: str
    name: str
    title: str
    seat: int
    space: str
    alive: bool
    cause: str | None  # "killed" or "madness"
    wounds: int
    health: int
    stress: int
    stress_max: int
    sanity: int
    skull: int
    thresholds: list[int]
    bonus_thresholds: list[int]
    reached: list[int]
    bonus: int
    fire: int
    skills: list[SkillView]
    mods: dict[str, int | bool]  # the modifiers in effect (skills at their held levels, held cards) that are not zero
    tokens: dict[str, int]
    cards: list[CardView]
    insanity: InsanityView | None
    kept: list[str]  # names of the Mythos cards kept by an insanity


class EnemyView(TypedDict):
    id: str
    kind: str
    name: str
    space: str
    wounds: int
    health: int


class ReferenceView(TypedDict):
    name: str
    category: Literal["cultist", "monster"]
    health: int
    standard: int
    bonus: int
    ability: str | None


class StageView(TypedDict):
    name: str
    text: str
    health: int | None
    standard: int
    bonus: int
    revealed: bool
    defeated: bool
    wounds: int


class ElderOneView(TypedDict):
    id: str
    name: str
    minion: str
    track: int  # the last space of the summoning track
    first_red: int
    position: int
    summoned: bool
    stage: int  # index into stages (0 = Stage 1)
    space: str | None
    stages: list[StageView]


class MythosCardView(TypedDict):
    name: str
    text: str
    summoning: bool


class MythosView(TypedDict):
    deck: int
    discard: list[MythosCardView]
    summoning: int  # summoning symbols in the discard


class DiscoveryView(TypedDict):
    deck: int
    discard: int


class RitualView(TypedDict):
    name: str
    text: str
    needed: int
    progress: int
    disrupted: bool


class RollView(TypedDict):
    inv: int
    name: str  # the investigator who rolls, or is rolled against
    purpose: str  # "attack", "defend", "check", "fire"
    dice: list[list[str]]  # [die ("standard" or "bonus"), face ("success+tentacle", "" for blank)]
    deciding: bool  # a keep-or-reroll choice on these dice is being made now (the fields below are for it)
    enemy: str | None  # defend: the enemy attacking
    target_names: list[str]  # attack: the enemies attacked
    need: int | None  # check: the successes needed
    cause: Cause | None  # check: the card (or Stage) asking; fire: the Fire
    free: int  # rerolls left that cost no stress


class MainView(TypedDict):
    """`Game.view(seat)` of the main game. The façade fills `step`, `outcome` and `prompt`."""

    mode: Literal["main"]
    episode: EpisodeView
    investigators: list[InvestigatorView]
    enemies: list[EnemyView]
    reference: dict[str, ReferenceView]
    reserve: dict[str, int]
    fire: dict[str, int]
    fire_reserve: int
    wound_tokens: int
    space_tokens: dict[str, dict[str, int]]
    tokens: dict[str, str]  # token id -> name
    elder_one: ElderOneView
    mythos: MythosView
    discovery: DiscoveryView
    ritual: RitualView
    turn: int
    active: int
    phase: str
    actions_left: int
    last_roll: RollView | None
    cause: str | None
    step: int
    outcome: str | None
    prompt: PromptWire | None
