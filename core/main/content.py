"""Content models for the main game, validated with pydantic when loaded.

Numbers and effects are data; the core interprets a closed vocabulary and no
content file can run code. Cross references (an episode naming an enemy or a
space that does not exist, a map that is not connected) are checked here too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from typing_extensions import TypedDict

from ..content import describe_validation
from ..errors import ContentError

GateColor = Literal["red", "yellow", "blue"]
M = TypeVar("M", bound=BaseModel)
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



Who = Literal["you", "all", "here", "others_here"]
# A place: your space, a gate by color, the starting space, or a space id (episodes only).
Where = str


class Op(Strict):
    """Base of every effect operation; `op` is the discriminator."""


class StressOp(Op):
    op: Literal["stress"]
    n: int = Field(ge=1, le=10)
    who: Who = "you"


class WoundOp(Op):
    op: Literal["wound"]
    n: int = Field(ge=1, le=10)
    who: Who = "you"


class SanityOp(Op):
    op: Literal["sanity"]
    n: int = Field(ge=1, le=10)
    who: Who = "you"


class HealOp(Op):
    op: Literal["heal"]
    wounds: int = Field(default=0, ge=0, le=10)
    stress: int = Field(default=0, ge=0, le=10)
    who: Who = "you"


class BurnOp(Op):
    op: Literal["burn"]  # Fire tokens onto investigator boards
    n: int = Field(ge=1, le=8)
    who: Who = "you"


class FireSpaceOp(Op):
    op: Literal["fire_space"]  # Fire tokens onto a space
    n: int = Field(ge=1, le=8)
    at: Where = "here"


class DouseOp(Op):
    op: Literal["douse"]  # remove Fire tokens from your space or a neighbouring one (you choose)
    n: int = Field(ge=1, le=8)
    near: bool = False


class SummonOp(Op):
    op: Literal["summon"]
    enemy: str  # an enemy id, or "minion" for the Elder One's minion
    at: Where


class MoveEnemiesOp(Op):
    op: Literal["move_enemies"]  # towards the active investigator, by a shortest path
    which: Literal["closest", "all"] = "closest"
    kind: str = "any"  # "any", "cultist", "monster", or an enemy id
    steps: int = Field(default=1, ge=1, le=6)


class TokenOp(Op):
    op: Literal["token"]  # gain (or lose, when negative) tokens of a kind
    token: str
    n: int = Field(ge=-10, le=10)
    who: Who = "you"


class SpaceTokenOp(Op):
    op: Literal["space_token"]
    token: str
    n: int = Field(ge=-10, le=10)
    at: Where = "here"


class RitualOp(Op):
    op: Literal["ritual"]  # progress towards disrupting the ritual
    n: int = Field(default=1, ge=1, le=10)


class PlaceElderOp(Op):
    op: Literal["place_elder"]  # put (or move) the Elder One figure
    at: Where


class KeepMythosOp(Op):
    op: Literal["keep_mythos"]  # keep the latest discarded Mythos card; its effect returns each of your turns


class ClaimOp(Op):
    op: Literal["claim"]
    side: Literal["left", "right"]


class DiscardCardOp(Op):
    op: Literal["discard_card"]  # lose a held card of this kind (you choose which)
    kind: Literal["item", "companion", "condition", "any"] = "any"


class RollOp(Op):
    op: Literal["roll"]  # make a roll; `need` successes or more succeeds
    need: int = Field(ge=1, le=10)
    success: list["AnyOp"] = Field(default_factory=list)
    fail: list["AnyOp"] = Field(default_factory=list)


class Choice(Strict):
    label: str = Field(min_length=1, max_length=90)
    ops: list["AnyOp"] = Field(default_factory=list)


class ChooseOp(Op):
    op: Literal["choose"]
    options: list[Choice] = Field(min_length=2, max_length=6)


class IfHoldsOp(Op):
    op: Literal["if_holds"]  # a card by name, or any card of a kind
    card: str | None = None
    kind: Literal["item", "companion", "condition"] | None = None
    then: list["AnyOp"] = Field(default_factory=list)
    otherwise: list["AnyOp"] = Field(default_factory=list)


class IfSpaceTokenOp(Op):
    op: Literal["if_space_token"]  # a token of this kind (at least `at_least`) on a place
    token: str
    at_least: int = Field(default=1, ge=1, le=10)
    at: Where = "here"
    then: list["AnyOp"] = Field(default_factory=list)
    otherwise: list["AnyOp"] = Field(default_factory=list)


class IfTokensOp(Op):
    op: Literal["if_tokens"]  # every investigator in `who` holding at least `at_least` tokens
    token: str
    at_least: int = Field(ge=1, le=10)
    who: Who = "you"
    then: list["AnyOp"] = Field(default_factory=list)


AnyOp = Annotated[
    StressOp | WoundOp | SanityOp | HealOp | BurnOp | FireSpaceOp | DouseOp | SummonOp | MoveEnemiesOp
    | TokenOp | SpaceTokenOp | RitualOp | PlaceElderOp | KeepMythosOp | ClaimOp | DiscardCardOp
    | RollOp | ChooseOp | IfHoldsOp | IfTokensOp | IfSpaceTokenOp,
    Field(discriminator="op"),
]
for _m in (RollOp, Choice, ChooseOp, IfHoldsOp, IfTokensOp, IfSpaceTokenOp):
    _m.model_rebuild()


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


COLORS = ("red", "yellow", "blue")


def walk_ops(ops: Sequence[Op], path: str) -> Iterator[tuple[str, Op]]:
    """Yield (path, op) for every op, nested ones included."""
    for n, op in enumerate(ops):
        here = f"{path}.{n}"
        yield here, op
        for attr in ("success", "fail", "then", "otherwise"):
            if hasattr(op, attr):
                yield from walk_ops(getattr(op, attr), f"{here}.{attr}")
        if isinstance(op, ChooseOp):
            for m, choice in enumerate(op.options):
                yield from walk_ops(choice.ops, f"{here}.options.{m}.ops")


class Refs(TypedDict):
    """What effects may name: the content's enemies and tokens, the places of a map, card halves."""

    enemies: dict[str, Enemy]
    tokens: dict[str, Token]
    spaces: set[str] | None
    card_names: set[str]


