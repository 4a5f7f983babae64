"""Content models for the main game, validated with pydantic when loaded.

Numbers and effects are data; the core interprets a closed vocabulary and no
content file can run code. Cross references (an episode naming an enemy or a
space that does not exist, a map that is not connected) are checked here too.
"""

from __future__ import annotations

from collections import deque
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..content import describe_validation
from ..errors import ContentError

GateColor = Literal["red", "yellow", "blue"]
FACE_SYMBOLS = ("success", "tentacle", "elder")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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
    levels: list[SkillLevel] = Field(min_length=4, max_length=4)


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


class Episode(Strict):
    name: str
    blurb: str = ""
    difficulty: int = Field(ge=1, le=6)
    monsters: list[str] = Field(min_length=1)
    map: Map


class Rules(Strict):
    actions: int = Field(ge=1, le=5)
    run: int = Field(ge=1, le=6)
    rest: int = Field(ge=1, le=6)
    fire_tokens: int = Field(ge=0, le=20)
    wound_tokens: int = Field(ge=0, le=60)
    seats_max: int = Field(ge=1, le=5)


class MainContent(Strict):
    rules: Rules
    dice: Dice
    skills: dict[str, Skill]
    investigators: dict[str, Investigator]
    enemies: dict[str, Enemy]
    episodes: dict[str, Episode]

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


def _check_episode(eid: str, ep: Episode, enemies: dict[str, Enemy]) -> list[str]:
    where = f"episodes/{eid}.toml"
    out: list[str] = []
    m = ep.map
    ids = [s.id for t in m.tiles for s in t.spaces]
    known = set(ids)
    if len(known) != len(ids):
        out.append(f"{where}: map.tiles: space ids repeat")
    for i, p in enumerate(m.passages):
        if len(p) != 2 or p[0] == p[1]:
            out.append(f"{where}: map.passages.{i}: a passage joins two different spaces")
        for s in p:
            if s not in known:
                out.append(f"{where}: map.passages.{i}: no space {s!r}")
    for name in ("staircases", "tunnels"):
        for s in getattr(m, name):
            if s not in known:
                out.append(f"{where}: map.{name}: no space {s!r}")
    for color, s in m.gates.items():
        if s not in known:
            out.append(f"{where}: map.gates.{color}: no space {s!r}")
    if set(m.gates) != {"red", "yellow", "blue"}:
        out.append(f"{where}: map.gates: needs exactly red, yellow and blue")
    if m.start not in known:
        out.append(f"{where}: map.start: no space {m.start!r}")
    for i, pl in enumerate(m.enemies):
        if pl.enemy not in enemies:
            out.append(f"{where}: map.enemies.{i}.enemy: no enemy {pl.enemy!r}")
        if pl.space not in known:
            out.append(f"{where}: map.enemies.{i}.space: no space {pl.space!r}")
    for s in m.fire:
        if s not in known:
            out.append(f"{where}: map.fire: no space {s!r}")
    for i, mon in enumerate(ep.monsters):
        if mon not in enemies:
            out.append(f"{where}: monsters.{i}: no enemy {mon!r}")
    if out:
        return out
    adj = build_adjacency(m)
    seen = {m.start}
    todo = deque([m.start])
    while todo:
        for nxt in adj[todo.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    if seen != known:
        out.append(f"{where}: map: spaces not connected to the start: {', '.join(sorted(known - seen))}")
    return out


def load_main(docs: dict[str, dict]) -> MainContent:
    """Validate the `main/` folder; raise ContentError naming file, entry and field."""
    problems: list[str] = []

    def one(path: str, model: type[BaseModel], data: dict, entry: str = ""):
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            problems.extend(describe_validation(path, entry, exc))
            return None

    def table(path: str, model: type[BaseModel]) -> dict:
        doc = docs.get(path)
        if doc is None:
            problems.append(f"{path}: missing")
            return {}
        out = {}
        for key, val in doc.items():
            if not isinstance(val, dict):
                problems.append(f"{path}: {key}: expected a table")
                continue
            item = one(path, model, val, key)
            if item is not None:
                out[key] = item
        return out

    def folder(prefix: str, model: type[BaseModel]) -> dict:
        out = {}
        for path, doc in sorted(docs.items()):
            if path.startswith(prefix):
                key = path[len(prefix):].removesuffix(".toml")
                item = one(path, model, doc)
                if item is not None:
                    out[key] = item
        if not out:
            problems.append(f"{prefix}: no entries")
        return out

    rules = one("main/rules.toml", Rules, docs.get("main/rules.toml", {}))
    dice = one("main/dice.toml", Dice, docs.get("main/dice.toml", {}))
    skills = table("main/skills.toml", Skill)
    enemies = table("main/enemies.toml", Enemy)
    investigators = folder("main/investigators/", Investigator)
    episodes = folder("main/episodes/", Episode)
    for iid, inv in investigators.items():
        for i, sk in enumerate(inv.skills):
            if sk not in skills:
                problems.append(f"main/investigators/{iid}.toml: skills.{i}: no skill {sk!r}")
        if sum(1 for sk in inv.skills if sk in skills and not skills[sk].common) != 1:
            problems.append(f"main/investigators/{iid}.toml: skills: needs exactly one unique skill and two common ones")
    for eid, ep in episodes.items():
        problems.extend(_check_episode(eid, ep, enemies))
    if problems or rules is None or dice is None:
        raise ContentError(problems)
    return MainContent(rules=rules, dice=dice, skills=skills, investigators=investigators, enemies=enemies, episodes=episodes)
