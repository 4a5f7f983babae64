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
from support.saveplay import any_mode, play


@pytest.fixture
def folder(tmp_path, content):
    game = Game.new(Setup(mode=any_mode(), seed=8, players=2), content)
    writer = SaveWriter(tmp_path / "good.save", game, players=[{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bo"}], snapshot_every=10)
    log = play(game, writer.append, steps=40)
    writer.close()
    data = encode(load(tmp_path / "good.save"))  # compact: an autosave's cut last record is an earlier step, not damage
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
    body = msgpack.unpackb(encode(load(path / "good.save"))[50:], raw=False, strict_map_key=False)
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


def test_saves_json_is_one_array_with_an_object_per_file(folder, capsys):
    path, game, log = folder
    assert main(["saves", "--saves", str(path), "--json"]) == 0
    rows = {r["file"]: r for r in json.loads(capsys.readouterr().out)}  # one document, as every --json prints
    assert rows["good.save"]["step"] == len(log)
    assert rows["good.save"]["players"] == ["Ann", "Bo"]
    assert rows["good.save"]["turn"] == game.view(None).get("turn")
    assert rows["flipped.save"]["problem"] == "checksum"


def test_saves_in_an_empty_or_missing_folder(tmp_path, capsys):
    assert main(["saves", "--saves", str(tmp_path / "none")]) == 0
    assert "No saves in" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["short.save", "edited.save", "other.save"])
@pytest.mark.parametrize("command", ["play", "host"])
def test_loading_a_bad_save_in_a_terminal_is_one_line_and_exit_2(folder, name, command):
    """`play --load` and `host --load` in a real terminal: no screen, one line naming the file and why."""
    import os
    import time

    from support.pty_term import CLI, PtyTerm

    path, _, _ = folder
    extra = ["--port", "0", "--no-save"] if command == "host" else []
    term = PtyTerm([*CLI, command, "--load", str(path / name), *extra])
    end = time.monotonic() + 60
    while time.monotonic() < end:
        term._read(0.05)
        pid, status = os.waitpid(term.pid, os.WNOHANG)
        if pid:
            term.status = os.waitstatus_to_exitcode(status)
            break
    term.settle(0.2)
    os.close(term.fd)
    text = term.data.decode(errors="replace")
    assert term.status == 2, text
    assert "\x1b" not in text, "a screen was drawn"
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cthulhu {command}: ") and BAD[name] in lines[0], lines


def _saved(path, content, mode: str, seed: int, steps: int | None, **choices) -> None:
    """A save of a bot game: `steps` commands (None: to its end; 0: a game nobody played)."""
    game = Game.new(Setup(mode=mode, seed=seed, **choices), content)
    writer = SaveWriter(path, game, autosave=False)
    play(game, writer.append, steps=steps if steps is not None else 10_000)
    writer.write()
    writer.close()


def test_saves_shows_the_episode_by_name_and_the_turn(tmp_path, content, capsys):
    _saved(tmp_path / "tide.save", content, "main", 3, 30, episode="innsmere_tide", elder_one="cthulhu")
    _saved(tmp_path / "mill.save", content, "main", 4, 30)  # the default episode: named from the game itself
    assert main(["saves", "--saves", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[1].split()
    assert header[:4] == ["FILE", "MODE", "SET-UP", "TURN"]  # SET-UP: the mode's own choices (Mode.options)
    for name, episode in (("tide.save", "The Innsmere Tide"), ("mill.save", "The Wexley Mill Fire")):
        row = next(line for line in lines if line.startswith(name))
        turn = load(tmp_path / name).header.summary["turn"]
        assert episode in row and f" {turn} " in row.split(episode, 1)[1]


def test_saves_lists_the_choices_a_game_made_and_leaves_the_defaults_out(tmp_path, content, capsys, monkeypatch):
    """In the table, a choice nobody made is no fact about the game ("default" says nothing); one a
    table made is said in words ("advice off"). The JSON has every choice, by id or "default"."""
    _saved(tmp_path / "plain.save", content, "main", 4, 3)
    _saved(tmp_path / "quiet.save", content, "main", 4, 3, options={"advice": "off"})
    _saved(tmp_path / "shamblers.save", content, "shamblers", 4, 3)
    monkeypatch.setenv("COLUMNS", "200")  # the table, one line a save
    assert main(["saves", "--saves", str(tmp_path)]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[2:]}
    assert "default" not in "".join(rows.values()), rows
    assert "The Wexley Mill Fire / Hastur " in rows["plain.save"] and "advice" not in rows["plain.save"], rows
    assert "The Wexley Mill Fire / Hastur / advice off " in rows["quiet.save"], rows
    assert main(["saves", "--saves", str(tmp_path), "--json"]) == 0
    setups = {r["file"]: r["setup"] for r in json.loads(capsys.readouterr().out)}
    assert setups["plain.save"]["episode"] == "The Wexley Mill Fire" and setups["plain.save"]["advice"] == "default", setups
    assert setups["quiet.save"]["advice"] == "off" and setups["shamblers.save"] == {"difficulty": "default", "advice": "default"}, setups


def test_saves_delete_removes_one_save_and_never_one_a_game_holds(folder, capsys):
    from support.saveplay import holding_host

    path, _, _ = folder
    assert main(["saves", "--saves", str(path), "--delete", "junk"]) == 0  # a name as listed, damaged or not
    assert not (path / "junk.save").exists()
    assert capsys.readouterr().out.startswith(f"Deleted {path / 'junk.save'} (it could not be read")
    assert main(["saves", "--saves", str(path), "--delete", "nothing.save"]) == 2
    assert "no such file" in capsys.readouterr().err
    (path / "notes.txt").write_text("mine")
    assert main(["saves", "--delete", str(path / "notes.txt")]) == 2
    assert "not a save file" in capsys.readouterr().err and (path / "notes.txt").exists()
    host = holding_host(path / "good.save")
    try:
        before = (path / "good.save").read_bytes()
        assert main(["saves", "--saves", str(path), "--delete", "good.save"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"in use by process {host.pid}" in err[0]
        assert (path / "good.save").read_bytes() == before
    finally:
        host.kill()
        host.communicate()


def test_saves_prune_deletes_finished_and_empty_saves_only(tmp_path, content, capsys):
    from support.saveplay import holding_host

    _saved(tmp_path / "won.save", content, "shamblers", 5, None, difficulty="easy")
    _saved(tmp_path / "empty.save", content, "main", 6, 0)
    _saved(tmp_path / "playing.save", content, "main", 7, 20)
    _saved(tmp_path / "held.save", content, "main", 8, 0)
    (tmp_path / "broken.save").write_text("not a save\n")
    assert load(tmp_path / "won.save").header.outcome is not None
    host = holding_host(tmp_path / "held.save")
    try:
        assert main(["saves", "--saves", str(tmp_path), "--prune"]) == 0
    finally:
        host.kill()
        host.communicate()
    out = capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".save") == ["broken.save", "held.save", "playing.save"]
    assert f"Kept held.save: in use by process {host.pid}" in out
    assert "Deleted empty.save (not started)" in out and "Deleted won.save (" in out
    assert main(["saves", "--saves", str(tmp_path), "--prune"]) == 0  # its game is over: free to go now
    assert capsys.readouterr().out == "Deleted held.save (not started)\n"
    assert main(["saves", "--saves", str(tmp_path), "--prune"]) == 0
    assert "Nothing to prune" in capsys.readouterr().out


def test_replay_tells_the_games_story_in_sentences_not_a_dump(capsys):
    import re
    from pathlib import Path

    from test_play_again import setup_of

    saves = Path(__file__).resolve().parents[2] / "saves"
    assert main(["replay", str(saves / "example-won-main.save")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("example-won-main.save: The Wexley Mill Fire (Main game), 88 steps; saved ")
    assert "Won on turn 9, after 88 steps." in lines and "  Hastur is put down: its Final Stage is defeated." in lines
    assert "  Osric Vane: died (killed)" in lines
    story = lines[lines.index("What happened:") + 1:]
    for sentence in ("Turn 4: The ritual is disrupted (Seal the Furnace Doors)! Hastur can now be wounded.",
                     "Turn 4: Hastur is summoned because the ritual was disrupted this turn!",
                     "Turn 8: Osric Vane is killed at Vat Hall.",
                     "Turn 9: The investigators win: Hastur is put down."):
        assert f"  {sentence}" in story
    assert not any("[*]" in line or "makes a roll" in line or "takes the action Run" in line for line in story)
    assert len(story) < 30  # the key events of 88 steps, not every roll and move
    assert not re.search(r"\w=\w|[{}]|\bid\b|_", "\n".join(lines[:-1])), out  # no field dump (the last line is a command)
    again, _ = setup_of(lines[-1].removeprefix("Play it again: "))
    assert again == load(saves / "example-won-main.save").setup

    assert main(["replay", str(saves / "example-midgame-main.save")]) == 0
    out = capsys.readouterr().out
    assert "In play on turn 4, after 39 steps." in out and "waiting for seat 1 (Ann): Ada Whitlock" in out
    assert "Play it again" not in out  # the seed of a game in play stays unsaid

    assert main(["replay", str(saves / "example-won-main.save"), "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {"file", "header", "setup", "steps", "step", "verified", "dice", "hash", "view"}
