"""The Shamblers content loader: built-in data is valid, bad data names file, entry and field."""

from __future__ import annotations

import copy
import tomllib

import pytest

from cthulhu.content import read_tree
from cthulhu.core import ContentError
from cthulhu.core.shamblers.content import DIFFICULTY_FILE, RULES_FILE, TOWNS_FILE, ShamblersContent, load_shamblers


@pytest.fixture(scope="module")
def docs() -> dict:
    return {p: tomllib.loads(t) for p, t in read_tree().items() if p.startswith("shamblers/")}


def problems(docs: dict) -> list[str]:
    with pytest.raises(ContentError) as err:
        load_shamblers(docs)
    return err.value.problems


def test_builtin_numbers_are_rules_part_b(content, docs):
    cfg = load_shamblers(docs)
    assert isinstance(content.shamblers, ShamblersContent) and content.shamblers == cfg
    assert [c.id for c in cfg.colors] == ["red", "blue", "green"]
    assert [c.tentacle for c in cfg.colors] == ["Rage", "Dread", "Decay"]
    assert cfg.die.faces == [0, 0, 0, 1, 1, 2]
    assert len(cfg.towns) == 5
    assert all(c.in_bag == 12 and c.shamblers == 5 for c in cfg.colors)
    assert (cfg.chaos_in_bag, cfg.chaos_wild_max, cfg.banish_bonus) == (6, 2, (1, 2, 3))


def test_difficulty_levels_are_data_with_normal_by_default(content):
    """The numbers chosen by measurement (bench/RESULTS.md, `python bench/shamblers_sim.py`), level by level."""
    cfg = content.shamblers
    assert cfg.difficulty == cfg.default_difficulty == "normal" and cfg.at(None) is cfg
    assert [lv.id for lv in cfg.levels] == ["easy", "normal", "hard"]
    numbers = {}
    for level in ("easy", "normal", "hard"):
        at = cfg.at(level)
        assert at.difficulty == level and at.level.name == level.title()
        numbers[level] = (at.actions_per_turn, at.wheel_draw, at.win_per_color, at.loss_mat_tentacles,
                          at.delirium_capacity, at.chaos_capacity, tuple(c.track_capacity for c in at.colors))
        assert at.colors[0].track_capacity == len(at.banish_bonus) - 1  # the seed's bonus knows 0, 1 or 2 Rage
    assert numbers == {
        "easy": (3, 4, 3, 6, 5, 2, (2, 3, 3)),
        "normal": (3, 4, 4, 5, 5, 2, (2, 3, 3)),
        "hard": (3, 5, 4, 3, 5, 2, (2, 3, 3)),
    }
    with pytest.raises(ValueError, match="unknown difficulty 'nightmare'; choose from easy, normal, hard"):
        cfg.at("nightmare")


def test_a_bad_field_names_file_entry_and_field(docs):
    bad = copy.deepcopy(docs)
    bad[DIFFICULTY_FILE]["levels"][1]["win_per_color"] = "three"
    assert problems(bad) == [
        f"{DIFFICULTY_FILE}: levels[normal].win_per_color: Input should be a valid integer, unable to parse string as an integer"
    ]
    bad = copy.deepcopy(docs)
    bad[RULES_FILE]["colors"][1]["track_capacity"] = 3  # track sizes belong to the levels
    assert problems(bad) == [f"{RULES_FILE}: colors[blue].track_capacity: Extra inputs are not permitted"]


def test_difficulty_cross_checks(docs):
    bad = copy.deepcopy(docs)
    bad[DIFFICULTY_FILE]["default"] = "medium"
    bad[DIFFICULTY_FILE]["levels"][0]["track_capacity"] = {"red": 2, "blue": 3}
    bad[DIFFICULTY_FILE]["levels"][1]["win_per_color"] = 6
    bad[DIFFICULTY_FILE]["levels"][2]["id"] = "normal"
    found = problems(bad)
    assert f"{DIFFICULTY_FILE}: default: 'medium' is not one of the levels ['easy', 'normal', 'normal']" in found
    assert any(p.startswith(f"{DIFFICULTY_FILE}: levels[easy].track_capacity: needs exactly one size per color") for p in found)
    assert any(p.startswith(f"{DIFFICULTY_FILE}: levels[normal].win_per_color: 6 is more than the 5 red Shamblers") for p in found)
    assert f"{DIFFICULTY_FILE}: levels[normal].id: appears more than once" in found


def test_unknown_fields_and_negative_faces_are_rejected(docs):
    bad = copy.deepcopy(docs)
    bad[RULES_FILE]["die"]["faces"] = [0, -1]
    bad[RULES_FILE]["surprise"] = 1
    found = problems(bad)
    assert any(p.startswith(f"{RULES_FILE}: die.faces.1:") for p in found)
    assert any(p.startswith(f"{RULES_FILE}: surprise:") for p in found)


def test_cross_checks(docs):
    bad = copy.deepcopy(docs)
    bad[RULES_FILE]["bonus_color"] = "purple"
    bad[RULES_FILE]["start_town"] = 9
    bad[TOWNS_FILE]["towns"][1]["id"] = "harbour"
    found = problems(bad)
    assert any("bonus_color: 'purple' is not one of the colors" in p for p in found)
    assert any("start_town: 9 but there are only 5 towns" in p for p in found)
    assert f"{TOWNS_FILE}: towns[harbour].id: appears more than once" in found


def test_banish_bonus_must_cover_every_rage_count(docs):
    bad = copy.deepcopy(docs)
    bad[RULES_FILE]["banish_bonus"] = [1, 2]
    found = problems(bad)
    assert len(found) == 3 and all(".track_capacity.red: the banish bonus" in p for p in found)
    bad = copy.deepcopy(docs)
    bad[DIFFICULTY_FILE]["levels"][2]["track_capacity"]["red"] = 3
    assert problems(bad) == [
        f"{DIFFICULTY_FILE}: levels[hard].track_capacity.red: the banish bonus ({RULES_FILE}: banish_bonus) knows "
        "3 counts on the red track (0..2), so its size must be 2, not 3"
    ]


def test_missing_and_unknown_files(docs):
    bad = {TOWNS_FILE: docs[TOWNS_FILE], "shamblers/extra.toml": {}}
    found = problems(bad)
    assert f"{RULES_FILE}: missing: Shamblers mode needs this file" in found
    assert any(p.startswith("shamblers/extra.toml: unknown file") for p in found)
