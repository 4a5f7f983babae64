"""The Shamblers content loader: built-in data is valid, bad data names file, entry and field."""

from __future__ import annotations

import copy
import tomllib

import pytest

from cthulhu.content import read_tree
from cthulhu.core import ContentError
from cthulhu.core.shamblers.content import RULES_FILE, TOWNS_FILE, ShamblersContent, load_shamblers


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
    assert cfg.chaos_in_bag == 6
    assert [c.track_capacity for c in cfg.colors] == [2, 3, 3]
    assert (cfg.chaos_capacity, cfg.delirium_capacity, cfg.actions_per_turn) == (2, 5, 3)
    assert (cfg.win_per_color, cfg.loss_mat_tentacles, cfg.banish_bonus) == (3, 6, (1, 2, 3))


def test_a_bad_field_names_file_entry_and_field(docs):
    bad = copy.deepcopy(docs)
    bad[RULES_FILE]["colors"][1]["track_capacity"] = "three"
    assert problems(bad) == [
        f"{RULES_FILE}: colors[blue].track_capacity: Input should be a valid integer, unable to parse string as an integer"
    ]


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
    assert any(p.startswith(f"{RULES_FILE}: banish_bonus: needs one entry") for p in problems(bad))


def test_missing_and_unknown_files(docs):
    bad = {TOWNS_FILE: docs[TOWNS_FILE], "shamblers/extra.toml": {}}
    found = problems(bad)
    assert f"{RULES_FILE}: missing: Shamblers mode needs this file" in found
    assert any(p.startswith("shamblers/extra.toml: unknown file") for p in found)
