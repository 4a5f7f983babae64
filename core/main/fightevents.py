"""Events of dice and enemies: rolls, rerolls and the dice kept, attacks both ways and what they
do, enemies' abilities, enemies moving, summoned or not, and the Elder One's Stages defeated.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

from .eventparts import Cause


class EnemyMoved(TypedDict):
    type: Literal["enemy_moved"]
    figure: str
    kind: str
    name: str
    to: str
    space_name: str
    cause: Cause | None


class AttackDeclared(TypedDict):
    type: Literal["attack_declared"]
    inv: int
    name: str
    targets: list[str]
    target_names: list[str]


class EnemyWounded(TypedDict):
    type: Literal["enemy_wounded"]
    inv: int
    figure: str
    kind: str
    name: str
    n: int
    wounds: int  # may pass `health`: the excess is lost
    health: int


class EnemyKilled(TypedDict):
    type: Literal["enemy_killed"]
    inv: int
    figure: str
    kind: str
    name: str
    space: str
    space_name: str


class StageDefeated(TypedDict):
    type: Literal["stage_defeated"]
    name: str
    elder: str
    stage: int
    stages: int  # how many Stages the Elder One has (the last is the Final Stage)
    health: int
    excess: int


class DiceRolled(TypedDict):
    type: Literal["dice_rolled"]
    inv: int
    name: str  # the investigator the roll is made by or against
    purpose: Literal["attack", "defend", "check", "fire"]
    dice: list[list[str]]
    enemy: str | None  # defend: the enemy attacking
    target_names: list[str]  # attack: the enemies attacked
    need: int | None  # check: the successes needed
    cause: Cause | None  # check: the card (or Stage) asking for it
    free: int  # rerolls that cost no stress


class DieRerolled(TypedDict):
    type: Literal["die_rerolled"]
    inv: int
    die: int
    bonus: bool
    was: str
    face: str
    cost: int  # stress paid: 0 for a free reroll
    dice: list[list[str]]


class DiceKept(TypedDict):
    type: Literal["dice_kept"]
    inv: int
    name: str
    purpose: Literal["attack", "defend", "check", "fire"]
    dice: list[list[str]]
    successes: int
    tentacles: int
    elders: int


class EnemyAttacks(TypedDict):
    type: Literal["enemy_attacks"]
    figure: str
    kind: str
    name: str
    inv: int
    target: str
    standard: int
    bonus: int


class AttackMissed(TypedDict):
    type: Literal["attack_missed"]
    inv: int
    figure: str
    kind: str
    name: str


class AbilityUsed(TypedDict):
    type: Literal["ability_used"]
    kind: str
    name: str  # the enemy's
    ability: str
    text: str
    n: int  # elder signs rolled (1 for a regeneration)
    inv: int | None  # the investigator it was rolled against


class Summoned(TypedDict):
    type: Literal["summoned"]
    figure: str
    kind: str
    name: str
    space: str
    space_name: str
    cause: Cause | None


class SummonSkipped(TypedDict):
    type: Literal["summon_skipped"]
    kind: str
    name: str
    space: str
    space_name: str
    cause: Cause | None


class EnemyRegenerated(TypedDict):
    type: Literal["enemy_regenerated"]
    figure: str
    name: str
    wounds: int  # healed
