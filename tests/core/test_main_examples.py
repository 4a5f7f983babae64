"""The seed's worked examples (the Run, the Brawling attack, the Rest) with scripted dice."""

from __future__ import annotations

from cthulhu.core import script_dice

from support.helpers import do, new_game, rearrange, types


def test_run_through_a_cultist_and_fire_into_a_fire_vampire():
    game = new_game("tobias_grell", "ada_whitlock")
    s = game.state
    a = s.active
    # Start -> Loading Dock (a Cultist) -> Spinning Floor (2 Fire, no enemies) -> Carding Room (a Fire Vampire).
    rearrange(
        game,
        at={a: "yard_gate"},
        figures=[("cultist", "loading_dock"), ("fire_vampire", "carding_room")],
        fire={"spinning_floor": 2},
    )
    reserve_before = s.fire_reserve
    do(game, "run")
    ev = do(game, "move", to="loading_dock")
    assert "followed" not in types(ev)  # nothing to follow out of an empty space
    ev = do(game, "move", to="spinning_floor")
    assert [e["kind"] for e in ev if e.type == "followed"] == ["cultist"]
    assert types(ev).index("moved") < types(ev).index("followed")  # told in that order: she runs, it follows
    assert "fire_caught" not in types(ev)
    ev = do(game, "move", to="carding_room")
    assert [e["kind"] for e in ev if e.type == "followed"] == ["cultist"]
    caught = [e for e in ev if e.type == "fire_caught"]
    assert caught and caught[0]["tokens"] == 2
    inv = s.investigators[a]
    assert inv.space == "carding_room"
    assert sorted(f.kind for f in s.enemies_at("carding_room")) == ["cultist", "fire_vampire"]
    assert inv.fire == 2
    assert s.fire == {"spinning_floor": 2}  # the tokens on the space stay where they are
    assert s.fire_reserve == reserve_before - 2
    # The run used all three spaces: the next decision is the second action.
    assert game.prompt.kind == "action"
    assert s.actions_left == 2


def test_attack_with_brawling_two_rerolls_and_a_split():
    game = new_game("ada_whitlock", "osric_vane")
    s = game.state
    a = s.active
    ada = [i for i, inv in enumerate(s.investigators) if inv.id == "ada_whitlock"][0]
    if a != ada:  # let the other investigator pass so Ada is active
        do(game, "end_actions")
        while s.active != ada:
            p = game.prompt
            game.apply(p.seat, game.legal(p.seat)[-1])
    rearrange(game, at={ada: "carding_room"}, figures=[("cultist", "carding_room"), ("fire_vampire", "carding_room")],
              levels={ada: {"brawling": 2}}, fire={})
    inv = s.investigators[ada]
    assert inv.stress == 0 and inv.sanity == 0
    # 3 standard dice and 1 bonus die for Brawling: blank, success, success+tentacle, elder sign.
    script_dice(game, "", "success", "success+tentacle", "elder")
    ev = do(game, "attack", all=True)
    rolled = [e for e in ev if e.type == "dice_rolled"][0]
    assert rolled["dice"] == [["standard", ""], ["standard", "success"], ["standard", "success+tentacle"], ["bonus", "elder"]]
    assert game.prompt.kind == "reroll"
    script_dice(game, "success")
    do(game, "reroll", die=0)  # the blank becomes a success, for 1 stress
    script_dice(game, "elder")
    do(game, "reroll", die=3)  # the elder sign is rerolled into another elder sign
    assert inv.stress == 2
    ev = do(game, "keep")
    assert game.prompt.kind == "assign_hit"
    do(game, "hit", target="cultist-t1")
    ev = do(game, "hit", target="cultist-t1")  # the Cultist dies at 2 wounds ...
    assert "enemy_killed" in types(ev)
    # ... and the last success goes to the Fire Vampire, the only enemy left, without a question.
    vampire = s.figure("fire_vampire-t2")
    assert vampire.wounds == 1
    assert [f.kind for f in s.figures] == ["fire_vampire"]
    # Successes, then tentacles: one sanity lost after the hits.
    order = types(ev)
    assert order.index("enemy_killed") < order.index("sanity_lost")
    assert inv.sanity == 1


def test_rest_heals_three_in_any_split_and_never_sanity():
    game = new_game("mina_castellane", "osric_vane")
    s = game.state
    a = s.active
    inv = s.investigators[a]
    cap = game.content.main.investigators[inv.id].stress
    inv.stress = cap  # full stress
    inv.wounds = 1
    inv.sanity = 1
    rearrange(game, at={a: "yard_gate"}, figures=[], fire={})
    bonus = game.rules.engine(s).mods(a)["rest_bonus"]
    assert bonus == 0
    do(game, "rest")
    offered = sorted((c["wounds"], c["stress"]) for c in game.legal(game.prompt.seat))
    assert offered == [(0, 3), (1, 2)]
    do(game, "heal", wounds=0, stress=3)
    assert (inv.wounds, inv.stress, inv.sanity) == (1, cap - 3, 1)
