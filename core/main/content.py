"""Content models for the main game, validated with pydantic when loaded.

Numbers and effects are data (the effects' vocabulary is `core.main.ops`); the core interprets
them and no content file can run code. Cross references (an episode naming an enemy or a space
that does not exist, a map that is not connected) are checked as the content loads
(`core.main.load`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from .ops import AnyOp, Strict

GateColor = Literal["red", "yellow", "blue"]
FACE_SYMBOLS = ("success", "tentacle", "elder")


class Dice(Strict):
    """Each entry is one face of a d6; a face is its symbols joined by '+' ('' is blank)."""

    standard: list[str] = Field(min_length=6, max_length=6)
    bonus: list[str] = Field(min_length=6, max_length=6)

    @model_validator(mode="after")
    def _symbols(self) -> "Dice":
        for face in [*self.standard, *self.bonus]:
            for sym in filter(None, face.split("+")):
                if sym not in FACE_SYMBOLS:
                    raise ValueError(f"unknown die symbol {sym!r} in face {face!r}")
        return self


class Modifiers(Strict):
    """What a skill level does. A closed vocabulary: unknown keys fail the content check."""

    attack_dice: int = Field(default=0, ge=0, le=6)  # bonus dice on Attack rolls
    check_dice: int = Field(default=0, ge=0, le=6)  # bonus dice on "make a roll" checks
    attack_all: bool = False  # split an attack's successes over every enemy in the space
    elder_hits: bool = False  # elder signs count as successes on own attacks
    run_bonus: int = Field(default=0, ge=0, le=3)  # extra spaces per Run
    sneak: bool = False  # enemies do not follow when you leave their space
    free_rerolls: int = Field(default=0, ge=0, le=3)  # rerolls per roll that cost no stress
    rest_bonus: int = Field(default=0, ge=0, le=3)  # extra steps healed per Rest
    armor: int = Field(default=0, ge=0, le=3)  # wounds ignored per enemy attack
    elder_shield: bool = False  # elder signs on dice rolled against you cancel a success each
    calm: int = Field(default=0, ge=0, le=3)  # tentacles ignored per roll


class SkillLevel(Strict):
    text: str = Field(min_length=1, max_length=160)
    replaces: bool = False  # True: this level's modifiers replace the levels below
    mods: Modifiers = Modifiers()


class Skill(Strict):
    name: str
    common: bool
    levels: list[SkillLevel] = Field(min_length=1, max_length=6)  # exactly `rules.skill_cap`, checked below


class Investigator(Strict):
    name: str
    title: str
    blurb: str = ""
    health: int = Field(ge=2, le=12)  # wounds that kill
    stress: int = Field(ge=1, le=10)  # maximum stress
    sanity: int = Field(ge=4, le=20)  # the skull's position on the sanity track
    thresholds: list[int] = Field(min_length=4, max_length=6)
    bonus_thresholds: list[int] = Field(min_length=4, max_length=4)
    skills: list[str] = Field(min_length=3, max_length=3)

    @model_validator(mode="after")
    def _track(self) -> "Investigator":
        if sorted(set(self.thresholds)) != self.thresholds:
            raise ValueError("thresholds must be strictly increasing")
        if not all(0 < t < self.sanity for t in self.thresholds):
            raise ValueError("thresholds must lie between the start and the skull")
        if not set(self.bonus_thresholds) <= set(self.thresholds):
            raise ValueError("bonus_thresholds must be thresholds")
        return self


class EnemyAbility(Strict):
    """At most one ability, in the closed vocabulary."""

    kind: Literal["ignite", "frenzy", "drain", "regenerate"]
    # ignite: each elder sign it rolls puts a Fire token on the defender
    # frenzy: each elder sign it rolls counts as a success
    # drain: each elder sign it rolls adds 1 stress to the defender
    # regenerate: heals all its wounds at the end of each turn
    text: str


class Enemy(Strict):
    name: str
    category: Literal["cultist", "monster"]
    health: int = Field(ge=1, le=20)
    standard: int = Field(ge=0, le=6)
    bonus: int = Field(default=0, ge=0, le=6)
    figures: int = Field(ge=1, le=10)
    ability: EnemyAbility | None = None


class Token(Strict):
    name: str
    text: str = ""


class Half(Strict):
    """One side of a Discovery card, claimed under an investigator's board."""

    name: str
    kind: Literal["item", "companion", "condition"]
    text: str = Field(max_length=160)
    mods: Modifiers = Modifiers()
    skill: str | None = None  # a Companion's skill level while held
    health: int | None = Field(default=None, ge=1, le=6)  # a Companion's wounds before it is lost


class Discovery(Strict):
    name: str
    text: str = Field(min_length=1, max_length=300)
    effect: list[AnyOp] = Field(default_factory=list)
    left: Half | None = None
    right: Half | None = None


class SummonLine(Strict):
    gate: GateColor
    enemy: str  # an enemy id, or "minion"


