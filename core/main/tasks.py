"""The engine's tasks, one declared shape per kind, and their canonical form.

A task is a small typed dict tagged by its kind `k`; the engine dispatches on
that tag (`engine.STEPS`, `engine.ANSWERS`). Typed dicts keep the canonical
form of a task exactly the task itself, so hashing and snapshots cost nothing
extra, except for the three kinds that carry content effects: those hold the
validated effect models and are dumped and re-validated at the boundary.

A few tasks carry a `cause` for the Log (which card or enemy started them). It
decides nothing, so it is left out of the canonical form: hashes and saves are
the same with or without it, and a game restored in the middle of an effect
tells those few lines without their cause.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import TypeAdapter
from typing_extensions import NotRequired, TypedDict

from ..command import Command
from .eventparts import Cause
from .ops import AnyOp, ChooseOp


class Roll(TypedDict):
    """Dice rolled and not yet handed on: [die kind, face index] pairs (a reroll changes one)."""

    inv: int
    dice: list[list[Any]]
    own: bool  # the investigator's own roll (bonus dice, rerolls of their own) or an enemy's
    purpose: Literal["attack", "defend", "check", "fire"]
    free: int  # rerolls left that cost no stress


class HeldCard(TypedDict):
    """A claimed Discovery half under an investigator's board."""

    card: str
    side: Literal["left", "right"]
    wounds: int


class Pending(TypedDict):
    """The decision being waited for; the task that asked stays on top of the stack."""

    kind: str
    inv: int
    seat: int
    text: str
    options: list[tuple[Command, str]]


# ---------------------------------------------------------------------- the turn


class TurnTask(TypedDict):
    k: Literal["turn"]
    inv: int


class PhaseTask(TypedDict):
    """The fixed steps of a turn, each about the active investigator."""

    k: Literal[
        "actions", "mythos", "invest_fight", "eot_effects", "fire", "discard_check",
        "summon_check", "elder_eot", "next_turn", "reshuffle", "rest", "level_up",
        "fire_hits", "fire_out",
    ]
    inv: int


class CardTask(TypedDict):
    k: Literal["summons", "mythos_discard", "discovery_done"]
    inv: int
    card: str


class TradeTask(TypedDict):
    k: Literal["trade"]
    inv: int
    given: NotRequired[int]  # cards given so far in this Trade action (absent: none)


class RunTask(TypedDict):
    k: Literal["run"]
    inv: int
    left: int
    moved: int


# ---------------------------------------------------------------------- dice and fights


class RollTask(TypedDict):
    k: Literal["roll"]
    inv: int
    standard: int
    bonus: int
    own: bool
    purpose: Literal["attack", "defend", "check", "fire"]


class RerollTask(TypedDict):
    k: Literal["reroll"]
    inv: int
    roll: Roll


class AttackHitsTask(TypedDict):
    k: Literal["attack_hits"]
    inv: int
    targets: list[str]
    roll: NotRequired[Roll]  # handed down by the reroll above it


class AssignHitsTask(TypedDict):
    k: Literal["assign_hits"]
    inv: int
    targets: list[str]
    hits: int
    stage: int  # the Elder One's Stage the roll was made against


class FightTask(TypedDict):
    k: Literal["fight"]
    inv: int
    done: list[str]  # enemies that have attacked already


class EnemyHitsTask(TypedDict):
    k: Literal["enemy_hits"]
    inv: int
    figure: str
    kind: str
    roll: NotRequired[Roll]


class FireHitsTask(TypedDict):
    k: Literal["fire_hits"]
    inv: int
    roll: NotRequired[Roll]


# ---------------------------------------------------------------------- harm


class CountTask(TypedDict):
    k: Literal["ignite", "sanity", "douse"]
    inv: int
    n: int
    cause: NotRequired[Cause]  # for the Log only: not canonical


class WoundsTask(TypedDict):
    k: Literal["wounds"]
    inv: int
    n: int
    source: str | None


class StressTask(TypedDict):
    k: Literal["stress"]
    inv: int
    n: int
    why: str
    cause: NotRequired[Cause]  # for the Log only: not canonical


class ThresholdTask(TypedDict):
    k: Literal["threshold"]
    inv: int
    at: int
    ignored: int  # sanity loss the threshold stopped


# ---------------------------------------------------------------------- effects


class OpsTask(TypedDict):
    k: Literal["ops"]
    inv: int  # the investigator the effect is about
    ops: list[AnyOp]
    src: str  # the card, stage or action it comes from
    card: str | None  # a Discovery card being resolved (for `claim`)


class CheckTask(TypedDict):
    k: Literal["check"]
    inv: int
    need: int
    success: list[AnyOp]
    fail: list[AnyOp]
    src: str
    card: str | None
    roll: NotRequired[Roll]


