"""Exact dice odds: the chance of each total, and of reaching a number, with rerolls or without.

A die is the list of what each of its faces counts (one integer per face, all faces equally
likely), so the same arithmetic serves any content's dice and any symbol change in force: a
face counts its successes, plus its elder signs where those count as successes, minus them
where each cancels a success (`core.main.odds` reads these from the content and the view).
Everything is computed with `Fraction`s by convolution and dynamic programming, never sampled.

Rerolls are one die at a time, each seen before the next is chosen ("the investigator may
take 1 stress to reroll 1 chosen die, repeatedly", RULES.md). "Up to N rerolls" means the
policy that gives the best chance of the goal: `best_chance` and `policy_distribution` work it
out exactly over every die the roll could show (for reaching a number that policy is simply
"reroll a die that counts least while the total is short, stop as soon as it is reached", and
the dynamic programme finds it without being told). `after_reroll` is the other policy the
interface names: reroll that one die once, then keep whatever it shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Literal

Die = tuple[int, ...]  # what each face counts
Goal = Literal["reach", "avoid"]  # reach: at least `need` is good; avoid: at least `need` is bad

ONE = Fraction(1)
ZERO = Fraction(0)


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
    out = [ZERO] * (max(0, max(totals)) + 1)
    for total, p in totals.items():
        out[max(0, total)] += p
    return out


def at_least(dist: Sequence[Fraction], need: int) -> Fraction:
    """P(total >= need) from a distribution of totals."""
    return sum(dist[max(0, need):], ZERO)


def _state(dice: Sequence[Die], faces: Sequence[int]) -> tuple[tuple[Die, int], ...]:
    """The dice as they lie: each die with the value it shows, in a canonical order."""
    return tuple(sorted(zip(dice, (d[f] for d, f in zip(dice, faces)))))


def _good(total: int, need: int, goal: Goal) -> bool:
    return (total >= need) == (goal == "reach")


@lru_cache(maxsize=200_000)
def _value(state: tuple[tuple[Die, int], ...], need: int, rerolls: int, goal: Goal, offset: int) -> Fraction:
    """The best chance of the goal from dice lying as `state` with `rerolls` left."""
    total = sum(v for _, v in state) + offset
    best = ONE if _good(total, need, goal) else ZERO
    if rerolls <= 0 or best == ONE:
        return best
    for index in _choices(state):
        best = max(best, _reroll_value(state, index, need, rerolls - 1, goal, offset))
    return best


def _choices(state: tuple[tuple[Die, int], ...]) -> list[int]:
    """One die of each distinct (die, value) pair: rerolling either of two equal dice is the same move."""
    seen: set[tuple[Die, int]] = set()
    out = []
    for n, item in enumerate(state):
        if item not in seen:
            seen.add(item)
            out.append(n)
    return out


def _reroll_value(state: tuple[tuple[Die, int], ...], index: int, need: int, rerolls: int, goal: Goal, offset: int) -> Fraction:
    die = state[index][0]
    rest = state[:index] + state[index + 1 :]
    share = Fraction(1, len(die))
    return sum((_value(tuple(sorted((*rest, (die, v)))), need, rerolls, goal, offset) * share for v in die), ZERO)


def best_chance(dice: Sequence[Die], need: int, rerolls: int, *, faces: Sequence[int] | None = None,
                goal: Goal = "reach", offset: int = 0) -> Fraction:
    """The chance of the goal with up to `rerolls` rerolls played as well as possible.

    `faces`: the face index each die shows now (a roll being decided); None: before the roll."""
    if faces is not None:
        return _value(_state(dice, faces), need, rerolls, goal, offset)
    total = ZERO
    for shown, p in _outcomes(dice):
        total += p * _value(shown, need, rerolls, goal, offset)
    return total


def after_reroll(dice: Sequence[Die], faces: Sequence[int], die: int, need: int, *, goal: Goal = "reach", offset: int = 0) -> Fraction:
    """The chance of the goal if die number `die` is rerolled once and the dice are then kept."""
    rest = sum(d[f] for n, (d, f) in enumerate(zip(dice, faces)) if n != die) + offset
    values = dice[die]
    return Fraction(sum(1 for v in values if _good(rest + v, need, goal)), len(values))


def policy_distribution(dice: Sequence[Die], need: int, rerolls: int, *, goal: Goal = "reach", offset: int = 0) -> list[Fraction]:
    """P(final total = k) when up to `rerolls` rerolls are played by `best_chance`'s policy
    (on a tie it keeps the dice: a reroll that cannot help is not worth its stress)."""
    totals: dict[int, Fraction] = {}
    for shown, p in _outcomes(dice):
        for total, q in _follow(shown, need, rerolls, goal, offset).items():
            totals[total] = totals.get(total, ZERO) + p * q
    out = [ZERO] * (max(0, max(totals)) + 1)
    for total, p in totals.items():
        out[max(0, total)] += p
    return out


def _follow(state: tuple[tuple[Die, int], ...], need: int, rerolls: int, goal: Goal, offset: int) -> dict[int, Fraction]:
    keep = _value(state, need, 0, goal, offset)
    best, pick = keep, None
    if rerolls > 0 and keep < ONE:
        for index in _choices(state):
            value = _reroll_value(state, index, need, rerolls - 1, goal, offset)
            if value > best:
                best, pick = value, index
    if pick is None:
        return {sum(v for _, v in state) + offset: ONE}
    die = state[pick][0]
    rest = state[:pick] + state[pick + 1 :]
    out: dict[int, Fraction] = {}
    share = Fraction(1, len(die))
    for v in die:
        for total, q in _follow(tuple(sorted((*rest, (die, v)))), need, rerolls - 1, goal, offset).items():
            out[total] = out.get(total, ZERO) + q * share
    return out


def _outcomes(dice: Sequence[Die]) -> list[tuple[tuple[tuple[Die, int], ...], Fraction]]:
    """Every way the dice can lie after one roll (as canonical states) with its chance."""
    states: dict[tuple[tuple[Die, int], ...], Fraction] = {(): ONE}
    for die in dice:
        share = Fraction(1, len(die))
        nxt: dict[tuple[tuple[Die, int], ...], Fraction] = {}
        for state, p in states.items():
            for v in die:
                key = tuple(sorted((*state, (die, v))))
                nxt[key] = nxt.get(key, ZERO) + p * share
        states = nxt
    return list(states.items())
