"""The reader mode says dice and tracks in words, never as the panes' glyphs (a screen reader would
spell "[*T]" out as "left bracket star T"): whole games through real `play --reader` processes on
pipes, the board and the odds asked for along the way; and the spoken forms checked against the
glyphs the panes and the narrator draw, every face and every track value."""

from __future__ import annotations

import re
from itertools import product

import pytest

from cthulhu.tui.english import NUMBER_WORDS
from cthulhu.tui.modes.main.dice import faces_text
from cthulhu.tui.modes.main.spoken import spoken as main_spoken
from cthulhu.tui.modes.shamblers.narrate import dice_text
from cthulhu.tui.modes.shamblers.spoken import spoken as shamblers_spoken
from cthulhu.tui.render import spoken_tracks, track

from support.reader_drive import CHOOSE, ReaderProcess

GLYPHS = [re.compile(r"\[[*TtEe-]+\]"), re.compile(r"\[[#.+X]*\]"), re.compile(r"\[\d+\]"), re.compile(r"\b\d+/\d+\]")]
FACES = ["", "success", "tentacle", "elder", "success+tentacle"]


def _number(word: str) -> int:
    return NUMBER_WORDS.index(word) if word in NUMBER_WORDS else int(word)


def _totals(sentence: str) -> dict[str, int]:
    found = re.search(r"(\w+) success(?:es)?, (\w+) tentacles?(?: and (\w+) elder signs?)?|(\w+) success(?:es)? and (\w+) tentacles?", sentence)
    assert found is not None, sentence
    words = [w for w in found.groups() if w is not None]
    return dict(zip(["success", "tentacle", "elder"], (_number(w) for w in words), strict=False))


def test_every_roll_of_up_to_three_dice_is_said_with_its_own_totals_and_each_die():
    for n in (2, 3):
        for faces in product(FACES, repeat=n):
            for kinds in product(["standard", "bonus"], repeat=n):
                dice = [[kind, face] for kind, face in zip(kinds, faces, strict=True)]
                said = main_spoken(f"Ada rolls {n} dice: {faces_text(dice)}.")
                assert not GLYPHS[0].search(said), said
                symbols = "+".join(faces).split("+")
                want = {"success": symbols.count("success"), "tentacle": symbols.count("tentacle"), "elder": symbols.count("elder")}
                got = _totals(said)
                assert got.get("elder", 0) == want["elder"] and (got["success"], got["tentacle"]) == (want["success"], want["tentacle"]), said
                each = re.findall(r"die (\d+): ([a-z ]+?)(?=;|\))", said)
                assert [int(k) for k, _ in each] == list(range(1, n + 1)), said
                for (kind, face), (_, words) in zip(dice, each, strict=True):
                    lettered = "tentacle" in face or "elder" in face  # a bonus die is drawn in lower case where that differs
                    assert words.startswith("bonus ") == (kind == "bonus" and lettered), said
                    assert ("success" in words, "tentacle" in words, "elder sign" in words, "blank" in words) == (
                        "success" in face, "tentacle" in face, "elder" in face, face == ""), said


def test_a_kept_roll_says_its_totals_once_and_a_reroll_choice_names_its_die():
    said = main_spoken("Ada keeps the dice: [*] [*T], 2 successes and 1 tentacle.")
    assert said == "Ada keeps the dice: 2 successes and 1 tentacle."
    assert main_spoken("  3. reroll 2:[*T] (1 stress)") == "  3. reroll 2: success and tentacle (1 stress)"
    assert main_spoken("Ada rerolls die 1 (free): [T] becomes [*]. The dice: [*].") == "Ada rerolls die 1 (free): tentacle becomes success. The dice: success."
    assert main_spoken(" summoning: 1 2 3 [4] 5 6 7 8!  red from 5") == " summoning: space 4 of 8  red from 5"
    assert main_spoken("Ada Whitlock [A] meets Silas at [3] Vat Hall") == "Ada Whitlock [A] meets Silas at [3] Vat Hall"  # no roll, no track


def test_every_track_value_is_said_as_a_count_of_its_size():
    for size in range(1, 14):
        for value in range(size + 1):
            line = f"  Wounds {track(value, size, '').plain} {value}/{size}"
            assert spoken_tracks(line) == f"  Wounds {value} of {size}"
    assert spoken_tracks("  Sanity [#.+.+.X] 1/7") == "  Sanity 1 of 7 (thresholds at 3 and 5)"
    assert shamblers_spoken("  R Rage   [#...] 1/4  [.....] 0/5") == "  R Rage: banished 1 of 4, tentacles 0 of 5"
    assert shamblers_spoken(f"P1 rolls 3 Cthulhu Dice on X: {dice_text([1, 0, 2])} (tentacles per die); cost") == (
        "P1 rolls 3 Cthulhu Dice on X: 1, 0 and 2 (tentacles per die); cost")


@pytest.mark.parametrize("mode", ["main", "shamblers"])
def test_a_whole_game_through_the_reader_says_no_glyph(tmp_path, mode):
    """The board and the odds at every decision about dice (and at the first), the story, the choices
    and the ending: in words only (400 columns: every sentence on one line)."""
    reader = ReaderProcess(["play", "--reader", "--mode", mode, "--seed", "3", "--saves", str(tmp_path / "saves")], tmp_path, 400)
    asked = 0

    def answer(said: list[str]) -> str:
        nonlocal asked
        if asked == 0 or any("reroll" in line or "Banish" in line for line in said) and asked < 40:
            asked += 1
            reader.type("b")
            reader.type("a")
        return "1"

    try:
        code = reader.play_out(answer)
    finally:
        reader.kill()
    assert code == 0, reader.lines[-30:]
    assert asked > 3
    glyphs = [line for line in reader.lines if any(g.search(line) for g in GLYPHS)]
    assert not glyphs, glyphs[:10]
    said = "\n".join(reader.lines)
    assert reader.lines.count("The table:") == asked
    if mode == "main":
        assert re.search(r"^  Wounds \d+ of \d+$", said, re.M) and re.search(r"^  Sanity \d+ of 13", said, re.M)
        rolls = re.findall(r"^.* rolls? \d+ dice.*: .*\(die 1: .*$", said, re.M)
        assert rolls and all(CHOOSE.pattern not in r for r in rolls)
        for sentence in rolls:  # the totals said are the dice said
            got = _totals(sentence)
            each = re.findall(r"die \d+: ([a-z ]+?)(?=;|\))", sentence)
            assert got["success"] == sum(w.count("success") for w in each) and got["tentacle"] == sum(w.count("tentacle") for w in each)
        assert re.search(r"^ summoning: space \d+ of \d+", said, re.M)
    else:
        assert re.search(r"^  R \w+: banished \d+ of 4, tentacles \d+ of 5$", said, re.M)
        assert re.search(r"^  Delirium  \d+ of 5", said, re.M)
