"""Events of a turn and its actions: the turn beginning and ending, each action taken (moving,
running, resting, trading, investigating, dousing), enemies following, choices made and checks made.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict

from .eventparts import Cause


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


class Investigated(TypedDict):
    type: Literal["investigated"]
    inv: int
    name: str
    space: str
