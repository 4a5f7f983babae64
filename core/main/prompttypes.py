"""The declared shape of each main-game prompt kind's option data (`PROMPTS`).

A module of types only, like `core.wiretypes`: pydantic validates options'
data against these (`Mode.check_prompt`), and a TypedDict declared in a module
compiled with mypyc (setup.py) is `typing`'s, which pydantic refuses before
Python 3.12. `prompts` works the data out and exports these.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import NotRequired, TypedDict

from .eventparts import HalfInfo


class NoData(TypedDict):
    """Kinds whose command says everything."""


class ActionData(TypedDict):
    """Each action carries only its own fields (deltas stay small)."""

    action: Literal["run", "attack", "rest", "trade", "episode", "end_actions"]
    name: str  # short: "Run", "Attack the Cultist", "Attack Hastur", an episode action's name ...
    text: NotRequired[str]  # an episode action: what it does
    dice: NotRequired[int]  # an attack: the standard dice it rolls ...
    bonus: NotRequired[int]  # ... and the bonus dice on top (the investigator's, their skills' and cards')
    wounds: NotRequired[int]  # an attack on one enemy: its wounds ...
    health: NotRequired[int]  # ... and its health
    left: int  # actions left before this one
    unused: NotRequired[int]  # end_actions: the actions it leaves unused


class RunData(TypedDict):
    stop: bool  # True: stop running here
    space: NotRequired[str]  # where a move goes (its name)
    left: int  # spaces left in this Run
    moved: int  # spaces run so far


class RestData(TypedDict):
    wounds: int  # healed by this split ...
    stress: int  # ... and stress
    heal: int  # the steps to share out


class TradeData(TypedDict):
    give: bool  # False: stop trading (no other field but `refund`)
    refund: bool  # stopping before anything was given: the action is not spent
    card: NotRequired[str]  # the Item or Companion given
    kind: NotRequired[Literal["item", "companion", "condition"]]
    giver: NotRequired[str]
    taker: NotRequired[str]


class TargetData(TypedDict):
    """An enemy picked by a prompt (where a hit lands, who attacks next, which one moves)."""

    name: str
    elder: bool  # the Elder One (a proper name: no article)
    wounds: int
    health: int
    space: str  # where it stands (its name)
    dice: int  # its attack: standard dice ...
    bonus: int  # ... and bonus dice
    hits: NotRequired[int]  # assign_hit: hits still to place
    steps: NotRequired[int]  # pick_enemy: how far it moves


class RerollData(TypedDict):
    keep: bool  # True: keep the dice as they are (and no other field)
    die: NotRequired[int]  # which die a reroll takes (an index into the roll)
    bonus: NotRequired[bool]  # that die is a bonus die
    face: NotRequired[str]  # what it shows now ("success+tentacle"; "" is blank)
    stress: NotRequired[int]  # what the reroll costs: 0 while free rerolls last, else 1


class WoundToData(TypedDict):
    n: int  # wounds still to place
    card: str | None  # the Companion taking it (None: the investigator)
    wounds: int  # its wounds (or the investigator's) ...
    health: int  # ... and its health


class LevelUpData(TypedDict):
    skill: str
    name: str
    level: int  # the level it rises to
    text: str  # what that level grants


class PlaceData(TypedDict):
    """A space picked by a prompt (where Fire is put out, which way an enemy comes)."""

    space: str  # its name
    fire: int  # Fire tokens on it
    enemy: NotRequired[str]  # enemy_path: the enemy moving


class CardData(TypedDict):
    name: str
    kind: Literal["item", "companion", "condition"]
    text: str


class ChooseData(TypedDict):
    text: str  # the card's words for this choice
    source: str  # the card (or stage, or insanity) offering it
    does: list[str]  # what it does, in plain words ("take 2 stress", "take Fire Axe")
    claims: list[HalfInfo]  # the Discovery halves it may put under your board


PROMPTS: dict[str, Any] = {
    "action": ActionData,
    "run": RunData,
    "rest": RestData,
    "trade": TradeData,
    "assign_hit": TargetData,
    "reroll": RerollData,
    "attack_order": TargetData,
    "wound_to": WoundToData,
    "level_up": LevelUpData,
    "douse": PlaceData,
    "pick_enemy": TargetData,
    "enemy_path": PlaceData,
    "discard_card": CardData,
    "choose": ChooseData,
}