def check_ops(where: str, path: str, ops: Sequence[Op], *, enemies: dict[str, Enemy], tokens: dict[str, Token],
              spaces: set[str] | None, card_names: set[str], discovery: bool = False, stage: bool = False) -> list[str]:
    """Cross references inside effects: enemies, tokens, places, card names, and ops out of place."""
    out = []
    for at, op in walk_ops(ops, path):
        if isinstance(op, SummonOp) and op.enemy != "minion" and op.enemy not in enemies:
            out.append(f"{where}: {at}.enemy: no enemy {op.enemy!r}")
        if isinstance(op, (TokenOp, SpaceTokenOp, IfTokensOp, IfSpaceTokenOp)) and op.token not in tokens:
            out.append(f"{where}: {at}.token: no token {op.token!r}")
        if isinstance(op, (FireSpaceOp, SummonOp, SpaceTokenOp, PlaceElderOp, IfSpaceTokenOp)):
            fine = op.at in ("here", "start", *COLORS) or (spaces is not None and op.at in spaces)
            if not fine:
                out.append(f"{where}: {at}.at: no place {op.at!r} (here, start, a gate color{', or a space id' if spaces else ''})")
        if isinstance(op, MoveEnemiesOp) and op.kind not in ("any", "cultist", "monster", "minion") and op.kind not in enemies:
            out.append(f"{where}: {at}.kind: no enemy {op.kind!r}")
        if isinstance(op, IfHoldsOp) and op.card is not None and op.card not in card_names:
            out.append(f"{where}: {at}.card: no card half named {op.card!r}")
        if isinstance(op, ClaimOp) and not discovery:
            out.append(f"{where}: {at}: only Discovery cards can claim")
        if isinstance(op, PlaceElderOp) and not stage:
            out.append(f"{where}: {at}: only Elder One stages place the Elder One")
    return out


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


