"""Loading the main game's content: every file validated against its model, then the cross
references between them (an episode naming an enemy or a space that does not exist, a map that
is not connected, an effect out of place), each problem named by file, entry and field.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from typing_extensions import TypedDict

from ..content import describe_validation
from ..errors import ContentError
from .content import (
    Dice,
    ElderOne,
    Enemy,
    Episode,
    Insanity,
    Investigator,
    MainContent,
    Rules,
    Skill,
    Token,
    build_adjacency,
)
from .ops import (
    ClaimOp,
    FireSpaceOp,
    IfHoldsOp,
    IfSpaceTokenOp,
    IfTokensOp,
    MoveEnemiesOp,
    Op,
    PlaceElderOp,
    SpaceTokenOp,
    SummonOp,
    TokenOp,
    walk_ops,
)

M = TypeVar("M", bound=BaseModel)
COLORS = ("red", "yellow", "blue")


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
