"""`cthulhu saves` and `cthulhu replay` on real files: output, exit codes, files never touched."""

from __future__ import annotations

import json
import subprocess
import sys

import msgpack
import pytest

from cthulhu.core import Game, Setup
from cthulhu.savegame import file as savefile
from cthulhu.savegame import SaveWriter, decode, encode, load
from cthulhu.cli import main
from saveplay import any_mode, play


@pytest.fixture
def folder(tmp_path, content):
    game = Game.new(Setup(mode=any_mode(), seed=8, players=2), content)
    writer = SaveWriter(tmp_path / "good.save", game, players=[{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bo"}], snapshot_every=10)
    log = play(game, writer.append, steps=40)
    writer.close()
    data = (tmp_path / "good.save").read_bytes()
    flipped = bytearray(data)
    flipped[-10] ^= 1
    (tmp_path / "flipped.save").write_bytes(bytes(flipped))
    (tmp_path / "short.save").write_bytes(data[:-200])
    newer = bytearray(data)
    newer[8:10] = (99).to_bytes(2, "big")
    (tmp_path / "newer.save").write_bytes(bytes(newer))
    (tmp_path / "text.save").write_text("just some words\n")
    (tmp_path / "junk.save").write_bytes(savefile.frame(b"\xc1 not msgpack"))
    save = load(tmp_path / "good.save")
    steps = list(save.steps)
    steps[6] = steps[6].model_copy(update={"hash": "ab" * 16})
    (tmp_path / "edited.save").write_bytes(encode(decode(encode(save.model_copy(update={"steps": steps})))))
    other = save.model_copy(update={"header": save.header.model_copy(update={"content_version": "c0ffee" * 5 + "00"})})
    (tmp_path / "other.save").write_bytes(encode(other))
    # Edited to another seed (checksum redone): the replay shows it at the first step.
    reseeded = save.model_copy(update={"setup": save.setup.model_copy(update={"seed": 9})})
    (tmp_path / "reseeded.save").write_bytes(encode(reseeded))
    # A careful forger: a whole consistent game on another seed, under this game's commitment.
    forged_game = Game.new(Setup(mode=any_mode(), seed=10, players=2), content)
    forger = SaveWriter(tmp_path / "forged.save", forged_game, snapshot_every=10)
    play(forged_game, forger.append, steps=40)
    forger.close()
    forged = load(tmp_path / "forged.save")
    (tmp_path / "forged.save").write_bytes(encode(forged.model_copy(update={"dice": save.dice})))
    return tmp_path, game, log


BAD = {
    "flipped.save": "checksum mismatch",
    "short.save": "truncated",
    "newer.save": "format version 99",
    "text.save": "not a cthulhu save",
    "junk.save": "not valid msgpack",
    "edited.save": "hash mismatch at step 7",
    "other.save": "other game content",
    "reseeded.save": "hash mismatch at step 0",
    "forged.save": "not the one committed to",
}


def test_replay_verifies_and_shows_the_last_step(folder, capsys):
    path, game, log = folder
    assert main(["replay", str(path / "good.save"), "--verify"]) == 0
    out = capsys.readouterr().out
    assert f"all {len(log)} steps replay to their recorded hashes" in out
    assert f"State at step {len(log)} of {len(log)} (hash {game.state_hash()[:12]})" in out
    assert "Ann (seat 1)" in out  # seats count from 1, as the table shows them
    assert "Dice verified: the seed opens the commitment" in out
    assert main(["replay", str(path / "good.save"), "--verify", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"] == "verified"


def test_a_save_from_before_dice_commitments_verifies_and_says_it_has_none(folder, capsys):
    """A format 1 file (no `dice` field) migrates on load; verify checks the hashes and says so."""
    path, _, _ = folder
    body = msgpack.unpackb((path / "good.save").read_bytes()[50:], raw=False, strict_map_key=False)
    del body["dice"]
    body["header"]["format"] = 1
    v2 = savefile.frame(msgpack.packb(body, use_bin_type=True))
    (path / "v1.save").write_bytes(v2[:8] + (1).to_bytes(2, "big") + v2[10:])
    assert main(["replay", str(path / "v1.save"), "--verify"]) == 0
    assert "keeps no commitment" in capsys.readouterr().out
    (path / "v1.save").unlink()


def test_replay_seek_json_gives_the_spectator_view_at_that_step(folder, capsys):
    path, game, log = folder
    assert main(["replay", str(path / "good.save"), "--seek", "13", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["step"] == 13 and doc["steps"] == len(log)
    assert doc["hash"] == log[12][2]
    assert doc["view"]["step"] == 13
    assert "seed" not in doc["setup"]


def test_replay_finds_a_name_in_the_saves_folder(folder, capsys):
    path, _, _ = folder
    assert main(["replay", "good", "--saves", str(path), "--seek", "0"]) == 0
    assert "State at step 0" in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(BAD))
def test_replay_of_a_bad_save_exits_2_with_one_clear_line_and_leaves_it_alone(folder, capsys, name):
    path, _, _ = folder
    target = path / name
    before = (target.read_bytes(), target.stat().st_mtime_ns)
    assert main(["replay", str(target), "--verify"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert BAD[name] in captured.err and str(target) in captured.err
    assert "Traceback" not in captured.err and len(captured.err.strip().splitlines()) == 1
    assert (target.read_bytes(), target.stat().st_mtime_ns) == before
    assert sorted(p.name for p in path.iterdir()) == sorted([*BAD, "good.save"])


def test_replay_of_a_missing_file_or_step_exits_2(folder, capsys):
    path, _, log = folder
    assert main(["replay", str(path / "nothing.save")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["replay", str(path / "good.save"), "--seek", str(len(log) + 5)]) == 2
    assert f"no step {len(log) + 5}" in capsys.readouterr().err


def test_replay_in_a_real_process_prints_no_traceback(folder):
    path, _, _ = folder
    result = subprocess.run(
        [sys.executable, "-m", "cthulhu.cli", "replay", str(path / "edited.save"), "--verify"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "hash mismatch at step 7" in result.stderr
    assert "Traceback" not in result.stderr


def test_saves_lists_every_save_and_the_damaged_ones_with_their_reason(folder, capsys):
    path, game, log = folder
    assert main(["saves", "--saves", str(path)]) == 0
    out = capsys.readouterr().out
    good = next(line for line in out.splitlines() if line.startswith("good.save"))
    assert game.setup.mode in good and str(len(log)) in good
    for name, words in BAD.items():
        if name in ("edited.save", "other.save", "reseeded.save", "forged.save"):  # whole files; only a replay tells
            assert any(line.startswith(name) and "cannot be read" not in line for line in out.splitlines())
        else:
            assert f"{name}: cannot be read: " in out and words in out


def test_saves_json_has_one_object_per_file(folder, capsys):
    path, game, log = folder
    assert main(["saves", "--saves", str(path), "--json"]) == 0
    rows = {r["file"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["good.save"]["step"] == len(log)
    assert rows["good.save"]["players"] == ["Ann", "Bo"]
    assert rows["good.save"]["turn"] == game.view(None).get("turn")
    assert rows["flipped.save"]["problem"] == "checksum"


def test_saves_in_an_empty_or_missing_folder(tmp_path, capsys):
    assert main(["saves", "--saves", str(tmp_path / "none")]) == 0
    assert "No saves in" in capsys.readouterr().out
