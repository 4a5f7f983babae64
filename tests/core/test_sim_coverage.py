"""`cthulhu sim` counts the content entries its games used, and names the ones never used."""

from __future__ import annotations

import json
from collections import Counter

from cthulhu.core import Event, Setup
from cthulhu.core.sim import coverage_entries, coverage_key, coverage_report, play
from cthulhu.cli import main


def test_events_map_to_coverage_keys():
    assert coverage_key(Event("mythos_drawn", {"card": "Heat Haze"})) == "mythos:Heat Haze"
    assert coverage_key(Event("discovery_drawn", {"card": "Fire Point"})) == "discovery:Fire Point"
    assert coverage_key(Event("action_taken", {"action": "episode", "episode_action": "Seal a furnace door"})) == "episode_action:Seal a furnace door"
    assert coverage_key(Event("action_taken", {"action": "run"})) is None
    assert coverage_key(Event("insanity_activated", {"card": "Night Terrors"})) == "insanity:Night Terrors"
    assert coverage_key(Event("ability_used", {"kind": "fire_vampire", "ability": "ignite", "n": 1})) == "enemy_ability:fire_vampire:ignite"
    assert coverage_key(Event("moved", {})) is None


def test_entries_of_a_combination(content):
    entries = coverage_entries(content.main, "wexley_mill", "hastur")
    assert len(entries["mythos"]) == 16 and "Wings Over the Rooftops" in entries["mythos"]
    assert len(entries["discovery"]) == 15 and len(entries["episode_action"]) == 2 and len(entries["insanity"]) == 12
    # The Cultist has no ability; the episode's monster and the Elder One's minion do.
    assert entries["enemy_ability"] == ["disciple:drain", "fire_vampire:ignite"]


def test_report_lists_every_entry_and_the_unused_ones():
    entries = {"mythos": ["A", "B"], "discovery": ["C"], "episode_action": [], "insanity": [], "enemy_ability": ["x:drain"]}
    report = coverage_report(Counter({"mythos:A": 2, "enemy_ability:x:drain": 1, "mythos:Z": 5}), entries)
    assert report["mythos"] == {"A": 2, "B": 0}
    assert report["discovery"] == {"C": 0}
    assert report["unused"] == ["mythos:B", "discovery:C"]


def test_counting_does_not_change_the_game(content):
    setup = Setup(mode="main", seed=11, episode="wexley_mill", elder_one="hastur")
    plain = play(setup, bot="heuristic", content=content)
    counted = play(setup, bot="heuristic", content=content, coverage=True)
    assert plain.final_hash == counted.final_hash and plain.coverage == {}
    assert counted.coverage and all(n > 0 for n in counted.coverage.values())
    assert any(k.startswith("mythos:") for k in counted.coverage)


def test_sim_json_has_content_coverage_next_to_the_summary(capsys):
    code = main(["sim", "--games", "4", "--seed", "3", "--bot", "heuristic", "--json", "--elder-one", "cthulhu", "--episode", "innsmere_tide"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("win_rate", "mean_turns", "summoned_share", "loss_causes", "digest", "outcomes"):
        assert key in out
    cov = out["content_coverage"]
    assert set(cov) == {"mythos", "discovery", "episode_action", "insanity", "enemy_ability", "unused"}
    assert sum(cov["mythos"].values()) >= 4  # at least one Mythos card a game
    assert "star_spawn:regenerate" in cov["enemy_ability"] and "deep_kin:frenzy" in cov["enemy_ability"]
    zero = [f"{k}:{n}" for k in ("mythos", "discovery", "episode_action", "insanity", "enemy_ability") for n, c in cov[k].items() if not c]
    assert sorted(cov["unused"]) == sorted(zero)


def test_shamblers_sim_has_no_content_coverage(capsys):
    assert main(["sim", "--mode", "shamblers", "--games", "2", "--json"]) == 0
    assert "content_coverage" not in json.loads(capsys.readouterr().out)
