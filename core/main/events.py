"""Every event of the main game (`MainEvent`), each declared once with its fields, by family: a
turn and its actions (`turnevents`), dice and enemies (`fightevents`), what befalls an
investigator (`harmevents`), the decks and the board (`boardevents`); what they share is
`eventparts`.

`apply` returns these (as `Event`s: the type plus the other fields); the Log
narrates them, tests assert on them and `cthulhu sim --events` writes them.
Names are ids or display names as their field says; `inv` is an investigator's
index, `figure` an enemy figure's id, `space` a space id. Every event carries
the display names a sentence needs (a figure may be gone from the view by the
time the event is told), and a harm or a change names its `cause` when it has
one: which card, which Stage, which enemy, which roll.
"""

from __future__ import annotations

from .boardevents import (
    DiscoveryDrawn,
    DiscoveryEmpty,
    ElderAdvanced,
    ElderMoved,
    ElderPlaced,
    ElderSummoned,
    FireSpread,
    GameLost,
    GameWon,
    MythosDrawn,
    MythosKept,
    MythosRecurs,
    MythosShuffled,
    RitualDisrupted,
    RitualProgress,
    SpaceTokensChanged,
    StageRevealed,
)
from .fightevents import (
    AbilityUsed,
    AttackDeclared,
    AttackMissed,
    DiceKept,
    DiceRolled,
    DieRerolled,
    EnemyAttacks,
    EnemyKilled,
    EnemyMoved,
    EnemyRegenerated,
    EnemyWounded,
    StageDefeated,
    Summoned,
    SummonSkipped,
)
from .harmevents import (
    BonusDieGained,
    Burning,
    CardLost,
    CompanionWounded,
    FireCaught,
    FireOut,
    HarmIgnored,
    Healed,
    InsanityActivated,
    InvestigatorDied,
    SanityLost,
    SkillLeveled,
    StressTaken,
    ThresholdReached,
    TokensChanged,
    Wounded,
)
from .turnevents import (
    ActionsEnded,
    ActionTaken,
    CheckResult,
    Chose,
    Claimed,
    FireDoused,
    Followed,
    Investigated,
    Moved,
    Rested,
    RunStopped,
    Traded,
    TradeEnded,
    TurnEnded,
    TurnStarted,
)

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
