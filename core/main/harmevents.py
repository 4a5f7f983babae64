"""Events of what befalls an investigator: stress, wounds and harm kept off, sanity lost and what
its track gives, madness and death, fire on their board, healing, tokens held and cards lost.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

from .eventparts import Cause


class Healed(TypedDict):
    type: Literal["healed"]
    inv: int
    name: str
    wounds: int
    stress: int
    why: str
    cause: Cause | None


class TokensChanged(TypedDict):
    type: Literal["tokens_changed"]
    inv: int
    name: str
    token: str
    token_name: str
    n: int  # how many the investigator holds now
    change: int
    cause: Cause | None


class StressTaken(TypedDict):
    type: Literal["stress_taken"]
    inv: int
    name: str
    n: int
    stress: int
    why: str
    cause: Cause | None


class Burning(TypedDict):
    type: Literal["burning"]
    inv: int
    name: str
    tokens: int


class Wounded(TypedDict):
    type: Literal["wounded"]
    inv: int
    name: str
    n: int
    wounds: int
    health: int
    source: str | None
    cause: Cause | None


class HarmIgnored(TypedDict):
    """Harm an investigator's own skills or held cards keep off: wounds of an attack (`armor`),
    successes of an attack cancelled by elder signs (`elder_signs`), tentacles of a roll (`calm`)."""

    type: Literal["harm_ignored"]
    inv: int
    name: str
    by: Literal["armor", "elder_signs", "calm"]
    n: int  # wounds (armor, elder_signs) or tentacles (calm) kept off
    sources: list[str]  # the skills and held cards that do it, by name
    cause: Cause | None  # the enemy attacking, or the roll whose tentacles these are


class SanityLost(TypedDict):
    type: Literal["sanity_lost"]
    inv: int
    name: str
    n: int
    sanity: int
    skull: int
    cause: Cause | None


class ThresholdReached(TypedDict):
    type: Literal["threshold_reached"]
    inv: int
    name: str
    at: int
    ignored: int


class SkillLeveled(TypedDict):
    type: Literal["skill_leveled"]
    inv: int
    name: str
    skill: str
    skill_name: str
    level: int


class InvestigatorDied(TypedDict):
    type: Literal["investigator_died"]
    inv: int
    name: str
    cause: Literal["killed", "madness"]
    space: str


class FireCaught(TypedDict):
    type: Literal["fire_caught"]
    inv: int
    name: str
    tokens: int
    stand_ins: int
    frm: str | None  # the burning space left behind, if that was the cause
    cause: Cause | None


class FireOut(TypedDict):
    type: Literal["fire_out"]
    inv: int
    name: str
    tokens: int


class BonusDieGained(TypedDict):
    type: Literal["bonus_die_gained"]
    inv: int
    name: str
    bonus: int


class InsanityActivated(TypedDict):
    type: Literal["insanity_activated"]
    inv: int
    name: str
    card: str
    text: str


class CompanionWounded(TypedDict):
    type: Literal["companion_wounded"]
    inv: int
    name: str
    card: str
    wounds: int
    health: int | None


class CardLost(TypedDict):
    type: Literal["card_lost"]
    inv: int
    name: str
    card: str
    reason: Literal["wounds", "death", "effect"]  # a Companion's wounds, its holder's death, a card's effect
    cause: Cause | None
