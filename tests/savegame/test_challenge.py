"""The daily and weekly challenge: a set-up and a seed drawn from the date alone, the same in any
process; and the server's check of a try, which refuses a forged or edited save in one line that
names why (an edited command, another seed with its own commitment, a broken commitment, another
set-up, a cut log that claims a win), and takes an honest one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, timedelta

import pytest

from cthulhu.core import Game
from cthulhu.savegame.challenge import about, by_id, challenge, challenge_id
from cthulhu.savegame.dice import commit
from cthulhu.server.challenge import Forged, check_try, open_now

from support.challenge_saves import DAY, edited, save_bytes, today

CLI = [sys.executable, "-m", "cthulhu.cli"]


def test_a_challenge_is_a_function_of_its_day_and_the_same_in_another_process():
    daily = challenge("daily", DAY)
    assert daily == challenge("daily", DAY) and daily.id == "daily-2026-12-05" == challenge_id("daily", DAY)
    assert daily.setup.players == 1 and Game.new(daily.setup).outcome is None
    others = {challenge("daily", DAY + timedelta(days=n)).setup.model_dump_json() for n in range(1, 8)}
    assert daily.setup.model_dump_json() not in others and len(others) == 7  # each day its own game
    week = [challenge("weekly", date(2026, 11, 30) + timedelta(days=n)) for n in range(7)]  # Monday to Sunday
    assert all(one == week[0] for one in week) and week[0].id == "weekly-2026-W49"
    assert challenge("weekly", date(2026, 12, 7)).id == "weekly-2026-W50"
    assert by_id("weekly-2026-W49") == challenge("weekly", DAY) and by_id("daily-2026-12-05") == daily
    main = challenge("daily", date(2026, 12, 2)).setup  # a main game: its figures named in the words a player reads
    assert main.mode == "main" and len(main.many("investigators")) == 2
    assert all(name in about(main) for name in ("Mina Castellane", "Petra Lindqvist")) and about(daily.setup) == "Hard"
    assert by_id("daily-2026-12-5") is None and by_id("monthly-2026-12") is None and by_id("daily-") is None
    code = "from datetime import date; from cthulhu.savegame.challenge import challenge; c = challenge('daily', date(2026, 12, 5)); " \
           "print(c.setup.model_dump_json())"
    for hash_seed in ("0", "12345"):  # set iteration and str hashes differ: the draw does not
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": hash_seed}).stdout
        assert json.loads(out) == json.loads(daily.setup.model_dump_json())


def test_the_server_takes_tries_at_the_days_and_the_weeks_challenges_and_a_day_after():
    assert [c.id for c in open_now(date(2026, 12, 5))] == ["daily-2026-12-05", "weekly-2026-W49", "daily-2026-12-04"]
    assert [c.id for c in open_now(date(2026, 12, 7))] == ["daily-2026-12-07", "weekly-2026-W50", "daily-2026-12-06", "weekly-2026-W49"]


def test_an_honest_finished_game_is_taken_with_what_its_replay_says(tmp_path):
    won = check_try(save_bytes(today(), "won", tmp_path), today())
    assert won.outcome == "won" and won.turns > 0 and won.team == ("Ada",) and not won.bots
    assert check_try(save_bytes(today(), "lost", tmp_path, bot="heuristic"), today()).bots


def _refused(data: bytes) -> str:
    with pytest.raises(Forged) as refused:
        check_try(data, today())
    assert "\n" not in refused.value.reason
    return refused.value.reason


def test_a_forged_or_edited_save_is_refused_in_one_line_naming_why(tmp_path):
    honest = save_bytes(today(), "won", tmp_path)
    lost = save_bytes(today(), "lost", tmp_path)

    def other_command(fields):  # a decision changed (and with it every roll after it), the file re-checksummed
        steps = fields["steps"]
        step = next(n for n, s in enumerate(steps) if s["command"] != steps[0]["command"])
        steps[step]["command"] = dict(steps[0]["command"])

    reason = _refused(edited(honest, other_command))
    assert reason.startswith("hash mismatch at step") or "was refused" in reason, reason

    def other_seed(fields):  # another seed, with a commitment that opens with it: not the day's game
        fields["setup"]["seed"] = 7
        fields["dice"]["commit"] = commit(7, bytes.fromhex(fields["dice"]["salt"]))

    assert _refused(edited(honest, other_seed)) == "its seed is not the one daily-2026-12-05 names"

    def broken_commitment(fields):
        fields["dice"]["salt"] = "00" * 32

    assert _refused(edited(honest, broken_commitment)) == "the seed in this save is not the one committed to when the game began"

    def other_setup(fields):  # the day's seed on an easier level
        fields["setup"]["difficulty"] = "easy"

    assert _refused(edited(honest, other_setup)) == "its set-up is not the one daily-2026-12-05 names (its difficulty differ)"

    def cut_claiming_a_win(fields):  # the log cut before the end, the header saying it was won
        fields["steps"] = fields["steps"][:10]
        fields["snapshots"] = {k: v for k, v in fields["snapshots"].items() if k <= 10}
        fields["header"].update(step=10, outcome="won")

    assert _refused(edited(lost, cut_claiming_a_win)) == "the game is not over at its last step (10), though the save says it was won"

    def lost_called_won(fields):
        fields["header"]["outcome"] = "won"

    assert _refused(edited(lost, lost_called_won)) == "the save says the game was won, but its replay ends lost"
    flipped = bytearray(honest)
    flipped[len(flipped) // 2] ^= 1
    assert _refused(bytes(flipped)).startswith("not a whole save: checksum mismatch")
    assert _refused(b"hello").startswith("not a whole save: not a cthulhu save")
