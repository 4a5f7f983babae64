"""The main game's prompt kinds, and the structured data each option carries.

An option's `label` is for people; its `data` is for interfaces and bots, so
they never parse a label: what an action is called and what it does, which die
a reroll takes and what it costs, what a skill level grants, the text of a
card's choice. The data is worked out from the state and the command when the
prompt is built, so the canonical state (and every saved hash) is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from typing_extensions import NotRequired, TypedDict

from ..command import Command

if TYPE_CHECKING:
    from .engine import Engine
    from .tasks import Task


class NoData(TypedDict):
    """Kinds whose command says everything (a space, a target, a split of healing)."""


class ActionData(TypedDict):
    """Each action carries only its own fields (deltas stay small)."""

    action: Literal["run", "attack", "rest", "trade", "episode", "end_actions"]
    name: str  # short: "Run", "Attack the Cultist", an episode action's name ...
    text: NotRequired[str]  # an episode action: what it does
    dice: NotRequired[int]  # an attack: the standard dice it rolls ...
    bonus: NotRequired[int]  # ... and the bonus dice on top (the investigator's, their skills' and cards')


class RerollData(TypedDict):
    keep: bool  # True: keep the dice as they are (and no other field)
    die: NotRequired[int]  # which die a reroll takes (an index into the roll)
    bonus: NotRequired[bool]  # that die is a bonus die
    face: NotRequired[str]  # what it shows now ("success+tentacle"; "" is blank)
    stress: NotRequired[int]  # what the reroll costs: 0 while free rerolls last, else 1


class LevelUpData(TypedDict):
    skill: str
    name: str
    level: int  # the level it rises to
    text: str  # what that level grants


class ChooseData(TypedDict):
    text: str  # the card's words for this choice
    source: str  # the card (or stage, or insanity) offering it


PROMPTS: dict[str, Any] = {
    "action": ActionData,
    "run": NoData,
    "rest": NoData,
    "trade": NoData,
    "assign_hit": NoData,
    "reroll": RerollData,
    "attack_order": NoData,
    "wound_to": NoData,
    "level_up": LevelUpData,
    "douse": NoData,
    "pick_enemy": NoData,
    "enemy_path": NoData,
    "discard_card": NoData,
    "choose": ChooseData,
}


def _action(e: Engine, task: Task, cmd: Command) -> ActionData:
    kind = cmd.kind
    if kind == "episode":
        act = e.c.episodes[e.s.episode].actions[cmd["action"]]
        return {"action": "episode", "name": act.name, "text": act.text}
    if kind == "attack":
        name = "Attack every enemy here" if cmd.get("all") else f"Attack the {e.enemy_name(e.s.figure(cmd['target']))}"
        i = task["inv"]
        bonus = e.inv(i).bonus + e.mods(i)["attack_dice"]
        return {"action": "attack", "name": name, "dice": e.c.rules.dice, "bonus": bonus}
    names = {"run": "Run", "rest": "Rest", "trade": "Trade", "end_actions": "End actions"}
    return {"action": kind, "name": names[kind]}  # type: ignore[typeddict-item]


def _reroll(e: Engine, task: Task, cmd: Command) -> RerollData:
    if cmd.kind == "keep" or task["k"] != "reroll":
        return {"keep": True}
    roll = task["roll"]
    n = cmd["die"]
    die, face = roll["dice"][n]
    return {"keep": False, "die": n, "bonus": die == "bonus", "face": e.faces(die)[face], "stress": 0 if roll["free"] > 0 else 1}


def _level_up(e: Engine, task: Task, cmd: Command) -> LevelUpData:
    sk = cmd["skill"]
    level = e.inv(task["inv"]).levels[sk] + 1
    skill = e.c.skills[sk]
    return {"skill": sk, "name": skill.name, "level": level, "text": skill.levels[level - 1].text}


def _choose(e: Engine, task: Task, cmd: Command) -> ChooseData:
    if task["k"] != "choose":
        return {"text": "", "source": ""}
    return {"text": task["op"].options[cmd["option"]].label, "source": task["src"]}


DATA: dict[str, Callable[[Engine, Any, Command], Any]] = {
    "action": _action,
    "reroll": _reroll,
    "level_up": _level_up,
    "choose": _choose,
}


def option_data(e: Engine, kind: str, command: Command) -> Any:
    """The `data` of one option of the pending prompt (its task is on top of the stack)."""
    build = DATA.get(kind)
    if build is None:
        return {}
    return build(e, e.s.stack[-1], command)