class ChooseTask(TypedDict):
    k: Literal["choose"]
    inv: int
    op: ChooseOp
    src: str
    card: str | None


class PickMoverTask(TypedDict):
    k: Literal["pick_mover"]
    inv: int
    steps: int
    cause: NotRequired[Cause]  # for the Log only: not canonical


class AdvanceEnemyTask(TypedDict):
    k: Literal["advance_enemy"]
    inv: int
    figure: str
    steps: int
    cause: NotRequired[Cause]  # for the Log only: not canonical


class DiscardCardTask(TypedDict):
    k: Literal["discard_card"]
    inv: int
    cause: NotRequired[Cause]  # for the Log only: not canonical


# What a death does to the work still queued (RULES.md, "Decided after the first audit"). Every task
# kind is in exactly one of these three sets (a test keeps it so), so a new kind must be placed on purpose.
#
# The dead investigator's own steps: their actions, rolls, harm and choices. Nobody is left to take them.
PERSONAL = frozenset({
    "run", "rest", "trade", "attack_hits", "assign_hits", "roll", "reroll", "check", "fight", "enemy_hits",
    "ignite", "fire_hits", "fire_out", "wounds", "stress", "sanity", "threshold", "level_up",
})
# The turn phases a death of the active investigator skips (seed: "skip all the following turn phases"
# except the Mythos discard check).
SKIPPED_PHASES = frozenset({"actions", "mythos", "invest_fight", "eot_effects", "fire", "elder_eot"})
# Everything else outlives any death: effects being resolved (a Mythos card, an advance, a Stage reveal)
# run to their end, with the dead investigator's space standing for "you"; summon lines, discards, the
# reshuffle after an advance, the discard and summoning checks and the next turn all happen.
OUTLIVES_DEATH = frozenset({
    "turn", "next_turn", "discard_check", "summon_check", "mythos_discard", "summons", "reshuffle",
    "discovery_done", "ops", "advance_enemy", "pick_mover", "douse", "discard_card", "choose",
})

Task = (
    TurnTask | PhaseTask | CardTask | TradeTask | RunTask | RollTask | RerollTask | AttackHitsTask | AssignHitsTask | FightTask
    | EnemyHitsTask | FireHitsTask | CountTask | WoundsTask | StressTask | ThresholdTask | OpsTask | CheckTask
    | ChooseTask | PickMoverTask | AdvanceEnemyTask | DiscardCardTask
)
RollTaker = AttackHitsTask | EnemyHitsTask | FireHitsTask | CheckTask

# ---------------------------------------------------------------------- canonical form

_OPS: TypeAdapter[list[AnyOp]] = TypeAdapter(list[AnyOp])
_DUMPED: dict[int, tuple[Any, Any]] = {}  # id(content object) -> (object, its dump): content lives for the game


def _dump(ops: Any) -> Any:
    hit = _DUMPED.get(id(ops))
    if hit is None or hit[0] is not ops:
        if len(_DUMPED) > 4096:
            _DUMPED.clear()
        dumped = ops.model_dump() if isinstance(ops, ChooseOp) else [op.model_dump() for op in ops]
        hit = _DUMPED[id(ops)] = (ops, dumped)
    return hit[1]


def canonical_task(task: Task, *, fresh: bool = True) -> dict[str, Any]:
    """The task as plain data (`fresh`: a copy, else sharing its parts); effect models become their dumps; no `cause`."""
    copy = _copy if fresh else _same
    out: dict[str, Any] = {k: copy(v) for k, v in task.items() if k != "cause"}
    if task["k"] == "ops":
        out["ops"] = copy(_dump(task["ops"]))
    elif task["k"] == "check":
        out["success"] = copy(_dump(task["success"]))
        out["fail"] = copy(_dump(task["fail"]))
    elif task["k"] == "choose":
        out["op"] = copy(_dump(task["op"]))
    return out


def task_from_canonical(data: dict[str, Any]) -> Task:
    """Back from `canonical_task`: effects validated into their models again."""
    k = data["k"]
    if k == "ops":
        data["ops"] = _OPS.validate_python(data["ops"])
    elif k == "check":
        data["success"] = _OPS.validate_python(data["success"])
        data["fail"] = _OPS.validate_python(data["fail"])
    elif k == "choose":
        data["op"] = ChooseOp.model_validate(data["op"])
    task: Task = data  # type: ignore[assignment]
    return task


def _same(value: Any) -> Any:
    """No copy: `canonical(fresh=False)`'s stand-in for `_copy`."""
    return value


def _copy(value: Any) -> Any:
    """A copy of nested dicts and lists of scalars: much faster than deepcopy for our shapes."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
