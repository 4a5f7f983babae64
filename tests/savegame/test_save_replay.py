"""Saves against the rules: replay, verify, seek, resume, for every mode."""

from __future__ import annotations

import dataclasses

import pytest

from cthulhu.core import Game, Setup
from cthulhu.savegame import file as savefile
from cthulhu.net.delta import view_hash
from cthulhu.table.log import MemoryLog
from cthulhu.savegame import (
    ContentMismatch,
    HashMismatch,
    ReplayRejected,
    SaveError,
    SaveWriter,
    decode,
    encode,
    load,
    replay,
    resume,
    save_game,
    seek,
    verify,
)
from support.saveplay import any_mode, mode_params, play


def _write(tmp_path, content, mode, *, seed=5, steps=80, every=10, name="g.save"):
    game = Game.new(Setup(mode=mode, seed=seed, players=2), content)
    path = tmp_path / name
    writer = SaveWriter(path, game, snapshot_every=every)
    log = play(game, writer.append, steps=steps)
    return path, game, log


def _reencoded(save, **changes):
    """The save with some fields changed, written with a *valid* checksum (as an editor would)."""
    return decode(encode(save.model_copy(update=changes)))


@pytest.mark.parametrize("mode", mode_params())
def test_round_trip_replays_to_the_same_state_for_every_mode(tmp_path, content, mode):
    path, game, log = _write(tmp_path, content, mode)
    assert log, "the bot made no move"
    save = load(path)
    again = replay(save, content, verify=True)
    assert again.step == game.step == len(log)
    assert again.state_hash() == game.state_hash()
    assert again.view(0) == game.view(0)
    assert again.outcome == game.outcome
    assert save.header.outcome == game.outcome


@pytest.mark.parametrize("mode", mode_params())
def test_seek_to_every_step_matches_a_replay_from_the_start(tmp_path, content, mode):
    path, game, log = _write(tmp_path, content, mode, steps=40, every=6)
    save = load(path)
    fresh = Game.new(save.setup, content)
    expected = [fresh.state_hash()]
    for seat, wire, _ in log:
        fresh.apply(seat, fresh.legal(seat)[[c.wire() for c in fresh.legal(seat)].index(wire)])
        expected.append(fresh.state_hash())
    for step in range(len(log) + 1):
        assert seek(save, step, content).state_hash() == expected[step]
        assert replay(save, content, verify=False, seek=step).step == step


@pytest.mark.parametrize("mode", mode_params())
def test_seek_to_every_step_gives_every_seat_the_view_it_was_shown(tmp_path, content, mode):
    """A view tells the deciding seat how many of its decisions it may take back, and that count
    runs back past the last snapshot: a seek must give the very view the live game gave (a peer's
    view after a host was killed is checked against one), not one cut short at the snapshot."""
    every = 3
    game = Game.new(Setup(mode=mode, seed=5, players=2), content)
    writer = SaveWriter(tmp_path / "g.save", game, snapshot_every=every)
    shown = [[game.view(seat) for seat in (0, 1)]]

    def step(seat: int, wire: dict, state_hash: str) -> None:
        writer.append(seat, wire, state_hash)
        shown.append([game.view(s) for s in (0, 1)])

    play(game, step, steps=80)
    reaching_back = [n for n, views in enumerate(shown) if (views[0]["prompt"] or {}).get("undo", 0) > n % every]
    assert reaching_back, "no take-back in this game reaches past a snapshot: the test would prove nothing"
    save = load(tmp_path / "g.save")
    for n, views in enumerate(shown):
        at = seek(save, n, content)
        assert [view_hash(at.view(seat)) for seat in (0, 1)] == [view_hash(v) for v in views], f"step {n}"


def test_seek_outside_the_log_names_the_range(tmp_path, content):
    path, _, log = _write(tmp_path, content, any_mode(), steps=10)
    with pytest.raises(SaveError, match=f"no step {len(log) + 1}: the save has steps 0 to {len(log)}"):
        seek(load(path), len(log) + 1, content)
    with pytest.raises(SaveError, match="no step -1"):
        seek(load(path), -1, content)


def test_an_edited_hash_is_a_mismatch_naming_its_step(tmp_path, content):
    path, _, log = _write(tmp_path, content, any_mode(), steps=30)
    save = load(path)
    k = min(17, len(log))
    steps = list(save.steps)
    steps[k - 1] = steps[k - 1].model_copy(update={"hash": "0" * 32})
    bad = _reencoded(save, steps=steps)
    with pytest.raises(HashMismatch, match=f"step {k}") as info:
        verify(bad, content)
    assert info.value.step == k


def test_an_edited_command_is_refused_or_mismatched_at_its_step(tmp_path, content):
    path, _, log = _write(tmp_path, content, any_mode(), steps=30)
    save = load(path)
    steps = list(save.steps)
    steps[4] = steps[4].model_copy(update={"command": {"kind": "no_such_command"}})
    with pytest.raises(ReplayRejected, match="step 5") as info:
        verify(_reencoded(save, steps=steps), content)
    assert info.value.step == 5
    steps = list(save.steps)
    steps[2] = steps[2].model_copy(update={"seat": steps[2].seat + 1})
    with pytest.raises(ReplayRejected, match="step 3"):
        verify(_reencoded(save, steps=steps), content)


