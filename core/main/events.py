"""Every event of the main game, declared once with its fields.

`apply` returns these (as `Event`s: the type plus the other fields); the Log
narrates them, tests assert on them and `cthulhu sim --events` writes them.
Names are ids or display names as their field says; `inv` is an investigator's
index, `figure` an enemy figure's id, `space` a space id. Every event carries
the display names a sentence needs (a figure may be gone from the view by the
time the event is told), and a harm or a change names its `cause` when it has
one: which card, which Stage, which enemy, which roll.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict


CauseKind = Literal[
    "mythos", "discovery", "stage", "episode", "action", "insanity",  # an effect, by where its text is printed
    "enemy", "fire", "reroll", "tentacles", "summoning",  # the rules themselves
]


class Cause(TypedDict):
    """Why something happened, for people: the kind of source and its name.

    `tentacles` names the roll's purpose ("attack", "defend", "check", "fire");
    `summoning` names the gate color of a Mythos card's summon line; `fire` and
    `reroll` have an empty name.
    """

    kind: CauseKind
    name: str


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
    name: str  # who receives it
    frm: int
    giver: str


class TradeEnded(TypedDict):
    type: Literal["trade_ended"]
    inv: int
    given: int  # cards given in this Trade action
    refunded: bool  # nothing was given: the action is not spent


class RunStopped(TypedDict):
    type: Literal["run_stopped"]
    inv: int
    moved: int  # spaces run before stopping


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


class Claimed(TypedDict):
    type: Literal["claimed"]
    inv: int
    name: str
    card: str
    kind: Literal["item", "companion", "condition"]
    text: str
    source: str  # the Discovery card it is half of


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
    cause: Cause | None


class Chose(TypedDict):
    type: Literal["chose"]
    inv: int
    label: str
    cause: Cause | None  # the card (or Stage, or insanity) that offered the choice


class CheckResult(TypedDict):
    type: Literal["check_result"]
    inv: int
    name: str
    successes: int
    need: int
    passed: bool
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


class ElderMoved(TypedDict):
    type: Literal["elder_moved"]
    name: str
    space: str
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


class StageRevealed(TypedDict):
    type: Literal["stage_revealed"]
    name: str
    elder: str
    stage: int
    stages: int
    text: str


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
    cause: Cause | None


class AbilityUsed(TypedDict):
    type: Literal["ability_used"]
    kind: str
    name: str  # the enemy's
    ability: str
    text: str
    n: int  # elder signs rolled (1 for a regeneration)
    inv: int | None  # the investigator it was rolled against


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


class GameLost(TypedDict):
    type: Literal["game_lost"]
    cause: str
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


class TurnStarted(TypedDict):
    type: Literal["turn_started"]
    turn: int
    inv: int
    name: str


class TurnEnded(TypedDict):
    type: Literal["turn_ended"]
    turn: int
    inv: int
    name: str


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
    cause: Cause | None


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
    space_name: str
    cause: Cause | None


class EnemyRegenerated(TypedDict):
    type: Literal["enemy_regenerated"]
    figure: str
    name: str
    wounds: int  # healed


MainEvent = (
    ActionTaken
    | Moved
    | Rested
    | ActionsEnded
    | Followed
    | Traded
    | TradeEnded
    | RunStopped
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
    | DiceKept
    | EnemyAttacks
    | AttackMissed
    | GameWon
    | StressTaken
    | AbilityUsed
    | Burning
    | Wounded
    | HarmIgnored
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
