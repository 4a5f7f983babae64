"""Exact dice odds: the chance of each total, and of reaching a number, with rerolls or without.

A die is the list of what each of its faces counts (one integer per face, all faces equally
likely), so the same arithmetic serves any content's dice and any symbol change in force: a
face counts its successes, plus its elder signs where those count as successes, minus them
where each cancels a success (`core.main.odds` reads these from the content and the view).
Everything is exact, never sampled: integer counts over a common denominator, made a
`Fraction` at the end.

Rerolls are one die at a time, each seen before the next is chosen ("the investigator may
take 1 stress to reroll 1 chosen die, repeatedly", RULES.md). "Up to N rerolls" means the
policy that gives the best chance of the goal: `best_chance` and `policy_distribution` work it
out by dynamic programming over what the dice show, counted by value for each kind of die (dice
that are the same die showing the same value are one state, so the work grows with the counts
of values, never with the faces of every die: 12 + 12 dice with 12 rerolls is about 15,000
states). For reaching a number that policy is simply "reroll a die that counts least while the
total is short, stop as soon as it is reached", and the programme finds it without being told.
`after_reroll` is the other policy the interface names: reroll that one die once, then keep
whatever it shows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import product
from math import comb, lcm
from typing import Literal

Die = tuple[int, ...]  # what each face counts
Goal = Literal["reach", "avoid"]  # reach: at least `need` is good; avoid: at least `need` is bad

ONE = Fraction(1)
ZERO = Fraction(0)

State = int  # how many dice show each value of each kind of die, a digit a slot (`_Plan`)


def distribution(dice: Sequence[Die], offset: int = 0) -> list[Fraction]:
    """P(total = k) for k = 0, 1, ...: the total of one roll of `dice` plus `offset`, never below 0."""
    totals: dict[int, Fraction] = {offset: ONE}
    for die in dice:
        share = Fraction(1, len(die))
        nxt: dict[int, Fraction] = {}
        for total, p in totals.items():
            for value in die:
                nxt[total + value] = nxt.get(total + value, ZERO) + p * share
        totals = nxt
    return _clamped(totals)


def at_least(dist: Sequence[Fraction], need: int) -> Fraction:
    """P(total >= need) from a distribution of totals."""
    return sum(dist[max(0, need):], ZERO)


def after_reroll(dice: Sequence[Die], faces: Sequence[int], die: int, need: int, *, goal: Goal = "reach", offset: int = 0) -> Fraction:
    """The chance of the goal if die number `die` is rerolled once and the dice are then kept."""
    rest = sum(d[f] for n, (d, f) in enumerate(zip(dice, faces)) if n != die) + offset
    values = dice[die]
    return Fraction(sum(1 for v in values if _good(rest + v, need, goal)), len(values))


def best_chance(dice: Sequence[Die], need: int, rerolls: int, *, faces: Sequence[int] | None = None,
                goal: Goal = "reach", offset: int = 0) -> Fraction:
    """The chance of the goal with up to `rerolls` rerolls played as well as possible.

    `faces`: the face index each die shows now (a roll being decided); None: before the roll."""
    plan = _Plan(dice, need, goal, offset)
    if faces is not None:
        return Fraction(plan.value(plan.shown(faces), rerolls), plan.scale ** rerolls)
    total = sum(weight * plan.value(state, rerolls) for state, weight in plan.rolls())
    return Fraction(total, plan.roll_scale * plan.scale ** rerolls)


def policy_distribution(dice: Sequence[Die], need: int, rerolls: int, *, goal: Goal = "reach", offset: int = 0) -> list[Fraction]:
    """P(final total = k) when up to `rerolls` rerolls are played by `best_chance`'s policy: on a
    tie it keeps the dice (a reroll that cannot help is not worth its stress), and of equally good
    rerolls it takes the first kind of die (in the order of `dice`) showing the lowest value."""
    plan = _Plan(dice, need, goal, offset)
    totals: dict[int, int] = {}
    for state, weight in plan.rolls():
        for total, q in plan.follow(state, rerolls).items():
            totals[total] = totals.get(total, 0) + weight * q
    whole = plan.roll_scale * plan.scale ** rerolls
    return _clamped({t: Fraction(q, whole) for t, q in totals.items()})


def _good(total: int, need: int, goal: Goal) -> bool:
    return (total >= need) == (goal == "reach")


def _clamped(totals: dict[int, Fraction]) -> list[Fraction]:
    out = [ZERO] * (max(0, max(totals)) + 1)
    for total, p in totals.items():
        out[max(0, total)] += p
    return out


class _Plan:
    """The reroll programme for one roll. A state is how many dice show each value of each kind of die:
    a count per slot (a slot per kind and value, each kind's values lowest first), written as one integer
    with a digit per slot in base `len(dice) + 1`. A state's value with `r` rerolls left is an integer over
    `scale ** r` (`scale`: a common multiple of the dice's face counts), kept once found, with the
    policy's move from it."""

    def __init__(self, dice: Sequence[Die], need: int, goal: Goal, offset: int) -> None:
        kinds: list[Die] = []
        for die in dice:
            if die not in kinds:
                kinds.append(die)
        self.dice, self.kinds = dice, kinds
        self.need, self.goal, self.offset = need, goal, offset
        self.scale = lcm(*(len(k) for k in kinds)) if kinds else 1
        self.slots: list[tuple[Die, int]] = [(k, v) for k in kinds for v in sorted(set(k))]  # (kind, value)
        self.base = len(dice) + 1
        self.units: list[int] = [self.base**n for n in range(len(self.slots))]
        # What rerolling one die of a slot does: (change to the state, change to the total, weight over `scale`).
        self.lands = [[(self.units[t] - self.units[s], v - value, kind.count(v) * (self.scale // len(kind)))
                       for t, (k, v) in enumerate(self.slots) if k == kind]
                      for s, (kind, value) in enumerate(self.slots)]
        self.roll_scale = 1
        for k in dice:
            self.roll_scale *= len(k)
        self._values: dict[tuple[State, int], tuple[int, int]] = {}  # (state, rerolls) -> (value, slot rerolled or -1)
        self._follow: dict[tuple[State, int], dict[int, int]] = {}

    def state(self, counts: Sequence[int]) -> State:
        return sum(c * u for c, u in zip(counts, self.units))

    def shown(self, faces: Sequence[int]) -> State:
        """The state of dice lying with these face indices."""
        return sum(self.units[self.slots.index((die, die[face]))] for die, face in zip(self.dice, faces))

    def rolls(self) -> Iterator[tuple[State, int]]:
        """Every state one throw of all the dice can leave, with its weight over `roll_scale`."""
        per_kind = []
        for kind in self.kinds:
            values = [v for k, v in self.slots if k == kind]
            per_kind.append(list(_spreads(sum(1 for d in self.dice if d == kind), [kind.count(v) for v in values])))
        for combo in product(*per_kind):
            weight = 1
            for _, w in combo:
                weight *= w
            yield self.state([c for counts, _ in combo for c in counts]), weight

    def total(self, state: State) -> int:
        return sum((state // u) % self.base * v for u, (_, v) in zip(self.units, self.slots)) + self.offset

    def value(self, state: State, rerolls: int, total: int | None = None) -> int:
        """The best chance of the goal from `state` with `rerolls` left, over `scale ** rerolls`."""
        found = self._values.get((state, rerolls))
        if found is None:
            found = self._values[(state, rerolls)] = self._best(state, rerolls, self.total(state) if total is None else total)
        return found[0]

    def _best(self, state: State, rerolls: int, total: int) -> tuple[int, int]:
        whole: int = self.scale**rerolls
        best = whole if _good(total, self.need, self.goal) else 0
        pick = -1
        if rerolls <= 0 or best == whole:
            return best, pick
        value, base = self.value, self.base
        for s, unit in enumerate(self.units):
            if (state // unit) % base:
                got = sum(w * value(state + step, rerolls - 1, total + gain) for step, gain, w in self.lands[s])
                if got > best:
                    best, pick = got, s
        return best, pick

    def follow(self, state: State, rerolls: int) -> dict[int, int]:
        """The final totals the policy leads to from `state`, each weighted over `scale ** rerolls`."""
        key = (state, rerolls)
        found = self._follow.get(key)
        if found is not None:
            return found
        self.value(state, rerolls)
        s = self._values[key][1]
        if s < 0:
            found = {self.total(state): self.scale**rerolls}
        else:
            found = {}
            for step, _, w in self.lands[s]:
                for total, q in self.follow(state + step, rerolls - 1).items():
                    found[total] = found.get(total, 0) + w * q
        self._follow[key] = found
        return found


def _spreads(n: int, faces: list[int]) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every way `n` dice can show the values (of which `faces[j]` faces show value j), as counts
    per value, with how many of the dice's face combinations give it."""
    if len(faces) == 1:
        yield (n,), faces[0] ** n
        return
    for c in range(n + 1):
        for rest, w in _spreads(n - c, faces[1:]):
            yield (c, *rest), comb(n, c) * faces[0] ** c * w