def test_a_tampered_snapshot_is_caught_by_verify_and_by_seek(tmp_path, content):
    path, _, log = _write(tmp_path, content, any_mode(), steps=30, every=10)
    save = load(path)
    snaps = dict(save.snapshots)
    snaps[10] = {**snaps[0], "step": 10}  # the starting position, filed as step 10
    bad = _reencoded(save, snapshots=snaps)
    with pytest.raises(HashMismatch, match="snapshot at step 10"):
        verify(bad, content)
    with pytest.raises(HashMismatch, match="step 10"):
        seek(bad, 12, content)


def test_a_save_from_other_content_is_refused_before_replaying(tmp_path, content):
    path, _, _ = _write(tmp_path, content, any_mode(), steps=5)
    other = dataclasses.replace(content, version="f" * 32)
    with pytest.raises(ContentMismatch, match="other game content"):
        replay(load(path), other)
    with pytest.raises(ContentMismatch):
        seek(load(path), 0, other)


def test_a_different_start_is_a_mismatch_at_step_0(tmp_path, content):
    path, _, _ = _write(tmp_path, content, any_mode(), steps=5)
    save = load(path)
    bad = _reencoded(save, initial_hash="1" * 32)
    with pytest.raises(HashMismatch, match="step 0"):
        verify(bad, content)


def test_resume_carries_on_writing_the_same_file(tmp_path, content):
    path, game, log = _write(tmp_path, content, any_mode(), seed=9, steps=12, every=5)
    save = load(path)
    resumed = resume(save, content)
    writer = SaveWriter.resume(path, save, resumed)
    more = play(resumed, writer.append, steps=10, bot_seed=2)
    after = load(path)
    assert after.last_step == len(log) + len(more)
    assert after.header.created == save.header.created
    assert [(s.seat, s.command, s.hash) for s in after.steps] == log + more
    assert replay(after, content).state_hash() == resumed.state_hash()


def test_append_out_of_step_with_the_game_is_refused(tmp_path, content):
    game = Game.new(Setup(mode=any_mode(), seed=3), content)
    writer = SaveWriter(tmp_path / "g.save", game)
    with pytest.raises(ValueError, match="right after apply"):
        writer.append(0, {"kind": "move"}, "00" * 16)
    assert not (tmp_path / "g.save").exists()  # nothing recorded, nothing written


def test_save_game_from_the_hosts_memory_log(tmp_path, content):
    game = Game.new(Setup(mode=any_mode(), seed=4, players=2), content)
    memory = MemoryLog()
    play(game, memory.append, steps=25)
    save = save_game(tmp_path / "quit.save", game, memory.entries, players=[{"seat": 0, "name": "Bo"}], snapshot_every=8)
    assert save.last_step == game.step
    assert replay(save, content).state_hash() == game.state_hash()
    assert {k for k in save.snapshots if k % 8 == 0} == set(range(0, game.step + 1, 8))


def test_save_game_refuses_a_log_that_does_not_lead_to_the_game(tmp_path, content):
    game = Game.new(Setup(mode=any_mode(), seed=4, players=2), content)
    log = play(game, steps=10)
    with pytest.raises(ValueError, match="does not lead"):
        save_game(tmp_path / "x.save", game, log[:-1])
    assert not (tmp_path / "x.save").exists()


def test_format_is_independent_of_hash_seed(tmp_path, content):
    """Two processes with different PYTHONHASHSEED write byte-identical bodies for the same game."""
    import os
    import subprocess
    import sys

    script = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2])\n"
        "from cthulhu.core import Game, Setup\n"
        "from cthulhu.savegame import SaveWriter\n"
        "from cthulhu.savegame.dice import Dice\n"
        "from support.saveplay import play\n"
        f"g = Game.new(Setup(mode={any_mode()!r}, seed=21, players=2))\n"
        "w = SaveWriter(sys.argv[1], g, created='2000-01-01T00:00:00+00:00', dice=Dice(21, bytes(32)))\n"
        "w.header = lambda _h=w.header: {**_h(), 'updated': 'then'}\n"
        "play(g, w.append, steps=30)\n"
    )
    bodies = []
    for seed in ("1", "2"):
        out = tmp_path / f"h{seed}.save"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", script, str(out), os.path.dirname(os.path.dirname(__file__))], check=True, env=env)
        bodies.append(out.read_bytes())
    assert bodies[0] == bodies[1]
    assert savefile.decode(bodies[0]).last_step > 0


def test_a_shamblers_save_keeps_its_difficulty(tmp_path, content):
    game = Game.new(Setup(mode="shamblers", seed=3, players=2, difficulty="hard"), content)
    path = tmp_path / "hard.save"
    writer = SaveWriter(path, game, snapshot_every=5)
    play(game, writer.append, steps=20)
    save = load(path)
    assert save.setup.one("difficulty") == "hard"
    again = replay(save, content, verify=True)
    assert again.state.cfg.difficulty == "hard" and again.state_hash() == game.state_hash()
    assert seek(save, 7, content).state.cfg.difficulty == "hard"
