"""The structured data each option of a main-game prompt carries (declared per kind in `prompttypes`).

An option's `label` is for people; its `data` is for interfaces and bots, so
they never parse a label: what an action is called and what it does, which die
a reroll takes and what it costs, what a skill level grants, what a card's
choice does and which halves it claims, who gives what in a trade. Every kind
declares its data, so an interface can word every option itself. The data is worked out from the state and the command when the
prompt is built, so the canonical state (and every saved hash) is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..command import Command
from .ops import ClaimOp, walk_ops
from .describe import Describer
from .eventparts import HalfInfo
from .prompttypes import (  # declared apart: see `prompttypes`
    NoData as NoData,
    ActionData as ActionData,
    RunData as RunData,
    RestData as RestData,
    TradeData as TradeData,
    TargetData as TargetData,
    RerollData as RerollData,
    WoundToData as WoundToData,
    LevelUpData as LevelUpData,
    PlaceData as PlaceData,
    CardData as CardData,
    ChooseData as ChooseData,
    PROMPTS as PROMPTS,
)
from .state import ELDER

if TYPE_CHECKING:
    from .engine import Engine
    from .tasks import DiscardCardTask, PhaseTask, RunTask, Task, TradeTask, WoundsTask


def _action(e: Engine, task: Task, cmd: Command) -> ActionData:
    kind = cmd.kind
    left = e.s.actions_left
    if kind == "episode":
        act = e.c.episodes[e.s.episode].actions[cmd["action"]]
        return {"action": "episode", "name": act.name, "text": act.text, "left": left}
    if kind == "attack":
        i = task["inv"]
        bonus = e.inv(i).bonus + e.mods(i)["attack_dice"]
        if cmd.get("all"):
            return {"action": "attack", "name": "Attack every enemy here", "dice": e.c.rules.dice, "bonus": bonus, "left": left}
        f = e.s.figure(cmd["target"])
        name = f"Attack {e.enemy_name(f)}" if f.kind == ELDER else f"Attack the {e.enemy_name(f)}"
        return {"action": "attack", "name": name, "dice": e.c.rules.dice, "bonus": bonus, "wounds": f.wounds,
                "health": e.enemy_health(f), "left": left}
    if kind == "end_actions":
        return {"action": "end_actions", "name": "End actions", "left": left, "unused": left}
    names = {"run": "Run", "rest": "Rest", "trade": "Trade"}
    return {"action": kind, "name": names[kind], "left": left}  # type: ignore[typeddict-item]


def _run(e: Engine, task: RunTask, cmd: Command) -> RunData:
    if cmd.kind == "stop":
        return {"stop": True, "left": task["left"], "moved": task["moved"]}
    return {"stop": False, "space": e.space_name(cmd["to"]), "left": task["left"], "moved": task["moved"]}


def _rest(e: Engine, task: PhaseTask, cmd: Command) -> RestData:
    return {"wounds": cmd["wounds"], "stress": cmd["stress"], "heal": cmd["wounds"] + cmd["stress"]}


def _trade(e: Engine, task: TradeTask, cmd: Command) -> TradeData:
    if cmd.kind == "done":
        return {"give": False, "refund": not task.get("given")}
    giver, held = next((n, h) for n, g in enumerate(e.s.investigators) for h in g.cards if h["card"] == cmd["card"])
    half = e.half(held)
    return {"give": True, "refund": False, "card": half.name, "kind": half.kind, "giver": e.name(giver), "taker": e.name(cmd["to"])}


def _target(e: Engine, task: Any, cmd: Command) -> TargetData:
    fid = cmd.get("target") or cmd.get("against") or cmd.get("figure")
    f = e.s.figure(fid)
    standard, bonus = e.attack_dice(f)
    out: TargetData = {"name": e.enemy_name(f), "elder": f.kind == ELDER, "wounds": f.wounds, "health": e.enemy_health(f),
                       "space": e.space_name(f.space), "dice": standard, "bonus": bonus}
    if task["k"] == "assign_hits":
        out["hits"] = task["hits"]
    elif task["k"] == "pick_mover":
        out["steps"] = task["steps"]
    return out


def _reroll(e: Engine, task: Task, cmd: Command) -> RerollData:
    if cmd.kind == "keep" or task["k"] != "reroll":
        return {"keep": True}
    roll = task["roll"]
    n = cmd["die"]
    die, face = roll["dice"][n]
    return {"keep": False, "die": n, "bonus": die == "bonus", "face": e.faces(die)[face], "stress": 0 if roll["free"] > 0 else 1}


def _wound_to(e: Engine, task: WoundsTask, cmd: Command) -> WoundToData:
    i = task["inv"]
    if cmd["card"] is None:
        inv = e.inv(i)
        return {"n": task["n"], "card": None, "wounds": inv.wounds, "health": e.c.investigators[inv.id].health}
    held = next(h for h in e.inv(i).cards if h["card"] == cmd["card"])
    half = e.half(held)
    return {"n": task["n"], "card": half.name, "wounds": held["wounds"], "health": half.health or 1}


def _level_up(e: Engine, task: Task, cmd: Command) -> LevelUpData:
    sk = cmd["skill"]
    level = e.level_after_up(task["inv"], sk)
    skill = e.c.skills[sk]
    return {"skill": sk, "name": skill.name, "level": level, "text": skill.levels[level - 1].text}


def _place(e: Engine, task: Any, cmd: Command) -> PlaceData:
    space = cmd.get("at") or cmd["to"]
    out: PlaceData = {"space": e.space_name(space), "fire": e.s.fire.get(space, 0)}
    if task["k"] == "advance_enemy":
        out["enemy"] = e.enemy_name(e.s.figure(task["figure"]))
    return out


def _card(e: Engine, task: DiscardCardTask, cmd: Command) -> CardData:
    held = next(h for h in e.inv(task["inv"]).cards if h["card"] == cmd["card"])
    half = e.half(held)
    return {"name": half.name, "kind": half.kind, "text": half.text}


def _choose(e: Engine, task: Task, cmd: Command) -> ChooseData:
    if task["k"] != "choose":
        return {"text": "", "source": "", "does": [], "claims": []}
    choice = task["op"].options[cmd["option"]]
    halves: dict[str, HalfInfo] = {}
    card = task.get("card")
    if card is not None:
        found = e.c.episodes[e.s.episode].discovery[int(card)]
        for side, half in (("left", found.left), ("right", found.right)):
            if half is not None:
                halves[side] = {"name": half.name, "kind": half.kind, "text": half.text}
    claims = [halves[op.side] for _, op in walk_ops(choice.ops, "") if isinstance(op, ClaimOp) and op.side in halves]
    describer = e.memo.get("describer")
    if describer is None:
        describer = e.memo["describer"] = Describer(e.c, e.s.episode, e.s.elder_one)
    does = describer.ops(choice.ops, {side: h["name"] for side, h in halves.items()})
    return {"text": choice.label, "source": task["src"], "does": does, "claims": claims}


DATA: dict[str, Callable[[Engine, Any, Command], Any]] = {
    "action": _action,
    "run": _run,
    "rest": _rest,
    "trade": _trade,
    "assign_hit": _target,
    "reroll": _reroll,
    "attack_order": _target,
    "wound_to": _wound_to,
    "level_up": _level_up,
    "douse": _place,
    "pick_enemy": _target,
    "enemy_path": _place,
    "discard_card": _card,
    "choose": _choose,
}


def option_data(e: Engine, kind: str, command: Command) -> Any:
    """The `data` of one option of the pending prompt (its task is on top of the stack)."""
    build = DATA.get(kind)
    if build is None:
        return {}
    return build(e, e.s.stack[-1], command)
