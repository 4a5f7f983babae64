"""The odds of a main-game roll, from the real dice faces and the symbol changes in force.

What a face counts depends on the roll (RULES.md, Dice): on a check its successes; on an
attack its successes, and its elder signs too for an attacker whose skills or cards say so;
on an enemy's attack the successes (plus elder signs for a frenzied enemy, minus them each
for a defender whose elder signs cancel a success), less the defender's armour; on the Fire
its successes (less its elder signs for that same defender: Fire rolls against them too). `roll_odds` reads all of it from a seat's view of a roll being decided (the
dice prompt) and the content, so the interface and the search bot share one calculation.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from ..odds import Die, Goal, after_reroll, at_least, best_chance, distribution
from .content import MainContent
from .view import InvestigatorView, MainView, RollView

Purpose = Literal["attack", "defend", "check", "fire"]


def symbols(face: str) -> list[str]:
    return face.split("+") if face else []


def face_value(face: str, purpose: str, mods: dict[str, Any], frenzy: bool = False) -> int:
    """What one face counts on this kind of roll."""
    sy = symbols(face)
    value = sy.count("success")
    elders = sy.count("elder")
    if purpose == "attack" and mods.get("elder_hits"):
        value += elders
    if purpose == "defend" and frenzy:
        value += elders
    if purpose in ("defend", "fire") and mods.get("elder_shield"):
        value -= elders
    return value


def die_of(faces: list[str], purpose: str, mods: dict[str, Any], frenzy: bool = False) -> Die:
    return tuple(face_value(f, purpose, mods, frenzy) for f in faces)


@dataclass(frozen=True, slots=True)
class RerollOdds:
    die: int  # index into the roll
    stress: int  # what it costs
    chance: Fraction  # of the goal if this die is rerolled once and the dice then kept
    sanity: Fraction  # of losing sanity to the tentacles then


@dataclass(frozen=True, slots=True)
class RollOdds:
    """What a roll being decided is worth: now, after each single reroll, and with the best rerolls."""

    purpose: Purpose
    goal: Goal  # reach: `need` or more is what the roller wants; avoid: `need` or more hurts them
    need: int
    total: int  # what the dice count now
    keep: Fraction  # chance of the goal if the dice are kept as they are
    keep_sanity: Fraction  # 1 if the tentacles showing cost sanity (more than the roller ignores), else 0
    rerolls: list[RerollOdds]
    best: Fraction  # with up to `more` rerolls, played as well as possible
    more: int  # rerolls the roller can still make (free ones plus stress left)
    fresh: list[Fraction]  # P(total = k) for a new roll of the same dice, before any reroll
    fresh_chance: Fraction  # of the goal on a new roll, kept as it falls


def roll_odds(view: MainView, c: MainContent) -> RollOdds | None:
    """The odds of the roll the view's dice prompt is deciding; None when no roll is being decided."""
    roll = view["last_roll"]
    prompt = view["prompt"]
    if roll is None or not roll["deciding"] or prompt is None or prompt["kind"] != "reroll":
        return None
    roller = view["investigators"][roll["inv"]]
    purpose: Purpose = roll["purpose"]  # type: ignore[assignment]  # the view's purposes are these four
    mods = roller["mods"]  # skills at their held levels and the held cards' own
    frenzy = purpose == "defend" and _frenzy(c, roll)
    dice = [die_of(c.dice.standard if kind == "standard" else c.dice.bonus, purpose, mods, frenzy) for kind, _ in roll["dice"]]
    faces = [_face_index(c.dice.standard if kind == "standard" else c.dice.bonus, face) for kind, face in roll["dice"]]
    goal: Goal
    offset = 0
    if purpose == "check":
        goal, need = "reach", roll["need"] or 0
    elif purpose == "attack":
        goal, need = "reach", _health_left(view, roller, roll)
    else:
        goal, need = "avoid", 1
        if purpose == "defend":
            offset = -int(mods.get("armor", 0))
    total = max(0, sum(d[f] for d, f in zip(dice, faces)) + offset)
    keep = Fraction(int((total >= need) == (goal == "reach")))
    # The tentacles: each beyond the ones the roller ignores costs a sanity, whatever the roll is for.
    tentacles = [tuple(symbols(f).count("tentacle") for f in (c.dice.standard if kind == "standard" else c.dice.bonus))
                 for kind, _ in roll["dice"]]
    calm = int(mods.get("calm", 0))
    rerolls = []
    for option in prompt["options"]:
        data = option["data"]
        if not data.get("keep"):
            n = data["die"]
            rerolls.append(RerollOdds(n, data["stress"], after_reroll(dice, faces, n, need, goal=goal, offset=offset),
                                      after_reroll(tentacles, faces, n, calm + 1)))
    more = roll["free"] + max(0, roller["stress_max"] - roller["stress"]) if rerolls else 0
    fresh = distribution(dice, offset)
    chance = at_least(fresh, need)
    return RollOdds(
        purpose=purpose, goal=goal, need=need, total=total, keep=keep, rerolls=rerolls,
        keep_sanity=Fraction(int(sum(t[f] for t, f in zip(tentacles, faces)) > calm)),
        best=best_chance(dice, need, more, faces=faces, goal=goal, offset=offset), more=more,
        fresh=fresh, fresh_chance=chance if goal == "reach" else 1 - chance,
    )


def _face_index(faces: list[str], face: str) -> int:
    return faces.index(face)


def _frenzy(c: MainContent, roll: RollView) -> bool:
    enemy = next((e for e in c.enemies.values() if e.name == roll["enemy"]), None)
    return enemy is not None and enemy.ability is not None and enemy.ability.kind == "frenzy"


def _health_left(view: MainView, roller: InvestigatorView, roll: RollView) -> int:
    """Wounds the attacked enemies can still take (the enemies of those names in the attacker's space)."""
    left = 0
    names = list(roll["target_names"])
    for enemy in view["enemies"]:
        if enemy["space"] == roller["space"] and enemy["name"] in names:
            names.remove(enemy["name"])
            left += max(0, enemy["health"] - enemy["wounds"])
    return max(1, left)
