"""`cthulhu content check` on the shipped content and on broken copies of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cthulhu.content import HERE, read_tree
from cthulhu.core import ContentError, Game, Setup
from cthulhu.core.content import Content
from cthulhu.cli import main


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    dest = tmp_path / "content"
    shutil.copytree(HERE, dest, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return dest


def check(path: Path, capsys) -> tuple[int, str]:
    code = main(["content", "check", str(path)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_shipped_content_passes(capsys):
    code, out = check(HERE, capsys)
    assert code == 0, out
    assert "content ok" in out
    assert "difficulty levels easy, normal (default), hard" in out


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    "file, old, new, expected",
    [
        ("main/enemies.toml", "health = 2", "health = \"two\"", "main/enemies.toml: cultist.health"),
        ("main/enemies.toml", 'kind = "ignite"', 'kind = "explode"', "main/enemies.toml: fire_vampire.ability.kind"),
        ("main/skills.toml", "mods = { attack_dice = 1 } }", "mods = { attack_dice = 1, teleport = true } }", "main/skills.toml: brawling.levels.0.mods.teleport"),
        ("main/investigators/ada_whitlock.toml", '"brawling"]', '"juggling"]', "main/investigators/ada_whitlock.toml: skills.2: no skill 'juggling'"),
        ("main/episodes/wexley_mill.toml", '{ enemy = "cultist", space = "carding_room" }', '{ enemy = "ghoul", space = "carding_room" }', "map.enemies.0.enemy: no enemy 'ghoul'"),
        ("main/episodes/wexley_mill.toml", 'red = "vat_hall"', 'red = "ballroom"', "map.gates.red: no space 'ballroom'"),
        ("main/episodes/wexley_mill.toml", '  ["coal_cellar", "old_cistern"],\n', "", "not connected to the start"),
        ("main/dice.toml", '"success+tentacle"]', '"success+skull"]', "main/dice.toml"),
        ("main/rules.toml", "actions = 3", "actions = [", "main/rules.toml: not valid TOML"),
        ("main/elder_ones/hastur.toml", 'effect = [{ op = "stress", n = 1 }]', 'effect = [{ op = "explode", n = 1 }]', "main/elder_ones/hastur.toml: mythos.0.effect.0"),
        ("main/elder_ones/hastur.toml", 'summons = [{ gate = "blue", enemy = "minion" }]', 'summons = [{ gate = "blue", enemy = "ghoul" }]', "mythos.0.summons.0.enemy: no enemy 'ghoul'"),
        ("main/elder_ones/hastur.toml", 'summons = [{ gate = "blue", enemy = "minion" }]', 'summons = [{ gate = "green", enemy = "minion" }]', "mythos.0.summons.0.gate"),
        ("main/elder_ones/hastur.toml", '{ op = "place_elder", at = "yellow" },', "", "stages.1.reveal: Stage 2 must place the Elder One"),
        ("main/elder_ones/hastur.toml", "[[mythos]]\nname = \"A Song From Nowhere\"", "[[not_mythos]]\nname = \"A Song From Nowhere\"", "mythos: List should have at least 8 items"),
    ],
)
def test_broken_content_names_file_and_field(copy, capsys, file, old, new, expected):
    edit(copy / file, old, new)
    if "not connected" in expected:
        # Cut both links into the cellars so they hang alone.
        edit(copy / file, '  ["boiler_stair", "coal_cellar"],\n', "")
        edit(copy / file, 'tunnels = ["yard_gate", "old_cistern"]', "tunnels = []")
    code, out = check(copy, capsys)
    assert code == 2
    assert expected in out, out


def test_the_game_refuses_to_start_on_broken_content(copy):
    edit(copy / "main/enemies.toml", "health = 2", "health = 0")
    with pytest.raises(ContentError) as info:
        Content.from_files(read_tree(copy))
    assert "cultist.health" in str(info.value)
    good = Content.from_files(read_tree(HERE))
    assert Game.new(Setup(seed=1), good).outcome is None


def test_missing_folder_is_a_clear_error(tmp_path, capsys):
    code, out = check(tmp_path / "nowhere", capsys)
    assert code == 2 and "no content folder" in out


def test_a_folder_that_is_not_content_says_so_in_one_line(tmp_path, capsys):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "pyproject.toml").write_text('[project]\nname = "something else"\n')
    (tmp_path / "main").mkdir()  # a folder named after a mode, but with no TOML in it
    for folder in (tmp_path, tmp_path / "notes"):
        code, out = check(folder, capsys)
        assert code == 2 and out.strip().splitlines() == [
            f"content check: {folder} is not a content folder: it has no main/ or shamblers/ folder of TOML files (see the built-in content/)"]
    code, out = check(tmp_path / "notes" / "pyproject.toml", capsys)
    assert code == 2 and out.strip().splitlines() == [f"content check: {tmp_path / 'notes' / 'pyproject.toml'} is a file, not a content folder"]


def test_a_file_that_is_not_text_is_named(copy, capsys):
    (copy / "main" / "tokens.toml").write_bytes(b"\xff\xfe\x00")
    code, out = check(copy, capsys)
    assert code == 2 and out.strip().splitlines() == ["content check: main/tokens.toml: not UTF-8 text"]