class Mythos(Strict):
    name: str
    text: str = Field(max_length=300)
    summoning: bool = False
    effect: list[AnyOp] = Field(default_factory=list)
    summons: list[SummonLine] = Field(default_factory=list, max_length=3)


class Insanity(Strict):
    name: str
    text: str = Field(max_length=200)
    activate: list[AnyOp] = Field(min_length=1)


class Stage(Strict):
    name: str
    text: str = Field(max_length=300)
    reveal: list[AnyOp] = Field(default_factory=list)
    on_advance: list[AnyOp] = Field(default_factory=list)
    end_of_turn: list[AnyOp] = Field(default_factory=list)
    health: int | None = Field(default=None, ge=1, le=30)
    standard: int = Field(default=0, ge=0, le=6)
    bonus: int = Field(default=0, ge=0, le=6)


class ElderOne(Strict):
    name: str
    blurb: str = ""
    minion: str
    track: int = Field(default=8, ge=4, le=12)
    first_red: int = Field(default=5, ge=2, le=11)
    stages: list[Stage] = Field(min_length=4, max_length=4)
    mythos: list[Mythos] = Field(min_length=8, max_length=8)


class Requirement(Strict):
    at: list[str] = Field(default_factory=list)  # space ids; empty means anywhere
    safe: bool = False
    fire_here: bool = False
    space_token: str | None = None  # a token of this kind on your space
    tokens: dict[str, int] = Field(default_factory=dict)  # tokens you hold


class EpisodeAction(Strict):
    name: str
    text: str = Field(max_length=200)
    requires: Requirement = Requirement()
    effect: list[AnyOp] = Field(min_length=1)


class Ritual(Strict):
    name: str
    text: str = Field(max_length=300)
    needed: int = Field(ge=1, le=12)


class Space(Strict):
    id: str
    name: str


class Tile(Strict):
    id: str
    name: str
    pos: list[int] = Field(min_length=2, max_length=2)  # column, row on the table
    spaces: list[Space] = Field(min_length=1, max_length=3)


class Placement(Strict):
    enemy: str
    space: str


class Map(Strict):
    tiles: list[Tile] = Field(min_length=1)
    passages: list[list[str]]  # pairs of spaces whose touching sides both show a passage
    staircases: list[str] = Field(default_factory=list, max_length=2)
    tunnels: list[str] = Field(default_factory=list, max_length=2)
    gates: dict[GateColor, str]
    start: str
    enemies: list[Placement] = Field(default_factory=list)
    fire: dict[str, int] = Field(default_factory=dict)
    tokens: dict[str, dict[str, int]] = Field(default_factory=dict)  # space -> token -> count


class Episode(Strict):
    name: str
    blurb: str = ""
    difficulty: int = Field(ge=1, le=6)
    monsters: list[str] = Field(min_length=1)
    map: Map
    ritual: Ritual
    actions: list[EpisodeAction] = Field(min_length=2, max_length=2)
    on_advance: list[AnyOp] = Field(default_factory=list)
    mythos: list[Mythos] = Field(min_length=8, max_length=8)
    discovery: list[Discovery] = Field(min_length=15, max_length=15)


class Rules(Strict):
    """Table-wide numbers of the main game (`main/rules.toml`)."""

    actions: int = Field(ge=1, le=5)
    run: int = Field(ge=1, le=6)
    rest: int = Field(ge=1, le=6)
    fire_tokens: int = Field(ge=0, le=20)
    wound_tokens: int = Field(ge=0, le=60)
    seats_max: int = Field(ge=1, le=5)
    dice: int = Field(ge=1, le=6)
    summoning_symbols: int = Field(ge=1, le=16)
    skill_cap: int = Field(ge=1, le=6)
    insanity_cards: int = Field(ge=1, le=40)
    default_elder_one: str
    default_investigators: int = Field(ge=1, le=5)


class MainContent(Strict):
    rules: Rules
    dice: Dice
    skills: dict[str, Skill]
    investigators: dict[str, Investigator]
    enemies: dict[str, Enemy]
    episodes: dict[str, Episode]
    elder_ones: dict[str, ElderOne]
    insanity: dict[str, Insanity]
    tokens: dict[str, Token]

    def adjacency(self, episode: str) -> dict[str, list[str]]:
        return build_adjacency(self.episodes[episode].map)


def build_adjacency(m: Map) -> dict[str, list[str]]:
    """Spaces are adjacent through passages on both sides, or a shared staircase or tunnel pair."""
    adj: dict[str, set[str]] = {s.id: set() for t in m.tiles for s in t.spaces}
    pairs = [tuple(p) for p in m.passages]
    for tokens in (m.staircases, m.tunnels):
        if len(tokens) == 2:
            pairs.append((tokens[0], tokens[1]))
    for a, b in pairs:
        adj[a].add(b)
        adj[b].add(a)
    return {k: sorted(v) for k, v in adj.items()}
