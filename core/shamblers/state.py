"""The Shamblers mode state: one small mutable aggregate of plain fields.

Tentacles on cards and mats are counts by color (their order never matters);
only the bag and the Shambler Track are ordered, and both are secret.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..rng import Rng
from .content import ShamblersContent
from .tables import Tables, tables

# Phases of a turn that wait for a decision (the Wheel needs none).
Phase = Literal["actions", "banish", "feed", "over"]
ACTIONS: Final = "actions"
BANISH: Final = "banish"
FEED: Final = "feed"
OVER: Final = "over"
PHASES: tuple[Phase, ...] = (ACTIONS, BANISH, FEED, OVER)


@dataclass(slots=True)
class MatState:
    """A Player Mat: its figure's Town Card, one track per color, Chaos and Delirium."""

    name: str
    seat: int
    town: int
    tracks: dict[str, int]
    chaos: int = 0
    delirium: int = 0

    def canonical(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seat": self.seat,
            "town": self.town,
            "tracks": dict(self.tracks),
            "chaos": self.chaos,
            "delirium": self.delirium,
        }

    @classmethod
    def from_canonical(cls, d: dict[str, Any]) -> "MatState":
        return cls(
            name=str(d["name"]),
            seat=int(d["seat"]),
            town=int(d["town"]),
            tracks={str(k): int(v) for k, v in d["tracks"].items()},
            chaos=int(d["chaos"]),
            delirium=int(d["delirium"]),
        )


@dataclass(slots=True)
class TownState:
    """A Town Card: tentacles by color (plus 'chaos') and Shamblers by color."""

    tentacles: dict[str, int]
    shamblers: dict[str, int]

    def madness(self, colors: list[str]) -> int:
        return sum(self.tentacles[c] for c in colors)

    def shambler_count(self) -> int:
        return sum(self.shamblers.values())

    def canonical(self) -> dict[str, Any]:
        return {"tentacles": dict(self.tentacles), "shamblers": dict(self.shamblers)}

    @classmethod
    def from_canonical(cls, d: dict[str, Any]) -> "TownState":
        return cls(
            tentacles={str(k): int(v) for k, v in d["tentacles"].items()},
            shamblers={str(k): int(v) for k, v in d["shamblers"].items()},
        )


@dataclass(slots=True)
class ShamblerState:
    rng: Rng
    cfg: ShamblersContent  # content, not state: left out of `canonical`
    mats: list[MatState]
    towns: list[TownState]
    bag: list[str]  # secret order; drawn from the end
    track: list[str]  # the Shambler Track, secret order; the next Shambler is track[0]
    mat_shamblers: dict[str, int]  # the Shambler Mat
    mat_tentacles: dict[str, int]
    discard: dict[str, int]  # the Discard Mat by color, Chaos too (gathered onto a full Chaos Track)
    supply_chaos: int = 0  # spent Chaos Tentacles (the general supply)
    turn: int = 0
    active: int = 0  # index of the active Player Mat
    phase: Phase = ACTIONS
    actions_left: int = 0
    wheel: int | None = None  # the Town Card the Wheel last turned to
    dice: list[int] = field(default_factory=list)  # the last Cthulhu Dice roll (public)
    banish: dict[str, Any] | None = None  # {town, cost, rage, dice} while a payment is chosen
    feed: list[list[int]] = field(default_factory=list)  # [[town, tentacles still to feed], ...]
    outcome: str | None = None
    cause: str | None = None
    t: Tables = field(init=False, repr=False, compare=False)  # the level's tables (`tables`): content, not state

    def __post_init__(self) -> None:
        self.t = tables(self.cfg)

    @property
    def colors(self) -> list[str]:
        return self.t.colors

    def canonical(self) -> dict[str, Any]:
        return {
            "rng": self.rng.canonical(),
            "mats": [m.canonical() for m in self.mats],
            "towns": [t.canonical() for t in self.towns],
            "bag": list(self.bag),
            "track": list(self.track),
            "mat_shamblers": dict(self.mat_shamblers),
            "mat_tentacles": dict(self.mat_tentacles),
            "discard": dict(self.discard),
            "supply_chaos": self.supply_chaos,
            "turn": self.turn,
            "active": self.active,
            "phase": self.phase,
            "actions_left": self.actions_left,
            "wheel": self.wheel,
            "dice": list(self.dice),
            "banish": None if self.banish is None else {k: (list(v) if isinstance(v, list) else v) for k, v in self.banish.items()},
            "feed": [list(f) for f in self.feed],
            "outcome": self.outcome,
            "cause": self.cause,
            "turn_limit": None,  # a retired field, kept so the canonical form (and every saved hash) stays the same
        }

    @classmethod
    def from_canonical(cls, d: dict[str, Any], cfg: ShamblersContent) -> "ShamblerState":
        banish = d["banish"]
        return cls(
            rng=Rng.from_canonical(d["rng"]),
            cfg=cfg,
            mats=[MatState.from_canonical(m) for m in d["mats"]],
            towns=[TownState.from_canonical(t) for t in d["towns"]],
            bag=[str(x) for x in d["bag"]],
            track=[str(x) for x in d["track"]],
            mat_shamblers={str(k): int(v) for k, v in d["mat_shamblers"].items()},
            mat_tentacles={str(k): int(v) for k, v in d["mat_tentacles"].items()},
            discard={str(k): int(v) for k, v in d["discard"].items()},
            supply_chaos=int(d["supply_chaos"]),
            turn=int(d["turn"]),
            active=int(d["active"]),
            phase=next(p for p in PHASES if p == d["phase"]),
            actions_left=int(d["actions_left"]),
            wheel=None if d["wheel"] is None else int(d["wheel"]),
            dice=[int(x) for x in d["dice"]],
            banish=None
            if banish is None
            else {
                "town": int(banish["town"]),
                "cost": int(banish["cost"]),
                "rage": int(banish["rage"]),
                "dice": [int(x) for x in banish["dice"]],
            },
            feed=[[int(a), int(b)] for a, b in d["feed"]],
            outcome=d["outcome"],
            cause=d["cause"],
        )