def load_main(docs: dict[str, dict[str, Any]]) -> MainContent:
    """Validate the `main/` folder; raise ContentError naming file, entry and field."""
    problems: list[str] = []

    def one(path: str, model: type[M], data: dict[str, Any], entry: str = "") -> M | None:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            problems.extend(describe_validation(path, entry, exc))
            return None

    def table(path: str, model: type[M]) -> dict[str, M]:
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

    def folder(prefix: str, model: type[M]) -> dict[str, M]:
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
    elder_ones = folder("main/elder_ones/", ElderOne)
    insanity = table("main/insanity.toml", Insanity)
    tokens = table("main/tokens.toml", Token)
    if rules is not None:
        if insanity and len(insanity) != rules.insanity_cards:
            problems.append(f"main/insanity.toml: needs {rules.insanity_cards} insanity cards (rules.insanity_cards), has {len(insanity)}")
        for sid, skill in skills.items():
            if len(skill.levels) != rules.skill_cap:
                problems.append(f"main/skills.toml: {sid}.levels: needs {rules.skill_cap} levels (rules.skill_cap), has {len(skill.levels)}")
        if elder_ones and rules.default_elder_one not in elder_ones:
            problems.append(f"main/rules.toml: default_elder_one: no Elder One {rules.default_elder_one!r}")
    card_names = {h.name for ep in episodes.values() for d in ep.discovery for h in (d.left, d.right) if h is not None}
    for eid, ep in episodes.items():
        where = f"main/episodes/{eid}.toml"
        spaces = {sp.id for t in ep.map.tiles for sp in t.spaces}
        refs: Refs = {"enemies": enemies, "tokens": tokens, "spaces": spaces, "card_names": card_names}
        problems.extend(check_ops(where, "on_advance", ep.on_advance, **refs))
        for n, card in enumerate(ep.mythos):
            problems.extend(check_ops(where, f"mythos.{n}.effect", card.effect, **refs))
            for m, line in enumerate(card.summons):
                if line.enemy != "minion" and line.enemy not in enemies:
                    problems.append(f"{where}: mythos.{n}.summons.{m}.enemy: no enemy {line.enemy!r}")
        for n, found in enumerate(ep.discovery):
            problems.extend(check_ops(where, f"discovery.{n}.effect", found.effect, discovery=True, **refs))
            for side in ("left", "right"):
                half = getattr(found, side)
                if half is not None and half.skill is not None and half.skill not in skills:
                    problems.append(f"{where}: discovery.{n}.{side}.skill: no skill {half.skill!r}")
                if half is not None and half.kind == "companion" and half.health is None:
                    problems.append(f"{where}: discovery.{n}.{side}.health: a Companion needs a health")
        for n, act in enumerate(ep.actions):
            problems.extend(check_ops(where, f"actions.{n}.effect", act.effect, **refs))
            for sp in act.requires.at:
                if sp not in spaces:
                    problems.append(f"{where}: actions.{n}.requires.at: no space {sp!r}")
            for tok in [*act.requires.tokens, *([act.requires.space_token] if act.requires.space_token else [])]:
                if tok not in tokens:
                    problems.append(f"{where}: actions.{n}.requires: no token {tok!r}")
        for sp, held in ep.map.tokens.items():
            if sp not in spaces:
                problems.append(f"{where}: map.tokens: no space {sp!r}")
            for tok in held:
                if tok not in tokens:
                    problems.append(f"{where}: map.tokens.{sp}: no token {tok!r}")
    for oid, eo in elder_ones.items():
        where = f"main/elder_ones/{oid}.toml"
        eo_refs: Refs = {"enemies": enemies, "tokens": tokens, "spaces": None, "card_names": card_names}
        if eo.minion not in enemies:
            problems.append(f"{where}: minion: no enemy {eo.minion!r}")
        if eo.first_red >= eo.track:
            problems.append(f"{where}: first_red: must come before the last space ({eo.track})")
        for n, st in enumerate(eo.stages):
            for part in ("reveal", "on_advance", "end_of_turn"):
                problems.extend(check_ops(where, f"stages.{n}.{part}", getattr(st, part), stage=True, **eo_refs))
            if n == 0 and st.health is not None:
                problems.append(f"{where}: stages.0.health: Stage 1 cannot be wounded")
            if n > 0 and st.health is None:
                problems.append(f"{where}: stages.{n}.health: Stages 2, 3 and Final need a health")
        if not any(isinstance(op, PlaceElderOp) for _, op in walk_ops(eo.stages[1].reveal, "")):
            problems.append(f"{where}: stages.1.reveal: Stage 2 must place the Elder One (place_elder)")
        for n, card in enumerate(eo.mythos):
            problems.extend(check_ops(where, f"mythos.{n}.effect", card.effect, **eo_refs))
            for m, line in enumerate(card.summons):
                if line.enemy != "minion" and line.enemy not in enemies:
                    problems.append(f"{where}: mythos.{n}.summons.{m}.enemy: no enemy {line.enemy!r}")
    for iid, madness in insanity.items():
        problems.extend(check_ops("main/insanity.toml", f"{iid}.activate", madness.activate, enemies=enemies, tokens=tokens, spaces=None, card_names=card_names))
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
    return MainContent(
        rules=rules, dice=dice, skills=skills, investigators=investigators, enemies=enemies, episodes=episodes,
        elder_ones=elder_ones, insanity=insanity, tokens=tokens,
    )
