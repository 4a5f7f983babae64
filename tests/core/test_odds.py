"""Exact dice odds against brute force: every face combination of small rolls enumerated, and every
reroll sequence searched die by die, with the real faces of content/main/dice.toml."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest

from cthulhu import cli
from cthulhu.content import builtin
from cthulhu.core import Command, Game, Setup
from cthulhu.core.game import script_dice
from cthulhu.core.main.odds import die_of, roll_odds
from cthulhu.core.odds import after_reroll, at_least, best_chance, distribution, policy_distribution

FACES = builtin().main.dice


def brute_count(face: str, elder_hits: bool = False, shield: bool = False) -> int:
    """What a face counts, read straight off its symbols (independently of core.main.odds)."""
    parts = [p for p in face.split("+") if p]
    return sum(1 for p in parts if p == "success") + (parts.count("elder") if elder_hits else 0) - (parts.count("elder") if shield else 0)


def brute_distribution(kinds: list[list[str]], count, offset: int = 0) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for combo in itertools.product(*kinds):
        total = max(0, sum(count(f) for f in combo) + offset)
        out[total] = out.get(total, Fraction(0)) + Fraction(1, 6 ** len(kinds))
    return out


_BRUTE: dict[tuple, Fraction] = {}


def brute_best(kinds: list[list[str]], shown: tuple[int, ...], need: int, rerolls: int, count, goal: str = "reach", offset: int = 0) -> Fraction:
    """Expectimax over face indices, die by die, with no state merging at all (each tuple of face
    indices is its own state; only the very same tuple's value is remembered)."""
    key = (tuple(map(tuple, kinds)), shown, need, rerolls, count, goal, offset)
    if key not in _BRUTE:
        _BRUTE[key] = _brute_best(kinds, shown, need, rerolls, count, goal, offset)
    return _BRUTE[key]


def _brute_best(kinds: list[list[str]], shown: tuple[int, ...], need: int, rerolls: int, count, goal: str, offset: int) -> Fraction:
    total = max(0, sum(count(kinds[n][f]) for n, f in enumerate(shown)) + offset)
    good = Fraction(int((total >= need) == (goal == "reach")))
    if rerolls == 0:
        return good
    best = good
    for n in range(len(shown)):
        value = sum(brute_best(kinds, shown[:n] + (f,) + shown[n + 1 :], need, rerolls - 1, count, goal, offset) for f in range(6)) / 6
        best = max(best, value)
    return best


def brute_follow(kinds: list[list[str]], shown: tuple[int, ...], need: int, rerolls: int, count, goal: str = "reach",
                 offset: int = 0) -> dict[int, Fraction]:
    """The final totals of `brute_best`'s policy, die by die: keep on a tie; of equally good rerolls, the die
    of the kind of die first in the roll (standard before bonus), then showing the lowest count."""
    total = max(0, sum(count(kinds[n][f]) for n, f in enumerate(shown)) + offset)
    best = Fraction(int((total >= need) == (goal == "reach")))
    pick = None
    if rerolls and best < 1:
        first = {id(k): n for n, k in reversed(list(enumerate(kinds)))}
        for n in sorted(range(len(shown)), key=lambda n: (first[id(kinds[n])], count(kinds[n][shown[n]]))):
            value = sum(brute_best(kinds, shown[:n] + (f,) + shown[n + 1 :], need, rerolls - 1, count, goal, offset) for f in range(6)) / 6
            if value > best:
                best, pick = value, n
    if pick is None:
        return {total: Fraction(1)}
    out: dict[int, Fraction] = {}
    for f in range(6):
        for t, q in brute_follow(kinds, shown[:pick] + (f,) + shown[pick + 1 :], need, rerolls - 1, count, goal, offset).items():
            out[t] = out.get(t, Fraction(0)) + q / 6
    return out


ROLLS = [(1, 0), (2, 0), (3, 0), (2, 1), (3, 1), (3, 2), (0, 3)]


@pytest.mark.parametrize(("standard", "bonus"), ROLLS)
@pytest.mark.parametrize("elder_hits", [False, True])
def test_the_distribution_is_every_face_combination_counted(standard, bonus, elder_hits):
    kinds = [FACES.standard] * standard + [FACES.bonus] * bonus
    mods = {"elder_hits": elder_hits}
    dice = [die_of(k, "attack", mods) for k in kinds]
    got = distribution(dice)
    want = brute_distribution(kinds, lambda f: brute_count(f, elder_hits))
    assert sum(got) == 1
    assert {k: p for k, p in enumerate(got) if p} == want


def test_cancelled_successes_and_armour_never_go_below_nothing():
    """An enemy's attack on a defender whose elder signs cancel successes, with 1 armour."""
    kinds = [FACES.standard] * 2 + [FACES.bonus] * 2
    dice = [die_of(k, "defend", {"elder_shield": True}) for k in kinds]
    got = distribution(dice, offset=-1)
    assert {k: p for k, p in enumerate(got) if p} == brute_distribution(kinds, lambda f: brute_count(f, shield=True), offset=-1)


@pytest.mark.parametrize(("standard", "bonus", "need", "rerolls"), [(3, 0, 2, 1), (3, 0, 3, 2), (2, 1, 2, 2), (1, 2, 3, 2), (3, 1, 4, 1)])
def test_the_best_reroll_policy_matches_a_search_of_every_reroll(standard, bonus, need, rerolls):
    kinds = [FACES.standard] * standard + [FACES.bonus] * bonus
    dice = [die_of(k, "check", {}) for k in kinds]
    count = brute_count
    before = sum(brute_best(kinds, shown, need, rerolls, count) for shown in itertools.product(range(6), repeat=len(kinds))) / 6 ** len(kinds)
    assert best_chance(dice, need, rerolls) == before
    dist = policy_distribution(dice, need, rerolls)
    assert sum(dist) == 1 and at_least(dist, need) == before
    # From dice already lying on the table, too (each of a few rolls).
    for shown in [(0,) * len(kinds), tuple(range(len(kinds))), (3,) * len(kinds)]:
        assert best_chance(dice, need, rerolls, faces=shown) == brute_best(kinds, shown, need, rerolls, count)


@pytest.mark.parametrize(("standard", "bonus", "need", "rerolls", "purpose", "goal", "offset"), [
    (3, 0, 2, 2, "check", "reach", 0), (2, 1, 3, 2, "attack", "reach", 0), (1, 2, 2, 3, "attack", "reach", 0),
    (3, 0, 1, 2, "defend", "avoid", -1), (2, 1, 1, 2, "fire", "avoid", 0), (2, 2, 3, 1, "check", "reach", 0),
])
def test_the_policy_and_its_totals_match_every_reroll_searched_die_by_die(standard, bonus, need, rerolls, purpose, goal, offset):
    """The dynamic programme over counts of values against expectimax over every die's faces, with no
    state merged: the chance of the goal before the roll and from dice lying on the table, and the
    distribution of final totals under the policy. Elder signs count on the attacks, cancel on the rolls
    against a shielded investigator."""
    kinds = [FACES.standard] * standard + [FACES.bonus] * bonus
    mods = {"elder_hits": True, "elder_shield": True}
    dice = [die_of(k, purpose, mods) for k in kinds]

    def count(face: str) -> int:
        return brute_count(face, elder_hits=purpose == "attack", shield=purpose in ("defend", "fire"))

    rolls = list(itertools.product(range(6), repeat=len(kinds)))
    chance = sum(brute_best(kinds, shown, need, rerolls, count, goal, offset) for shown in rolls) / len(rolls)
    assert best_chance(dice, need, rerolls, goal=goal, offset=offset) == chance
    totals: dict[int, Fraction] = {}
    for shown in rolls:
        for t, q in brute_follow(kinds, shown, need, rerolls, count, goal, offset).items():
            totals[t] = totals.get(t, Fraction(0)) + q / len(rolls)
    got = policy_distribution(dice, need, rerolls, goal=goal, offset=offset)
    assert {k: p for k, p in enumerate(got) if p} == totals
    for shown in rolls[:: max(1, len(rolls) // 40)]:
        assert best_chance(dice, need, rerolls, faces=shown, goal=goal, offset=offset) == brute_best(kinds, shown, need, rerolls, count, goal, offset)


def test_the_largest_roll_the_command_line_takes_is_worked_out_exactly_with_bounded_work():
    """12 standard + 12 bonus dice, 12 rerolls (`cthulhu odds`' limits): the states are counts of values
    (at most 13 x 91 of them for each number of rerolls left), never the faces of every die (6 ** 24)."""
    from cthulhu.cli.odds import RANGES
    from cthulhu.core.odds import _Plan

    most = RANGES["dice"][1], RANGES["bonus"][1], RANGES["rerolls"][1]
    assert most == (12, 12, 12)
    mods = {"elder_hits": True}
    dice = [die_of(FACES.standard, "attack", mods)] * 12 + [die_of(FACES.bonus, "attack", mods)] * 12
    chances = []
    for need in (30, 12, 1):
        plan = _Plan(dice, need, "reach", 0)
        chances.append(Fraction(sum(w * plan.value(state, 12) for state, w in plan.rolls()), plan.roll_scale * plan.scale**12))
        assert len(plan._values) <= 13 * 91 * 13
        dist = policy_distribution(dice, need, 12)
        assert sum(dist) == 1 and at_least(dist, need) == chances[-1]
    assert 0 < chances[0] < chances[1] < chances[2] < 1


def test_avoiding_wounds_is_searched_the_other_way():
    kinds = [FACES.standard] * 3
    dice = [die_of(k, "defend", {}) for k in kinds]
    for shown in [(1, 2, 0), (5, 5, 5), (0, 3, 4)]:
        assert best_chance(dice, 1, 2, faces=shown, goal="avoid") == brute_best(kinds, shown, 1, 2, brute_count, goal="avoid")


def test_one_reroll_then_keep():
    kinds = [FACES.standard] * 3
    dice = [die_of(k, "check", {}) for k in kinds]
    # success, blank, tentacle: 1 success, 2 needed; rerolling the blank succeeds on 3 faces of 6.
    assert after_reroll(dice, [1, 0, 3], 1, 2) == Fraction(1, 2)
    assert after_reroll(dice, [1, 0, 3], 0, 2) == Fraction(0)  # rerolling the success can only lose it


def test_the_command_line_prints_the_same_numbers(capsys):
    assert cli.main(["odds", "--dice", "3", "--bonus", "1", "--need", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = brute_distribution([FACES.standard] * 3 + [FACES.bonus], brute_count)
    assert out["distribution"] == [float(want.get(k, 0)) for k in range(len(out["distribution"]))]
    assert out["p_need"] == float(sum(p for k, p in want.items() if k >= 2))
    assert cli.main(["odds", "--dice", "3", "--need", "2", "--rerolls", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    kinds = [FACES.standard] * 3
    exact = sum(brute_best(kinds, s, 2, 1, brute_count) for s in itertools.product(range(6), repeat=3)) / 27 / 8
    assert out["p_need"] == float(exact) and out["p_need_exact"] == f"{exact.numerator}/{exact.denominator}"
    assert abs(sum(out["distribution"]) - 1) < 1e-12
    assert cli.main(["odds", "--dice", "2", "--need", "1"]) == 0
    text = capsys.readouterr().out
    assert "1 success needed: 75.0%" in text and "  1 success:  50.0%" in text


@pytest.mark.parametrize("argv", [["--dice", "0"], ["--need", "-1"], ["--rerolls", "40"], ["--dice", "99"]])
def test_misuse_is_one_line_and_exit_2(argv, capsys):
    assert cli.main(["odds", *argv]) == 2
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == 1 and captured.err.startswith("cthulhu odds: ") and captured.out == ""


def checking(*faces: str) -> tuple[Game, int]:
    """Seed 7: walk to a furnace door with the heuristic bot's choices, then roll its check (1 success
    needed) with scripted faces; the game at the dice prompt, and the seat deciding."""
    from cthulhu.core.bots import make_bot

    game = Game.new(Setup(mode="main", seed=7))
    bot = make_bot("heuristic", "main", 1)
    while not any(o.command.kind == "episode" for o in game.prompt.options):
        game.apply(game.prompt.seat, bot.choose(game, game.prompt.seat))
    seat = game.prompt.seat
    episode = next(o.command for o in game.prompt.options if o.command.kind == "episode")
    script_dice(game, *faces)
    game.apply(seat, episode)
    return game, seat


def test_the_odds_of_a_roll_being_decided_come_from_the_seats_view():
    """A scripted check in a real game: the dice prompt's view gives the need, the faces and what each reroll is worth."""
    game, seat = checking("", "tentacle", "elder")
    view = game.view(seat)
    odds = roll_odds(view, builtin().main)
    assert odds is not None and odds.purpose == "check" and odds.goal == "reach"
    assert odds.need == view["last_roll"]["need"] == 1 and odds.total == 0 and odds.keep == 0
    # Any one die rerolled comes up a success on 3 faces of 6.
    assert [r.chance for r in odds.rerolls] == [Fraction(1, 2)] * 3
    assert odds.best == best_chance([die_of(FACES.standard, "check", {})] * 3, 1, odds.more, faces=[0, 3, 4])
    assert odds.fresh_chance == Fraction(7, 8)
    game.apply(seat, Command.of("keep"))
    assert roll_odds(game.view(seat), builtin().main) is None


def test_at_a_roll_already_passed_the_odds_say_what_each_choice_risks_in_sanity():
    """1 success needed and shown, a tentacle showing too: every choice but rerolling the success is sure
    of the check, so the panel says what each one risks in sanity (a standard die shows a tentacle on 2
    faces of 6): keep, 1 sanity for sure; reroll the tentacle, a third; reroll the blank, still sure."""
    from cthulhu.tui.modes.main.odds import roll_lines

    game, seat = checking("success", "tentacle", "")
    view = game.view(seat)
    assert view["investigators"][view["last_roll"]["inv"]]["mods"].get("calm", 0) == 0
    odds = roll_odds(view, builtin().main)
    assert odds is not None and odds.need == 1 and odds.total == 1 and (odds.keep, odds.keep_sanity) == (1, 1)
    assert [(r.die, r.chance, r.sanity) for r in odds.rerolls] == [(0, Fraction(1, 2), 1), (1, 1, Fraction(1, 3)), (2, 1, 1)]
    lines = roll_lines(view, builtin())
    assert "keep the dice: 100%, 100% to lose sanity" in lines[0], lines
    assert lines[1].endswith("then keep: 50%, 100% to lose sanity") and lines[2].endswith("then keep: 100%, 33% to lose sanity"), lines
