"""Every event of the main game, declared once with its fields.

`apply` returns these (as `Event`s: the type plus the other fields); the Log
narrates them, tests assert on them and `cthulhu sim --events` writes them.
Names are ids or display names as their field says; `inv` is an investigator's
index, `figure` an enemy figure's id, `space` a space id.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict


class HalfInfo(TypedDict):
    name: str
    kind: Literal["item", "companion", "condition"]
    text: str


class ActionTaken(TypedDict):
    type: Literal["action_taken"]
    inv: int
    action: str
    left: int
    episode_action: NotRequired[str]  # the episode action's name, for an episode action


class Moved(TypedDict):
    type: Literal["moved"]
    inv: int
    name: str
    frm: str
    to: str
    space: str


class Rested(TypedDict):
    type: Literal["rested"]
    inv: int
    name: str
    wounds: int
    stress: int


class ActionsEnded(TypedDict):
    type: Literal["actions_ended"]
    inv: int
    unused: int


class Followed(TypedDict):
    type: Literal["followed"]
    figure: str
    kind: str
    name: str
    inv: int
    to: str


class Traded(TypedDict):
    type: Literal["traded"]
    card: str
    to: int
    name: str


class SpaceTokensChanged(TypedDict):
    type: Literal["space_tokens_changed"]
    space: str
    space_name: str
    token: str
    token_name: str
    n: int


class RitualProgress(TypedDict):
    type: Literal["ritual_progress"]
    progress: int
    needed: int
    name: str


class ElderPlaced(TypedDict):
    type: Literal["elder_placed"]
    name: str
    space: str
    space_name: str


class Claimed(TypedDict):
    type: Literal["claimed"]
    inv: int
    name: str
    card: str
    kind: Literal["item", "companion", "condition"]
    text: str


class FireDoused(TypedDict):
    type: Literal["fire_doused"]
    inv: int
    space: str
    space_name: str
    n: int


class EnemyMoved(TypedDict):
    type: Literal["enemy_moved"]
    figure: str
    kind: str
    name: str
    to: str
    space_name: str


class Chose(TypedDict):
    type: Literal["chose"]
    inv: int
    label: str


class CheckResult(TypedDict):
    type: Literal["check_result"]
    inv: int
    name: str
    successes: int
    need: int
    passed: bool


class FireSpread(TypedDict):
    type: Literal["fire_spread"]
    space: str
    space_name: str
    n: int


class RitualDisrupted(TypedDict):
    type: Literal["ritual_disrupted"]
    name: str


class MythosKept(TypedDict):
    type: Literal["mythos_kept"]
    inv: int
    name: str
    card: str


class Healed(TypedDict):
    type: Literal["healed"]
    inv: int
    name: str
    wounds: int
    stress: int
    why: str


class TokensChanged(TypedDict):
    type: Literal["tokens_changed"]
    inv: int
    name: str
    token: str
    token_name: str
    n: int


class ElderMoved(TypedDict):
    type: Literal["elder_moved"]
    name: str
    space: str
    space_name: str


class AttackDeclared(TypedDict):
    type: Literal["attack_declared"]
    inv: int
    name: str
    targets: list[str]


class EnemyWounded(TypedDict):
    type: Literal["enemy_wounded"]
    inv: int
    figure: str
    name: str
    n: int
    wounds: int
    health: int


class EnemyKilled(TypedDict):
    type: Literal["enemy_killed"]
    inv: int
    figure: str
    name: str
    space: str


class StageDefeated(TypedDict):
    type: Literal["stage_defeated"]
    name: str
    stage: int
    excess: int


class StageRevealed(TypedDict):
    type: Literal["stage_revealed"]
    name: str
    stage: int
    text: str


class DiceRolled(TypedDict):
    type: Literal["dice_rolled"]
    inv: int
    purpose: Literal["attack", "defend", "check", "fire"]
    dice: list[list[str]]


class DieRerolled(TypedDict):
    type: Literal["die_rerolled"]
    inv: int
    die: int
    face: str
    dice: list[list[str]]


class EnemyAttacks(TypedDict):
    type: Literal["enemy_attacks"]
    figure: str
    name: str
    inv: int
    target: str


class AttackMissed(TypedDict):
    type: Literal["attack_missed"]
    inv: int
    figure: str
    name: str


class GameWon(TypedDict):
    type: Literal["game_won"]
    name: str


class StressTaken(TypedDict):
    type: Literal["stress_taken"]
    inv: int
    name: str
    n: int
    stress: int
    why: str


class AbilityUsed(TypedDict):
    type: Literal["ability_used"]
    kind: str
    ability: str
    n: int


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


class SanityLost(TypedDict):
    type: Literal["sanity_lost"]
    inv: int
    name: str
    n: int
    sanity: int
    skull: int


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
    frm: str | None


class FireOut(TypedDict):
    type: Literal["fire_out"]
    inv: int
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


class GameLost(TypedDict):
    type: Literal["game_lost"]
    cause: str
    text: str


class CompanionWounded(TypedDict):
    type: Literal["companion_wounded"]
    inv: int
    card: str
    wounds: int
    health: int | None


class CardLost(TypedDict):
    type: Literal["card_lost"]
    inv: int
    name: str
    card: str


class TurnStarted(TypedDict):
    type: Literal["turn_started"]
    turn: int
    inv: int
    name: str


class TurnEnded(TypedDict):
    type: Literal["turn_ended"]
    turn: int
    inv: int


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


class ElderSummoned(TypedDict):
    type: Literal["elder_summoned"]
    name: str
    track: int
    why: Literal["ritual", "track"]


class Investigated(TypedDict):
    type: Literal["investigated"]
    inv: int
    name: str
    space: str


class DiscoveryDrawn(TypedDict):
    type: Literal["discovery_drawn"]
    inv: int
    card: str
    text: str
    left: NotRequired[HalfInfo]
    right: NotRequired[HalfInfo]


class Summoned(TypedDict):
    type: Literal["summoned"]
    figure: str
    kind: str
    name: str
    space: str
    space_name: str


class MythosRecurs(TypedDict):
    type: Literal["mythos_recurs"]
    inv: int
    name: str
    card: str


class DiscoveryEmpty(TypedDict):
    type: Literal["discovery_empty"]


class SummonSkipped(TypedDict):
    type: Literal["summon_skipped"]
    kind: str
    name: str
    space: str


class EnemyRegenerated(TypedDict):
    type: Literal["enemy_regenerated"]
    figure: str
    name: str


MainEvent = (
    ActionTaken
    | Moved
    | Rested
    | ActionsEnded
    | Followed
    | Traded
    | SpaceTokensChanged
    | RitualProgress
    | ElderPlaced
    | Claimed
    | FireDoused
    | EnemyMoved
    | Chose
    | CheckResult
    | FireSpread
    | RitualDisrupted
    | MythosKept
    | Healed
    | TokensChanged
    | ElderMoved
    | AttackDeclared
    | EnemyWounded
    | EnemyKilled
    | StageDefeated
    | StageRevealed
    | DiceRolled
    | DieRerolled
    | EnemyAttacks
    | AttackMissed
    | GameWon
    | StressTaken
    | AbilityUsed
    | Burning
    | Wounded
    | SanityLost
    | ThresholdReached
    | SkillLeveled
    | InvestigatorDied
    | FireCaught
    | FireOut
    | BonusDieGained
    | InsanityActivated
    | GameLost
    | CompanionWounded
    | CardLost
    | TurnStarted
    | TurnEnded
    | MythosShuffled
    | MythosDrawn
    | ElderAdvanced
    | ElderSummoned
    | Investigated
    | DiscoveryDrawn
    | Summoned
    | MythosRecurs
    | DiscoveryEmpty
    | SummonSkipped
    | EnemyRegenerated
)
