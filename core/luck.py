"""How lucky each player was: a game's dice set against their exact odds, and what each player did.

A mode declares a `Mode.luck` keeper: it is shown a game's events step by step (a replay of its
save, or a peer's own replay of the log at game over) and sums, per investigator or Player Mat,
what the dice showed. A `Tally` keeps, beside the symbols counted, the exact distribution of that
count over every die thrown (integer numerators over one denominator, convolved die by die), so
"luckier than 91% of games" is read off the real distribution, not a normal approximation: it is
the share of the ways those same dice could have fallen that count worse for the player, ties
counted half. Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import sqrt
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .command import Event
    from .game import Game


class Tally:
    """One symbol summed over many dice throws, with the exact distribution of that sum."""

    def __init__(self, key: str, what: tuple[str, str], more_is_better: bool, rolled: str = "{who} rolled") -> None:
        self.key = key  # its name in JSON
        self.one, self.what = what  # the noun, one and many: ("success", "successes")
        self.rolled = rolled  # the sentence's subject and verb, naming the player as {who}
        self.more_is_better = more_is_better
        self.got = 0
        self.dice = 0
        self.counts = [1]  # counts[k] / whole = P(the sum is k)
        self.whole = 1

    def add(self, die: Sequence[int], shown: int) -> None:
        """One throw of a die whose faces count `die` (each face equally likely), showing `shown`."""
        top = len(self.counts) - 1 + max(die)
        nxt = [0] * (top + 1)
        for k, c in enumerate(self.counts):
            if c:
                for v in die:
                    nxt[k + v] += c
        self.counts, self.whole = nxt, self.whole * len(die)
        self.got += shown
        self.dice += 1

    @property
    def expected(self) -> Fraction:
        return Fraction(sum(k * c for k, c in enumerate(self.counts)), self.whole)

    @property
    def sd(self) -> float:
        mean = self.expected
        return sqrt(sum((k - mean) ** 2 * c for k, c in enumerate(self.counts)) / self.whole)

    @property
    def luckier_than(self) -> Fraction:
        """The share of the ways these dice could have fallen that count worse for the player (ties half)."""
        worse = sum(self.counts[: self.got]) if self.more_is_better else sum(self.counts[self.got + 1:])
        same = self.counts[self.got] if self.got < len(self.counts) else 0
        return Fraction(2 * worse + same, 2 * self.whole)

    def sentence(self, who: str) -> str:
        """'Ada rolled 3 more successes than expected (14 against 11.0): luckier than 91% of games.'"""
        gap = self.got - self.expected
        sds = float(gap) / self.sd if self.sd else 0.0
        more = "more" if gap > 0 else "fewer"
        near = abs(round(float(gap), 1))
        about = f"{near:g} {more} {self.one if near == 1 else self.what} than expected" if near else f"as many {self.what} as expected"
        spread = f", {abs(sds):.1f} standard deviations {'above' if sds > 0 else 'below'}" if abs(sds) >= 0.05 else ""
        share = self.luckier_than
        verdict = (f"luckier than {percent(share)} of games" if share >= Fraction(1, 2)
                   else f"unluckier than {percent(1 - share)} of games")
        return f"{self.rolled.format(who=who)} {about} ({self.got} against {float(self.expected):.1f}{spread}): {verdict}."

    def wire(self) -> dict[str, Any]:
        return {"key": self.key, "what": self.what, "more_is_better": self.more_is_better, "got": self.got, "dice": self.dice,
                "expected": round(float(self.expected), 4), "sd": round(self.sd, 4),
                "luckier_than": round(float(self.luckier_than), 4)}


def percent(p: Fraction) -> str:
    """A share for people: '91%', '99.7%' near the ends, never a rounded 0% or 100%."""
    for digits in (0, 1, 2):
        text = f"{float(p) * 100:.{digits}f}"
        if float(text) not in (0.0, 100.0) or p in (0, 1):
            return f"{text}%"
    return "under 0.01%" if p < Fraction(1, 2) else "over 99.99%"


def chance(p: Fraction) -> str:
    """'a 12% chance', 'a 1 in 350 chance'."""
    return f"a {percent(p)} chance" if p >= Fraction(1, 100) else f"a 1 in {round(1 / p):,} chance"


@dataclass(frozen=True, slots=True)
class NotedRoll:
    """One roll remarked on: what it was and the chance of a result as good (luckiest) or as bad (unluckiest)."""

    what: str
    chance: Fraction
    step: int

    def wire(self) -> dict[str, Any]:
        return {"what": self.what, "chance": round(float(self.chance), 6), "step": self.step}


@dataclass
class Rolls:
    """The luckiest and unluckiest roll seen so far: the smallest chance of doing as well, or as badly."""

    luckiest: NotedRoll | None = None
    unluckiest: NotedRoll | None = None

    def see(self, what: str, step: int, as_good: Fraction, as_bad: Fraction) -> None:
        """A roll whose result had the chance `as_good` of being matched or beaten and `as_bad` of being
        matched or undercut: a candidate for the luckiest if the first is the smaller, else the unluckiest."""
        if as_good <= as_bad:
            if as_good < 1 and (self.luckiest is None or as_good < self.luckiest.chance):
                self.luckiest = NotedRoll(what, as_good, step)
        elif self.unluckiest is None or as_bad < self.unluckiest.chance:
            self.unluckiest = NotedRoll(what, as_bad, step)


@dataclass
class Person:
    """One investigator's or Player Mat's figures: the tallies, the noted rolls, and the rest as facts."""

    name: str
    seat: int | None = None
    tallies: list[Tally] = field(default_factory=list)
    rolls: Rolls = field(default_factory=Rolls)
    stats: dict[str, Any] = field(default_factory=dict)  # JSON-able figures of the mode's own
    facts: list[str] = field(default_factory=list)  # the same figures in sentences

    def lines(self) -> list[str]:
        out = [t.sentence(self.name) for t in self.tallies if t.dice]
        if self.rolls.luckiest is not None:
            out.append(f"Luckiest roll: {self.rolls.luckiest.what} ({chance(self.rolls.luckiest.chance)} of as good or better).")
        if self.rolls.unluckiest is not None:
            out.append(f"Unluckiest roll: {self.rolls.unluckiest.what} ({chance(self.rolls.unluckiest.chance)} of as bad or worse).")
        out += self.facts
        return out or ["No dice rolled yet."]

    def wire(self) -> dict[str, Any]:
        return {"name": self.name, "seat": None if self.seat is None else self.seat + 1,  # seats count from 1 in every output
                 "tallies": [t.wire() for t in self.tallies],
                "luckiest": self.rolls.luckiest.wire() if self.rolls.luckiest else None,
                "unluckiest": self.rolls.unluckiest.wire() if self.rolls.unluckiest else None, **self.stats}


@dataclass
class LuckReport:
    """A game's luck report: a section per investigator or Player Mat, and the table's own facts."""

    people: list[Person]
    table: list[str] = field(default_factory=list)
    steps: int = 0

    def lines(self) -> list[str]:
        """The report as text: each person's name, then their sentences indented."""
        out: list[str] = []
        for p in self.people:
            out.append(p.name + (f" (seat {p.seat + 1})" if p.seat is not None else "") + ":")
            out += [f"  {line}" for line in p.lines()]
        return out + self.table

    def wire(self) -> dict[str, Any]:
        return {"steps": self.steps, "people": [p.wire() for p in self.people], "table": list(self.table)}


