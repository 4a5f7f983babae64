"""Shamblers mode's luck report (`Mode.luck`): each Player Mat's Cthulhu Dice against their exact odds.

A banish roll throws one Cthulhu Die per Shambler in the town and costs the highest die, so
fewer tentacles are luckier: each die is tallied, and each roll's cost is set against the
exact chance of a cost as low (or as high). Banishes tried, won, failed and declined, and the
Madness each mat gathered, are counted from the same events.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..luck import LuckReport, Person, Tally

if TYPE_CHECKING:
    from ..command import Event
    from ..game import Game


class _Mat:
    def __init__(self, name: str) -> None:
        self.tentacles = Tally("tentacles", ("tentacle on the Cthulhu Dice", "tentacles on the Cthulhu Dice"), False)
        self.person = Person(name, tallies=[self.tentacles])
        self.banishes: Counter[str] = Counter()  # tried, won, failed, declined
        self.gathered: Counter[str] = Counter()  # by color name
        self.discarded = 0  # gathered onto a full track: to the Discard Mat


class ShamblersLuck:
    """Sums a Shamblers game's events per Player Mat (`core.luck.LuckKeeper`)."""

    def __init__(self, game: Game) -> None:
        view = game.view(None)
        self.die = tuple(view["die"]["faces"])
        self.colors = {c["id"]: c["tentacle"] for c in view["colors"]}
        self.towns = [t["name"] for t in view["towns"]]
        self.mats = [_Mat(m["name"]) for m in view["mats"]]
        self.turn = 0

    def see(self, step: int, events: Sequence[Event]) -> None:
        for event in events:
            e = event.wire()
            kind = e["type"]
            if kind == "turn_started":
                self.turn = e["turn"]
            elif kind == "dice_rolled":
                self._rolled(step, e)
            elif kind == "banished":
                self.mats[e["mat"]].banishes["won"] += 1
            elif kind == "banish_failed":
                self.mats[e["mat"]].banishes["failed"] += 1
            elif kind == "banish_declined":
                self.mats[e["mat"]].banishes["declined"] += 1
            elif kind == "gathered":
                mat = self.mats[e["mat"]]
                mat.gathered[self.colors.get(e["color"], "Chaos" if e["color"] == "chaos" else e["color"])] += 1
                mat.discarded += e["to"] == "discard"

    def _rolled(self, step: int, e: dict[str, Any]) -> None:
        mat = self.mats[e["mat"]]
        mat.banishes["tried"] += 1
        for shown in e["dice"]:
            mat.tentacles.add(self.die, shown)
        n, cost = len(e["dice"]), e["cost"]
        if not n:
            return
        faces = len(self.die)
        at_most = Fraction(sum(1 for f in self.die if f <= cost), faces) ** n
        at_least = 1 - Fraction(sum(1 for f in self.die if f < cost), faces) ** n
        shown = [str(d) for d in e["dice"]]
        dice = shown[0] if n == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
        what = f"banish roll in {self.towns[e['town']]} on turn {self.turn}: the dice showed {dice}, a cost of {cost}"
        mat.person.rolls.see(what, step, at_most, at_least)

    def report(self) -> LuckReport:
        for mat in self.mats:
            b = mat.banishes
            mat.person.stats = {"banishes": {k: b[k] for k in ("tried", "won", "failed", "declined")},
                                "gathered": dict(mat.gathered.most_common()), "discarded": mat.discarded}
            facts = mat.person.facts = []
            if b["tried"]:
                declined = f", {b['declined']} declined" if b["declined"] else ""
                facts.append(f"Banishes: {b['tried']} tried, {b['won']} won, {b['failed']} failed{declined}.")
            if mat.gathered:
                spilled = f"; {mat.discarded} onto full tracks, to the Discard Mat" if mat.discarded else ""
                facts.append(f"Madness gathered: {sum(mat.gathered.values())} ("
                             + ", ".join(f"{n} {color}" for color, n in mat.gathered.most_common()) + f"){spilled}.")
        return LuckReport([m.person for m in self.mats])
