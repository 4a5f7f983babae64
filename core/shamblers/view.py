"""What a seat sees of a Shamblers game: everything but the bag's and the Shambler Track's order.

`ShamblersView` is the declared shape of `Game.view(seat)` in this mode; tests
validate every view of many random games against it.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

from ..command import PromptWire
from .state import ShamblerState


class DifficultyView(TypedDict):
    id: str
    name: str


class ColorView(TypedDict):
    id: str
    tentacle: str  # the tentacle's name ("Rage")
    track: str  # the Player Mat track's name ("Rage Track")
    capacity: int


class TownView(TypedDict):
    id: str
    name: str
    tentacles: dict[str, int]  # by color, plus "chaos"
    shamblers: dict[str, int]  # by color
    mats: list[int]  # Player Mats standing here


class MatView(TypedDict):
    name: str
    seat: int
    town: int
    tracks: dict[str, int]
    chaos: int
    chaos_capacity: int
    delirium: int
    delirium_capacity: int


class BanishView(TypedDict):
    town: int
    cost: int
    dice: list[int]
    rage_at_start: int


class ShamblerMatView(TypedDict):
    shamblers: dict[str, int]
    tentacles: dict[str, int]


class DieView(TypedDict):
    name: str
    faces: list[int]


class GoalsView(TypedDict):
    win_per_color: int
    loss_mat_tentacles: int


class BanishRulesView(TypedDict):
    chaos_wild_max: int
    bonus_color: str
    bonus: list[int]  # tentacles off the Shambler Mat for 0, 1, 2 ... of the bonus color held


class ShamblersView(TypedDict):
    """`Game.view(seat)` in Shamblers mode. The façade fills `step`, `outcome` and `prompt`."""

    mode: Literal["shamblers"]
    difficulty: DifficultyView
    actions_per_turn: int
    wheel_draw: int  # tentacles the Wheel draws onto its card
    turn: int
    active: int
    active_seat: int
    phase: Literal["actions", "banish", "feed", "over"]
    actions_left: int
    wheel: int | None
    last_dice: list[int]
    banish: BanishView | None
    feeding: list[list[int]]  # [town, tentacles still to feed]
    colors: list[ColorView]
    towns: list[TownView]
    mats: list[MatView]
    shambler_mat: ShamblerMatView
    discard: dict[str, int]
    bag_count: int
    supply_chaos: int
    shambler_track_count: int
    die: DieView
    goals: GoalsView
    banish_rules: BanishRulesView
    cause: str | None
    step: int
    outcome: str | None
    prompt: PromptWire | None


def build_view(state: ShamblerState, seat: int | None) -> ShamblersView:
    """Everything public; never the bag's or the Shambler Track's order, nor the RNG."""
    cfg = state.cfg
    return {
        "mode": "shamblers",
        "difficulty": {"id": cfg.difficulty, "name": cfg.level.name},
        "actions_per_turn": cfg.actions_per_turn,
        "wheel_draw": cfg.wheel_draw,
        "turn": state.turn,
        "active": state.active,
        "active_seat": state.mats[state.active].seat,
        "phase": state.phase,
        "actions_left": state.actions_left,
        "wheel": state.wheel,
        "last_dice": list(state.dice),
        "banish": None
        if state.banish is None
        else {"town": state.banish["town"], "cost": state.banish["cost"], "dice": list(state.banish["dice"]),
              "rage_at_start": state.banish["rage"]},
        "feeding": [list(f) for f in state.feed],
        "colors": [
            {"id": c.id, "tentacle": c.tentacle, "track": c.track, "capacity": c.track_capacity}
            for c in cfg.colors
        ],
        "towns": [
            {
                "id": spec.id,
                "name": spec.name,
                "tentacles": dict(t.tentacles),
                "shamblers": dict(t.shamblers),
                "mats": [i for i, m in enumerate(state.mats) if m.town == index],
            }
            for index, (spec, t) in enumerate(zip(cfg.towns, state.towns))
        ],
        "mats": [
            {
                "name": m.name,
                "seat": m.seat,
                "town": m.town,
                "tracks": dict(m.tracks),
                "chaos": m.chaos,
                "chaos_capacity": cfg.chaos_capacity,
                "delirium": m.delirium,
                "delirium_capacity": cfg.delirium_capacity,
            }
            for m in state.mats
        ],
        "shambler_mat": {"shamblers": dict(state.mat_shamblers), "tentacles": dict(state.mat_tentacles)},
        "discard": dict(state.discard),
        "bag_count": len(state.bag),
        "supply_chaos": state.supply_chaos,
        "shambler_track_count": len(state.track),
        "die": {"name": cfg.die.name, "faces": list(cfg.die.faces)},
        "goals": {"win_per_color": cfg.win_per_color, "loss_mat_tentacles": cfg.loss_mat_tentacles},
        "banish_rules": {
            "chaos_wild_max": cfg.chaos_wild_max,
            "bonus_color": cfg.bonus_color,
            "bonus": list(cfg.banish_bonus),
        },
        "cause": state.cause,
        "step": 0,  # filled by the façade, as are the next two
        "outcome": None,
        "prompt": None,
    }