class LuckKeeper(Protocol):
    """What a mode's `Mode.luck` makes from a game at its start: shown each step's events, it reports."""

    def see(self, step: int, events: Sequence[Event]) -> None: ...

    def report(self) -> LuckReport: ...


def keeper(game: Game) -> LuckKeeper | None:
    """The luck keeper of the game's mode, shown the game's setup events; None for a mode that keeps none."""
    from . import modes

    make = modes.get(game.setup.mode).luck
    if make is None:
        return None
    keep = make(game)
    keep.see(0, game.start_events)
    return keep


def seats_of(report: LuckReport, game: Game) -> LuckReport:
    """The report with each person's seat, from the mode's `characters` (who plays what) at the end."""
    from . import modes

    mode = modes.get(game.setup.mode)
    if mode.characters is not None:
        seat_of = {name: seat for seat, names in mode.characters(game.view(None)).items() for name in names}
        for p in report.people:
            p.seat = seat_of.get(p.name, p.seat)
    report.steps = game.step
    return report


def luck_of_line(game: Game, commands: Iterable[tuple[int, dict[str, Any]]]) -> LuckReport | None:
    """The luck report of a game played from `game` (fresh, at step 0) through `commands`, (seat,
    command wire) pairs as a host's log keeps them: a host's own report at the end, no save read."""
    from .command import Command

    keep = keeper(game)
    if keep is None:
        return None
    for step, (seat, wire) in enumerate(commands, start=1):
        keep.see(step, game.apply(seat, Command.from_wire(wire)))
    return seats_of(keep.report(), game)
