"""The example saves shipped in `saves/` are golden logs: they load, verify, list and resume.

When a rule or content change makes one of these fail on purpose, regenerate
them with `python bench/make_example_saves.py` and commit the new files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cthulhu.savegame import SaveError, SaveWriter, load, replay, seek
from cthulhu.savegame.writer import summarize
from cthulhu.cli import main
from support.saveplay import play

SAVES = Path(__file__).resolve().parents[2] / "saves"
REGENERATE = "regenerate the examples with `python bench/make_example_saves.py` if the change was intended"

EXAMPLES = {
    "example-fresh-main.save": ("main", "fresh"),
    "example-midgame-main.save": ("main", "summoned"),
    "example-won-main.save": ("main", "won"),
    "example-fresh-shamblers.save": ("shamblers", "fresh"),
    "example-won-shamblers.save": ("shamblers", "won"),
}


def _path(name: str) -> Path:
    path = SAVES / name
    assert path.exists(), f"{name} is missing from saves/: {REGENERATE}"
    return path


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_loads_verifies_and_is_what_it_says(name, content):
    mode, kind = EXAMPLES[name]
    save = load(_path(name))
    assert save.header.mode == mode
    try:
        game = replay(save, content, verify=True, allow_other_content=True)
    except SaveError as exc:
        pytest.fail(f"{name} no longer replays: {exc}; {REGENERATE}")
    assert game.state_hash() == save.hash_at(save.last_step)
    assert game.outcome == save.header.outcome
    if kind == "fresh":
        assert save.last_step == 0 and game.outcome is None
    elif kind == "summoned":
        assert game.outcome is None and summarize(game).get("elder_one_summoned") is True
    else:
        assert game.outcome == "won"
    mid = save.last_step // 2
    assert seek(save, mid, content, allow_other_content=True).state_hash() == save.hash_at(mid)


@pytest.mark.parametrize("name", sorted(n for n, (_, kind) in EXAMPLES.items() if kind != "won"))
def test_an_example_in_play_resumes_and_keeps_saving(name, content, tmp_path):
    copy = tmp_path / name
    shutil.copyfile(_path(name), copy)
    save = load(copy)
    game = replay(save, content, allow_other_content=True)
    writer = SaveWriter.resume(copy, save, game)
    more = play(game, writer.append, steps=5)
    assert more
    after = load(copy)
    assert after.last_step == save.last_step + len(more)
    assert after.steps[: save.last_step] == save.steps
    assert replay(after, content, allow_other_content=True).state_hash() == game.state_hash()


def test_examples_are_listed_and_replay_from_the_command_line(tmp_path, capsys):
    present = [n for n in sorted(EXAMPLES) if (SAVES / n).exists()]
    assert present, "no example saves in saves/"
    for n in present:
        shutil.copyfile(SAVES / n, tmp_path / n)
    assert main(["saves", "--saves", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert all(n in out for n in present) and "cannot be read" not in out
    assert main(["replay", str(tmp_path / present[-1]), "--verify", "--any-content"]) == 0
    assert "replay to their recorded hashes" in capsys.readouterr().out


def test_the_example_files_are_never_changed_by_loading(content):
    for name in EXAMPLES:
        path = SAVES / name
        if path.exists():
            before = path.read_bytes()
            replay(load(path), content, allow_other_content=True)
            assert path.read_bytes() == before
