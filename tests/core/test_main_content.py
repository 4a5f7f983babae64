"""The shipped main-game content as a whole: the full box, maps that work, text that fits, nothing unused."""

from __future__ import annotations

from collections import Counter, deque

import pytest

from cthulhu.core import Setup
from cthulhu.core.main.content import build_adjacency
from cthulhu.core.main.rules import resolve_setup
from cthulhu.core.sim import coverage_entries, game_seed, play

COMMON = {"brawling", "marksman", "stealth", "swiftness", "toughness", "willpower"}


def test_the_full_box(content):
    c = content.main
    assert len(c.elder_ones) == 2 and len(c.episodes) == 6 and len(c.investigators) == 10 and len(c.insanity) == 12
    assert sorted(ep.difficulty for ep in c.episodes.values()) == [1, 2, 3, 4, 5, 6]
    assert c.enemies["cultist"].figures == 10
    assert sum(e.figures for e in c.enemies.values() if e.category == "monster") == 18
    used = {e for ep in c.episodes.values() for e in [*ep.monsters, *(pl.enemy for pl in ep.map.enemies)]}
    used |= {eo.minion for eo in c.elder_ones.values()}
    assert {k for k, e in c.enemies.items() if e.category == "monster"} <= used  # every monster is in some game
    assert all(e.ability is not None for e in c.enemies.values() if e.category == "monster")


def test_skills_unique_and_common(content):
    c = content.main
    uniques = [sk for inv in c.investigators.values() for sk in inv.skills if not c.skills[sk].common]
    assert len(uniques) == len(set(uniques)) == 10  # one skill of its own each
    assert {sk for inv in c.investigators.values() for sk in inv.skills if c.skills[sk].common} == COMMON
    assert {k for k, s in c.skills.items() if s.common} == COMMON


def test_the_default_table_is_still_ada_and_mina(content):
    assert resolve_setup(Setup(mode="main"), content.main)[2] == ["ada_whitlock", "mina_castellane"]


@pytest.mark.parametrize("episode", ["wexley_mill", "innsmere_tide", "ashcombe_library", "hollowmere_asylum", "kettle_moor", "hollow_fen"])
def test_every_map_is_connected_and_every_gate_and_token_reachable(content, episode):
    m = content.main.episodes[episode].map
    adj = build_adjacency(m)
    seen = {m.start}
    todo = deque([m.start])
    while todo:
        for nxt in adj[todo.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    assert seen == {s.id for t in m.tiles for s in t.spaces}
    assert set(m.gates.values()) <= seen and len(set(m.gates.values())) == 3
    assert set(m.tokens) <= seen and {pl.space for pl in m.enemies} <= seen
    assert all(1 <= len(t.spaces) <= 3 for t in m.tiles)
    assert len({tuple(t.pos) for t in m.tiles}) == len(m.tiles)  # tiles do not overlap on the table
    assert max(t.pos[0] for t in m.tiles) < 4  # at most 4 tiles across: the map fits 80 columns


def _strings(obj, path=""):
    if hasattr(type(obj), "model_fields"):
        for f in type(obj).model_fields:
            yield from _strings(getattr(obj, f), f"{path}.{f}")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(obj, (list, tuple)):
        for n, v in enumerate(obj):
            yield from _strings(v, f"{path}.{n}")
    elif isinstance(obj, str):
        yield path, obj


def test_every_text_is_ascii_and_fits_the_tui(content):
    """Names fit a 40-column half line; every text wraps into a few 80-column lines."""
    too_long = []
    for path, text in _strings(content.main):
        field = path.rsplit(".", 1)[-1]
        limit = 40 if field in ("name", "title") else 200
        if len(text) > limit or not text.isascii() or "\n" in text:
            too_long.append(f"{path}: {text!r}")
    assert too_long == []


def test_every_card_ability_and_action_is_used_in_some_simulated_game(content):
    """A few seeded games of each Elder One x episode, with both bots, use every entry at least once."""
    c = content.main
    used: Counter[str] = Counter()
    entries: set[str] = set()
    for eo in sorted(c.elder_ones):
        for ep in sorted(c.episodes):
            entries |= {f"{kind}:{name}" for kind, names in coverage_entries(c, ep, eo).items() for name in names}
            for bot in ("heuristic", "random"):
                for n in range(12):
                    setup = Setup(mode="main", seed=game_seed(5, n), episode=ep, elder_one=eo)
                    used.update(play(setup, bot=bot, content=content, coverage=True).coverage)
    assert sorted(entries - set(used)) == []
