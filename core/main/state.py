"""The main game's state: plain data, changed only by the engine's tasks."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ..command import Command
from ..rng import Rng
from .tasks import HeldCard, Pending, Roll, Task, _copy, _same, canonical_task, task_from_canonical


ELDER = "elder_one"  # the Elder One's figure kind (and id)


@dataclass(slots=True)
class Investigator:
    id: str
    seat: int
    space: str
    wounds: int = 0
    stress: int = 0
    sanity: int = 0
    levels: dict[str, int] = field(default_factory=dict)
    bonus: int = 0  # permanent bonus dice from insanity thresholds
    fire: int = 0  # Fire tokens on the board
    fire_wounds: int = 0  # wound tokens standing in for Fire when the reserve ran dry
    reached: list[int] = field(default_factory=list)  # thresholds reached, in order
    alive: bool = True
    cause: str | None = None  # "killed" or "madness"
    insanity: str | None = None  # the insanity card dealt face up
    tokens: dict[str, int] = field(default_factory=dict)
    cards: list[HeldCard] = field(default_factory=list)  # claimed Discovery halves
    kept: list[str] = field(default_factory=list)  # Mythos cards kept by an insanity


@dataclass(slots=True)
class Figure:
    id: str
    kind: str
    space: str
    wounds: int = 0


@dataclass(slots=True)
class MainState:
    rng: Rng
    episode: str
    elder_one: str
    investigators: list[Investigator]
    figures: list[Figure]
    reserve: dict[str, int]
    fire: dict[str, int]
    fire_reserve: int
    wound_tokens: int
    turn: int = 0
    active: int = 0
    phase: str = "setup"
    actions_left: int = 0
    stack: list[Task] = field(default_factory=list)
    pending: Pending | None = None  # the decision being waited for
    result: str | None = None
    cause: str | None = None
    last_roll: Roll | None = None
    figure_serial: int = 0
    # Decks hold card ids ("eo:N" for the Elder One's Mythos cards, "ep:N" for the episode's,
    # plain "N" for Discovery cards). Their order is secret; views show counts.
    mythos_deck: list[str] = field(default_factory=list)
    mythos_discard: list[str] = field(default_factory=list)
    discovery_deck: list[str] = field(default_factory=list)
    discovery_discard: list[str] = field(default_factory=list)
    space_tokens: dict[str, dict[str, int]] = field(default_factory=dict)
    track: int = 1  # the Elder One figure's space on the summoning track, then the Progression token's
    summoned: bool = False
    stage: int = 0  # index of the current Elder One stage card (0 = Stage 1)
    ritual: int = 0
    disrupted: bool = False
    disrupted_this_turn: bool = False
    advanced_this_turn: bool = False

    def figure(self, fid: str) -> Figure:
        for f in self.figures:
            if f.id == fid:
                return f
        raise KeyError(fid)

    def enemies_at(self, space: str) -> list[Figure]:
        return [f for f in self.figures if f.space == space]

    def canonical(self, *, fresh: bool = True) -> dict[str, Any]:
        """Every field as plain data, secrets included. `fresh`: a copy of every list and dict (to
        keep); otherwise the data shares the state's own, to be read at once and let go (the state
        hash, per step, spared a copy of the whole state)."""
        copy = _copy if fresh else _same
        data = {k: _copy(getattr(self, k)) for k in _PLAIN} if fresh else {k: getattr(self, k) for k in _PLAIN}
        data["rng"] = self.rng.canonical()
        data["investigators"] = [({k: _copy(getattr(i, k)) for k in _INV} if fresh else {k: getattr(i, k) for k in _INV})
                                 for i in self.investigators]
        data["figures"] = [{"id": f.id, "kind": f.kind, "space": f.space, "wounds": f.wounds} for f in self.figures]
        data["stack"] = [canonical_task(t, fresh=fresh) for t in self.stack]
        data["pending"] = None
        if self.pending is not None:
            p = self.pending
            data["pending"] = {k: copy(v) for k, v in p.items() if k != "options"}
            data["pending"]["options"] = [[c.wire(), label] for c, label in p["options"]]
        return data

    @classmethod
    def from_canonical(cls, data: dict[str, Any]) -> "MainState":
        import copy

        data = copy.deepcopy(data)
        pending = data.pop("pending")
        if pending is not None:
            pending["options"] = [(Command.from_wire(c), label) for c, label in pending["options"]]
        stack = [task_from_canonical(t) for t in data.pop("stack")]
        return cls(
            stack=stack,
            rng=Rng.from_canonical(data.pop("rng")),
            investigators=[Investigator(**i) for i in data.pop("investigators")],
            figures=[Figure(**f) for f in data.pop("figures")],
            pending=pending,
            **data,
        )


_PLAIN = tuple(f.name for f in fields(MainState) if f.name not in ("rng", "investigators", "figures", "pending", "stack"))
_INV = tuple(f.name for f in fields(Investigator))
