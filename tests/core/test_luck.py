"""The luck report: its figures against a brute-force count of the same dice, on real saves.

Every figure is recounted here from the save's own events, by a different route: successes and
tentacles face by face, the whole game's odds from the binomial (each standard or bonus die shows
a success on half its faces), a short game's by listing every way its dice could have fallen,
and each noted roll's chance by listing its dice's faces.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
from itertools import product
from math import comb
from pathlib import Path

import pytest

from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.core.luck import Tally
from cthulhu.savegame import SaveWriter, load, luck_of, steps_told

SAVES = Path(__file__).resolve().parents[2] / "saves"
MAIN = ["example-won-main.save", "example-midgame-main.save"]


def bot_save(tmp_path: Path, mode: str, seed: int, players: int) -> Path:
    """A whole game played by heuristic bots, saved as a host saves it."""
    game = Game.new(Setup(mode=mode, seed=seed, players=players))
    path = tmp_path / f"{mode}-{seed}.save"
    writer = SaveWriter(path, game, players=[{"seat": s, "name": f"P{s}"} for s in range(players)])
    bots = {s: make_bot("heuristic", mode, seed + s) for s in range(players)}
    while game.outcome is None and game.step < 3000:
        seat = game.prompt.seat
        command = bots[seat].choose(game, seat)
        game.apply(seat, command)
        writer.append(seat, command.wire(), game.state_hash())
    writer.close()
    return path


@pytest.fixture(scope="module")
def main_saves(tmp_path_factory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("luck")
    return [SAVES / n for n in MAIN] + [bot_save(tmp, "main", 5, 3)]


def dice_of(save) -> tuple[dict, list[list[tuple[int, str, list]]]]:
    """The dice faces and, per investigator, every first throw: (step, purpose, [(kind, face)])."""
    rolls: dict[int, list] = {}
    faces = None
    for game, events in steps_told(save):
        faces = game.content.part("main").dice
        for e in events:
            if e.type == "dice_rolled":
                rolls.setdefault(e["inv"], []).append((game.step, e["purpose"], [tuple(d) for d in e["dice"]]))
    return {"standard": faces.standard, "bonus": faces.bonus}, [rolls.get(i, []) for i in range(max(rolls, default=-1) + 1)]


def count(face: str, symbol: str) -> int:
    return face.split("+").count(symbol) if face else 0


def mid_share(outcomes: list[int], got: int, more_is_better: bool) -> Fraction:
    """Of all listed outcomes, the share worse for the player, ties half."""
    worse = sum(1 for o in outcomes if (o < got if more_is_better else o > got))
    same = sum(1 for o in outcomes if o == got)
    return Fraction(2 * worse + same, 2 * len(outcomes))


def binomial_share(n: int, p: Fraction, got: int, more_is_better: bool) -> Fraction:
    pmf = [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    worse = sum(pmf[:got]) if more_is_better else sum(pmf[got + 1:])
    return worse + (pmf[got] if got <= n else 0) / 2


def test_the_dice_are_what_the_closed_forms_below_assume(content):
    dice = content.part("main").dice
    assert [count(f, "success") for f in dice.standard].count(1) == 3 and sum(count(f, "success") for f in dice.standard) == 3
    assert sum(count(f, "success") for f in dice.bonus) == 3 and max(count(f, "success") for f in dice.bonus) == 1
    assert sum(count(f, "tentacle") for f in dice.standard) == 2 and sum(count(f, "tentacle") for f in dice.bonus) == 0


def test_whole_game_figures_match_a_recount_and_the_binomial(main_saves):
    for path in main_saves:
        save = load(path)
        _, rolls = dice_of(save)
        report = luck_of(save)
        assert report is not None
        for person, theirs in zip(report.people, rolls):
            own = [d for _, purpose, dice in theirs if purpose in ("attack", "check") for d in dice]
            against = [d for _, purpose, dice in theirs if purpose in ("defend", "fire") for d in dice]
            every = own + against
            tallies = {t.key: t for t in person.tallies}
            for key, dice, symbol, more in (("successes", own, "success", True), ("successes_against", against, "success", False)):
                t = tallies[key]
                got = sum(count(face, symbol) for _, face in dice)
                assert (t.got, t.dice, t.expected) == (got, len(dice), Fraction(len(dice), 2))
                assert t.luckier_than == binomial_share(len(dice), Fraction(1, 2), got, more)
            t = tallies["tentacles"]
            standard = [d for d in every if d[0] == "standard"]
            got = sum(count(face, "tentacle") for _, face in every)
            assert (t.got, t.dice, t.expected) == (got, len(every), Fraction(len(standard), 3))
            # A bonus die never shows a tentacle: the count is binomial over the standard dice alone.
            assert t.luckier_than == binomial_share(len(standard), Fraction(1, 3), got, False)
        assert sum(p.stats["rolls"].get(k, 0) for p in report.people for k in ("attack", "check", "defend", "fire")) == sum(map(len, rolls))


def test_a_short_game_s_share_is_a_count_of_every_way_its_dice_could_fall(main_saves):
    """Up to the first step where someone has thrown 4 to 7 dice: list all 6**n falls of those dice."""
    checked = 0
    for path in main_saves:
        save = load(path)
        faces, _ = dice_of(save)
        for upto in range(1, save.last_step + 1):
            report = luck_of(save, upto=upto)
            t = next((t for p in report.people for t in p.tallies if 4 <= t.dice <= 7), None)
            if t is not None:
                break
        else:
            continue
        person = next(p for p in report.people if t in p.tallies)
        _, rolls = dice_of(save.model_copy(update={"steps": save.steps[:upto]}))
        theirs = rolls[report.people.index(person)]
        wanted = ("attack", "check") if t.key == "successes" else ("defend", "fire") if t.key == "successes_against" else None
        dice = [d for _, purpose, ds in theirs if wanted is None or purpose in wanted for d in ds]
        symbol = "tentacle" if t.key == "tentacles" else "success"
        assert len(dice) == t.dice
        outcomes = [sum(count(f, symbol) for f in fall) for fall in product(*(faces[kind] for kind, _ in dice))]
        assert len(outcomes) == 6 ** t.dice
        assert t.luckier_than == mid_share(outcomes, t.got, t.more_is_better)
        assert t.expected == Fraction(sum(outcomes), len(outcomes))
        checked += 1
    assert checked >= 2


_FALLS: dict[tuple[str, ...], list[int]] = {}


def every_fall(kinds: tuple[str, ...], faces: dict) -> list[int]:
    """The successes of each of the 6**n ways these dice can fall (listed once per set of dice)."""
    if kinds not in _FALLS:
        _FALLS[kinds] = [sum(count(f, "success") for f in fall) for fall in product(*(faces[kind] for kind in kinds))]
    return _FALLS[kinds]


def test_the_luckiest_and_unluckiest_rolls_have_the_chances_their_dice_give(main_saves):
    for path in main_saves:
        save = load(path)
        faces, rolls = dice_of(save)
        report = luck_of(save)
        for person, theirs in zip(report.people, rolls):
            chances = {}
            for step, purpose, dice in theirs:
                got = sum(count(f, "success") for _, f in dice)
                falls = every_fall(tuple(sorted(kind for kind, _ in dice)), faces)
                high = Fraction(sum(1 for o in falls if o >= got), len(falls))
                low = Fraction(sum(1 for o in falls if o <= got), len(falls))
                good, bad = (high, low) if purpose in ("attack", "check") else (low, high)
                chances.setdefault(step, []).append((good, bad))
            lucky = [g for rs in chances.values() for g, b in rs if g <= b and g < 1]
            unlucky = [b for rs in chances.values() for g, b in rs if g > b]
            if lucky:
                assert person.rolls.luckiest.chance == min(lucky)
                assert (min(lucky), min(lucky)) in [(g, g) for g, _ in chances[person.rolls.luckiest.step]]
            else:
                assert person.rolls.luckiest is None
            assert (person.rolls.unluckiest.chance if person.rolls.unluckiest else None) == (min(unlucky) if unlucky else None)


def test_rerolls_harm_cards_and_enemies_are_the_events_counted(main_saves):
    for path in main_saves:
        save = load(path)
        report = luck_of(save)
        per = [{"rerolls": 0, "stress": 0, "wounds": 0, "sanity": 0, "cards": 0, "killed": 0} for _ in report.people]
        for _, events in steps_told(save):
            for e in events:
                if e.type == "die_rerolled":
                    per[e["inv"]]["rerolls"] += 1
                    per[e["inv"]]["stress"] += e["cost"]
                elif e.type == "wounded":
                    per[e["inv"]]["wounds"] += e["n"]
                elif e.type == "sanity_lost":
                    per[e["inv"]]["sanity"] += e["n"]
                elif e.type in ("mythos_drawn", "discovery_drawn"):
                    per[e["inv"]]["cards"] += 1
                elif e.type == "enemy_killed":
                    per[e["inv"]]["killed"] += 1
        for person, want in zip(report.people, per):
            s = person.stats
            assert (s["rerolls"]["n"], s["rerolls"]["stress"]) == (want["rerolls"], want["stress"])
            assert (sum(s["wounds"].values()), sum(s["sanity"].values()), sum(s["cards"].values())) == (want["wounds"], want["sanity"], want["cards"])
            assert sum(n for name, n in s["defeated"].items() if "a Stage of" not in name) == want["killed"]
    won = luck_of(load(SAVES / "example-won-main.save"))
    assert sum(n for p in won.people for name, n in p.stats["defeated"].items() if "a Stage of" in name) == 3  # Hastur's three Stages
    assert won.people[0].stats["wounds"] == {"Hastur": 2, "the Fire": 2, "The Second Act": 1}


def test_shamblers_banishes_madness_and_the_cthulhu_dice(tmp_path):
    for path in (SAVES / "example-won-shamblers.save", bot_save(tmp_path, "shamblers", 3, 2)):
        save = load(path)
        report = luck_of(save)
        die = None
        per: list[dict] = [{"tried": 0, "won": 0, "failed": 0, "gathered": 0, "dice": [], "costs": []} for _ in report.people]
        for game, events in steps_told(save):
            die = game.view(None)["die"]["faces"]
            for e in events:
                if e.type == "dice_rolled":
                    per[e["mat"]]["tried"] += 1
                    per[e["mat"]]["dice"] += e["dice"]
                    per[e["mat"]]["costs"].append((e["dice"], e["cost"]))
                elif e.type in ("banished", "banish_failed"):
                    per[e["mat"]]["won" if e.type == "banished" else "failed"] += 1
                elif e.type == "gathered":
                    per[e["mat"]]["gathered"] += 1
        assert sum(w["tried"] for w in per) > 3
        for person, want in zip(report.people, per):
            b = person.stats["banishes"]
            assert (b["tried"], b["won"], b["failed"], sum(person.stats["gathered"].values())) == (
                want["tried"], want["won"], want["failed"], want["gathered"])
            t = person.tallies[0]
            assert (t.got, t.dice, t.expected) == (sum(want["dice"]), len(want["dice"]), Fraction(sum(die), len(die)) * len(want["dice"]))
            # The whole game's count, from every way the number of 1s and 2s can fall (a multinomial count).
            n = len(want["dice"])
            ways = {}
            for ones in range(n + 1):
                for twos in range(n - ones + 1):
                    total = ones + 2 * twos
                    w = comb(n, ones) * comb(n - ones, twos) * die.count(0) ** (n - ones - twos) * die.count(1) ** ones * die.count(2) ** twos
                    ways[total] = ways.get(total, 0) + w
            worse = sum(w for k, w in ways.items() if k > t.got)
            assert t.luckier_than == Fraction(2 * worse + ways.get(t.got, 0), 2 * len(die) ** n)
            # Each noted roll: the chance of a cost as low (or as high), from every fall of its dice.
            chances = []
            for dice, cost in want["costs"]:
                falls = [max(f) for f in product(die, repeat=len(dice))]
                chances.append((Fraction(sum(1 for c in falls if c <= cost), len(falls)), Fraction(sum(1 for c in falls if c >= cost), len(falls))))
            lucky = [g for g, b in chances if g <= b and g < 1]
            assert (person.rolls.luckiest.chance if person.rolls.luckiest else None) == (min(lucky) if lucky else None)


def test_the_sentence_says_how_lucky_in_words():
    t = Tally("successes", ("success", "successes"), True)
    for shown in (1, 1, 1, 0, 1, 1):
        t.add((0, 1, 1, 0, 0, 1), shown)
    # 5 successes on 6 fair coins: 7 of 64 falls do as well or better, 57 worse; ties half: (2*57 + 6) / 128.
    assert t.luckier_than == Fraction(120, 128)
    assert t.sentence("Ada") == ("Ada rolled 2 more successes than expected (5 against 3.0, 1.6 standard deviations above): "
                                 "luckier than 94% of games.")


def test_replay_stats_prints_the_report_and_its_json(tmp_path):
    path = SAVES / "example-won-main.save"
    want = luck_of(load(path))
    text = subprocess.run([sys.executable, "-m", "cthulhu.cli", "replay", str(path), "--stats"], capture_output=True, text=True,
                          env={"COLUMNS": "400", "PATH": ""})
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == "example-won-main.save: the luck report after 88 of 88 steps."
    assert lines[1:] == want.lines()
    assert "Ada Whitlock rolled" in text.stdout and "Defeated: Cultist (2)" in text.stdout
    doc = json.loads(subprocess.run([sys.executable, "-m", "cthulhu.cli", "replay", str(path), "--stats", "--json"],
                                    capture_output=True, text=True, check=True).stdout)
    assert doc["luck"] == json.loads(json.dumps(want.wire()))
    assert [p["seat"] for p in doc["luck"]["people"]] == [1, 2]  # seats count from 1
    seek = json.loads(subprocess.run([sys.executable, "-m", "cthulhu.cli", "replay", str(path), "--stats", "--json", "--seek", "10"],
                                     capture_output=True, text=True, check=True).stdout)
    assert seek["step"] == 10 and seek["luck"]["steps"] == 10


def test_a_headless_joiner_s_json_summary_has_the_luck_report_of_the_host_s_save(tmp_path):
    """`join --headless --json`: the luck report the peer made from its own replay at game over is the
    one the host's save gives."""
    save = tmp_path / "table.save"
    cli = [sys.executable, "-m", "cthulhu.cli"]
    host = subprocess.Popen([*cli, "host", "--headless", "--port", "0", "--save", str(save), "--bot-delay", "0", "--mode", "main",
                             "--seats", "2", "--bots", "1", "--seed", "12", "--bot", "heuristic"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        host.stdout.readline()
        join_line = host.stdout.readline()
        address, code = re.match(r"Join with:\s+cthulhu join (\S+) --code (\S+)", join_line).groups()
        joined = subprocess.run([*cli, "join", address, "--code", code, "--bot", "heuristic", "--headless", "--json"],
                                capture_output=True, text=True, timeout=300)
        host.communicate(timeout=60)
    finally:
        host.kill()
    assert joined.returncode == 0, joined.stderr
    summary = json.loads(joined.stdout)
    assert summary["dice"] == "verified"
    want = luck_of(load(save))
    assert summary["luck"] == json.loads(json.dumps(want.wire()))
    assert summary["luck"]["steps"] == load(save).last_step and len(summary["luck"]["people"]) == 2


@pytest.mark.parametrize("mode", ["main", "shamblers"])
def test_every_random_game_of_a_mode_gets_a_report_that_counts_every_die(mode):
    """Random bots over many set-ups (one to three players): the keeper never fails, and every die an
    event shows is counted once, for the person it was rolled by or against."""
    from cthulhu.core.luck import keeper

    for seed in range(12):
        game = Game.new(Setup(mode=mode, seed=seed, players=1 + seed % 3))
        keep = keeper(game)
        bot = make_bot("random", mode, seed)
        thrown: dict[int, int] = {}
        while game.outcome is None and game.step < 400:
            seat = game.prompt.seat
            events = game.apply(seat, bot.choose(game, seat))
            keep.see(game.step, events)
            for e in events:
                if e.type == "dice_rolled":
                    who = e["inv"] if mode == "main" else e["mat"]
                    thrown[who] = thrown.get(who, 0) + len(e["dice"])
        report = keep.report()
        for n, person in enumerate(report.people):
            tallies = {t.key: t for t in person.tallies}
            counted = tallies["successes"].dice + tallies["successes_against"].dice if mode == "main" else tallies["tentacles"].dice
            assert counted == thrown.get(n, 0), (seed, person.name)
            assert all(0 <= t.luckier_than <= 1 and sum(t.counts) == t.whole for t in person.tallies)
            assert person.lines()
