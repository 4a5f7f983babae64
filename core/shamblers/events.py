"""Every event of Shamblers mode, declared once with its fields.

`mat` is a Player Mat's index, `town` a Town Card's index in the ring, a color
is a Madness color id (or "chaos" for a Chaos Tentacle where it says so).
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict


class GameStarted(TypedDict):
    type: Literal["game_started"]
    mode: Literal["shamblers"]
    difficulty: str  # the difficulty level's name
    mats: list[str]  # Player Mat names
    towns: list[str]  # Town Card names, clockwise
    shamblers: int  # on the Shambler Track
    bag: int  # tentacles in the bag


class TurnStarted(TypedDict):
    type: Literal["turn_started"]
    turn: int
    mat: int
    seat: int


class WheelTurned(TypedDict):
    type: Literal["wheel_turned"]
    town: int


class BagRefilled(TypedDict):
    type: Literal["bag_refilled"]
    count: int  # tentacles shuffled back from the Discard Mat


class BagEmpty(TypedDict):
    type: Literal["bag_empty"]
    town: int


class TentaclesDrawn(TypedDict):
    type: Literal["tentacles_drawn"]
    town: int
    tentacles: list[str]  # colors (or "chaos"), in the order drawn


class ShamblerPlaced(TypedDict):
    type: Literal["shambler_placed"]
    town: int
    color: str
    track_left: int


# "from" is a Python keyword, so this one is declared in the functional form.
Moved = TypedDict("Moved", {"type": Literal["moved"], "mat": int, "from": int, "to": int})


class Gathered(TypedDict):
    type: Literal["gathered"]
    mat: int
    town: int
    color: str  # a color or "chaos"
    to: Literal["track", "discard"]  # a full track sends it to the Discard Mat (Chaos too)


class Delirium(TypedDict):
    type: Literal["delirium"]
    mat: int
    delirium: int
    capacity: int
    reason: Literal["track_full"]


class DiceRolled(TypedDict):
    type: Literal["dice_rolled"]
    mat: int
    town: int
    dice: list[int]  # tentacles shown on each Cthulhu Die
    cost: int  # the highest die


class BanishFailed(TypedDict):
    type: Literal["banish_failed"]
    mat: int
    town: int
    cost: int
    reason: str


class BanishDeclined(TypedDict):
    type: Literal["banish_declined"]
    mat: int


class Payment(TypedDict):
    madness: int  # tentacles of the Shambler's color
    chaos: int  # Chaos Tentacles standing in


class Banished(TypedDict):
    type: Literal["banished"]
    mat: int
    town: int
    color: str
    dice: list[int]
    cost: int
    payment: Payment
    rage_at_start: int
    mat_tentacles_discarded: int  # the bonus: tentacles of its color off the Shambler Mat


class ActionsEnded(TypedDict):
    type: Literal["actions_ended"]
    mat: int
    skipped: int


class Fed(TypedDict):
    type: Literal["fed"]
    town: int
    color: str
    shambler_mat: int  # that color's tentacles on the Shambler Mat now


class GameWon(TypedDict):
    type: Literal["game_won"]
    cause: Literal["banished"]
    turn: int
    shambler_mat: dict[str, int]  # Shamblers banished, by color


class GameLost(TypedDict):
    type: Literal["game_lost"]
    cause: Literal["shambler_mat_full", "delirium", "shambler_track_empty"]
    turn: int
    color: NotRequired[str]  # shambler_mat_full: the color ...
    count: NotRequired[int]  # ... and how many of its tentacles
    mat: NotRequired[int]  # delirium: whose track filled
    town: NotRequired[int]  # shambler_track_empty: where the Shambler was due


ShamblersEvent = (
    GameStarted | TurnStarted | WheelTurned | BagRefilled | BagEmpty | TentaclesDrawn | ShamblerPlaced | Moved
    | Gathered | Delirium | DiceRolled | BanishFailed | BanishDeclined | Banished | ActionsEnded | Fed | GameWon | GameLost
)
