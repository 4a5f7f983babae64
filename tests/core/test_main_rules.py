"""Each rule of seed 001 (and RULES.md Part A) that the first engine covers, as a test."""

from __future__ import annotations

import pytest

from cthulhu.core import Command, Game, IllegalCommand, NotYourDecision, Setup, StalePrompt, script_dice
from cthulhu.core.main.board import next_steps

from support.helpers import burning, do, new_game, rearrange, types


def active(game: Game):
    return game.state.investigators[game.state.active]


def test_dice_faces_are_data_and_every_own_roll_is_three_standard_plus_bonus(content):
    dice = content.main.dice
    assert dice.standard == ["", "success", "success", "tentacle", "elder", "success+tentacle"]
    assert dice.bonus == ["", "", "success", "success", "elder", "elder+success"]
    assert not any("tentacle" in f for f in dice.bonus)
    game = new_game("tobias_grell", "ada_whitlock")
    a = game.state.active
    game.state.investigators[a].bonus = 2  # two permanent bonus dice from thresholds
    rearrange(game, at={a: "carding_room"}, figures=[("cultist", "carding_room")], levels={a: {"haymaker": 1, "brawling": 1}})
    atk = game.rules.engine(game.state).mods(a)["attack_dice"]
    ev = do(game, "attack", target="cultist-t1")
    dice = [d for d, _ in [e for e in ev if e.type == "dice_rolled"][0]["dice"]]
    assert dice.count("standard") == 3
    assert dice.count("bonus") == 2 + atk


def test_bonus_dice_never_join_a_roll_against_the_investigator():
    game = new_game("osric_vane", "ada_whitlock")
    a = game.state.active
    game.state.investigators[a].bonus = 3
    rearrange(game, at={a: "yard_gate"}, figures=[("cultist", "yard_gate")], fire={})
    do(game, "end_actions")
    rolls = [e for e in game_events_until_prompt(game, "reroll")]
    assert rolls and all(d == "standard" for d, _ in rolls[-1]["dice"])
    assert len(rolls[-1]["dice"]) == game.content.main.enemies["cultist"].standard


def game_events_until_prompt(game: Game, kind: str) -> list:
    """The dice_rolled events seen so far on the way to a prompt of this kind."""
    assert game.prompt.kind == kind, game.prompt.kind
    roll = game.state.last_roll
    return [{"dice": [[d, f] for d, f in roll["dice"]]}]


def test_double_faces_count_both_symbols():
    game = new_game("tobias_grell", "ada_whitlock")
    eng = game.rules.engine(game.state)
    t = eng.tally({"dice": [["standard", 5], ["bonus", 5], ["standard", 0]]})
    assert t == {"success": 2, "tentacle": 1, "elder": 1}


def test_rerolls_cost_one_stress_each_until_stress_is_full():
    game = new_game("tobias_grell", "ada_whitlock")
    s = game.state
    a = s.active
    inv = s.investigators[a]
    cap = game.content.main.investigators[inv.id].stress
    rearrange(game, at={a: "carding_room"}, figures=[("fire_vampire", "carding_room")], levels={a: {"haymaker": 1}})
    do(game, "attack", target="fire_vampire-t1")
    for n in range(cap):
        assert any(c.kind == "reroll" for c in game.legal(game.prompt.seat))
        do(game, "reroll", die=0)
        assert inv.stress == n + 1
    # At maximum stress the only choice left is to keep the dice: no reroll is offered.
    assert game.prompt is None or game.prompt.kind != "reroll"


def test_reroll_is_offered_on_an_enemy_attack_too():
    game = new_game("ada_whitlock", "osric_vane")
    a = game.state.active
    rearrange(game, at={a: "yard_gate"}, figures=[("cultist", "yard_gate")], fire={})
    script_dice(game, "tentacle", "success")
    do(game, "end_actions")
    assert game.prompt.kind == "reroll" and game.prompt.actor == a
    script_dice(game, "")
    do(game, "reroll", die=1)  # the defender pays stress to reroll the enemy's die
    inv = game.state.investigators[a]
    assert inv.stress == 1
    do(game, "keep")
    assert inv.wounds == 0 and inv.sanity == 1


def test_free_rerolls_come_before_stress():
    game = new_game("mina_castellane", "osric_vane")
    a = game.state.active
    rearrange(game, at={a: "carding_room"}, figures=[("cultist", "carding_room")])  # sleight 1: one free reroll
    do(game, "attack", target="cultist-t1")
    labels = [o.label for o in game.prompt.options]
    assert any("for free" in label for label in labels)
    do(game, "reroll", die=0)
    assert active(game).stress == 0
    assert all("1 stress" in o.label for o in game.prompt.options if o.command.kind == "reroll")


def test_threshold_stops_the_marker_ignores_the_rest_and_levels_a_skill():
    game = new_game("tobias_grell", "ada_whitlock")
    s = game.state
    a = s.active
    inv = s.investigators[a]
    ref = game.content.main.investigators[inv.id]
    first = ref.thresholds[0]
    inv.sanity = first - 1
    inv.insanity = None  # the insanity card has its own test
    eng = game.rules.engine(s)
    s.pending = None
    s.stack.append({"k": "sanity", "inv": a, "n": 3})
    eng.run()
    assert inv.sanity == first  # stopped on the threshold; 2 points ignored
    evs = [e for e in eng.events if e.type == "threshold_reached"]
    assert evs and evs[0]["ignored"] == 2
    assert game.prompt.kind == "level_up"
    skill = game.legal(game.prompt.seat)[0]["skill"]
    before = inv.levels[skill]
    game.apply(game.prompt.seat, game.legal(game.prompt.seat)[0])
    assert inv.levels[skill] == before + 1
    assert inv.bonus == (1 if first in ref.bonus_thresholds else 0)


def test_bonus_thresholds_add_a_permanent_bonus_die():
    game = new_game("tobias_grell", "ada_whitlock")
    s = game.state
    a = s.active
    inv = s.investigators[a]
    ref = game.content.main.investigators[inv.id]
    target = ref.bonus_thresholds[0]
    inv.sanity = target - 1
    inv.reached = [t for t in ref.thresholds if t < target]
    inv.insanity = None
    s.pending = None
    s.stack.append({"k": "sanity", "inv": a, "n": 1})
    game.rules.engine(s).run()
    assert inv.bonus == 1


def test_the_skull_consumes_the_investigator_and_loses_the_game_before_summoning():
    game = new_game("tobias_grell", "ada_whitlock")
    s = game.state
    a = s.active
    inv = s.investigators[a]
    ref = game.content.main.investigators[inv.id]
    inv.sanity = ref.sanity - 1
    s.pending = None
    s.stack.append({"k": "sanity", "inv": a, "n": 1})
    game.rules.engine(s).run()
    assert not inv.alive and inv.cause == "madness"
    assert game.outcome == "lost" and s.cause == "died_before_summoning"
    assert game.legal(0) == []


def test_wounds_at_health_kill_and_fire_tokens_are_returned():
    game = new_game("osric_vane", "ada_whitlock")
    s = game.state
    a = s.active
    inv = s.investigators[a]
    inv.fire = 2
    s.fire_reserve -= 2
    inv.wounds = game.content.main.investigators[inv.id].health - 1
    rearrange(game, at={a: "yard_gate"}, figures=[("cultist", "yard_gate")], fire={})
    reserve = s.fire_reserve
    script_dice(game, "success", "")
    do(game, "end_actions")
    do(game, "keep")
    assert not inv.alive and inv.cause == "killed"
    assert inv.fire == 0 and s.fire_reserve == reserve + 2
    assert game.outcome == "lost"


def test_adjacency_needs_passages_on_both_sides_or_paired_tokens(content):
    adj = content.main.adjacency("wexley_mill")
    assert "loading_dock" in adj["yard_gate"]
    assert "old_cistern" in adj["yard_gate"]  # tunnel pair
    assert "drying_loft" in adj["strongroom"]  # staircase pair
    assert "carding_room" not in adj["clerk_office"]  # same neighbourhood, no passage pair
    for a, ns in adj.items():
        for b in ns:
            assert a in adj[b]


def test_shortest_path_ties_are_all_offered():
    adj = {"a": ["b", "c"], "b": ["a", "d"], "c": ["a", "d"], "d": ["b", "c"]}
    assert next_steps(adj, "a", "d") == ["b", "c"]
    assert next_steps(adj, "b", "d") == ["d"]
    assert next_steps(adj, "d", "d") == []


def test_run_is_up_to_three_spaces_and_can_stop_early():
    game = new_game("osric_vane", "ada_whitlock")
    a = game.state.active
    rearrange(game, at={a: "yard_gate"}, figures=[], fire={})
    do(game, "run")
    assert all(c.kind == "move" for c in game.legal(game.prompt.seat))  # no stopping before the first step
    do(game, "move", to="loading_dock")
    do(game, "stop")
    assert active(game).space == "loading_dock" and game.state.actions_left == 2


def test_sneak_leaves_enemies_behind():
    game = new_game("mina_castellane", "osric_vane")
    a = game.state.active
    rearrange(game, at={a: "loading_dock"}, figures=[("cultist", "loading_dock")], levels={a: {"stealth": 2}}, fire={})
    do(game, "run")
    ev = do(game, "move", to="yard_gate")
    assert "followed" not in types(ev)
    assert game.state.figures[0].space == "loading_dock"


def test_every_enemy_follows_even_when_another_investigator_stays():
    game = new_game("osric_vane", "ada_whitlock")
    a = game.state.active
    b = 1 - a
    rearrange(game, at={a: "loading_dock", b: "loading_dock"}, figures=[("cultist", "loading_dock"), ("cultist", "loading_dock")], fire={})
    do(game, "run")
    do(game, "move", to="yard_gate")
    assert [f.space for f in game.state.figures] == ["yard_gate", "yard_gate"]


def test_fire_falls_back_to_wound_tokens_when_the_reserve_is_empty():
    game = new_game("osric_vane", "ada_whitlock")
    s = game.state
    a = s.active
    rearrange(game, at={a: "spinning_floor"}, figures=[], fire={"spinning_floor": 2})
    s.fire_reserve = 1
    tokens = s.wound_tokens
    do(game, "run")
    ev = do(game, "move", to="loading_dock")
    caught = [e for e in ev if e.type == "fire_caught"][0]
    assert (caught["tokens"], caught["stand_ins"]) == (1, 1)
    assert s.wound_tokens == tokens - 1


def test_fire_burns_at_end_of_turn_then_goes_back_to_the_reserve():
    game = new_game("ada_whitlock", "osric_vane")
    s = game.state
    a = s.active
    inv = s.investigators[a]
    rearrange(game, at={a: "yard_gate"}, figures=[], fire={})
    inv.fire = 3
    s.fire_reserve -= 3
    reserve = s.fire_reserve
    script_dice(game, "success", "tentacle", "")
    ev = do(game, "end_actions")
    assert game.prompt.kind == "reroll" and s.last_roll["purpose"] == "fire"
    assert len(s.last_roll["dice"]) == 3 and all(d == "standard" for d, _ in s.last_roll["dice"])
    ev = do(game, "keep")
    assert inv.wounds == 1 and inv.sanity == 1
    assert inv.fire == 0 and s.fire_reserve == reserve + 3
    assert "turn_started" in types(ev)  # the turn passed to the other investigator


def test_attack_needs_a_single_target_without_brawling_and_kills_at_health():
    game = new_game("osric_vane", "ada_whitlock")
    s = game.state
    a = s.active
    rearrange(game, at={a: "carding_room"}, figures=[("cultist", "carding_room"), ("cultist", "carding_room")], fire={})
    attacks = [c for c in game.legal(game.prompt.seat) if c.kind == "attack"]
    assert sorted(c["target"] for c in attacks) == ["cultist-t1", "cultist-t2"]
    reserve = s.reserve["cultist"]
    dice = game.content.main.enemies
    script_dice(game, "success", "success", "success", *([""] * 3))
    do(game, "attack", target="cultist-t1")
    ev = do(game, "keep")
    assert "enemy_killed" in types(ev)
    assert [f.id for f in s.figures] == ["cultist-t2"]  # the extra success is wasted
    assert s.reserve["cultist"] == reserve + 1
    assert dice["cultist"].health == 2


def test_rest_is_only_offered_in_a_safe_space():
    game = new_game("osric_vane", "ada_whitlock")
    a = game.state.active
    active(game).stress = 2
    rearrange(game, at={a: "loading_dock"}, figures=[("cultist", "loading_dock")], fire={})
    assert "rest" not in [c.kind for c in game.legal(game.prompt.seat)]
    rearrange(game, figures=[("cultist", "yard_gate")])
    assert "rest" in [c.kind for c in game.legal(game.prompt.seat)]


def test_enemies_attack_in_the_chosen_order_and_a_newcomer_attacks_too():
    game = new_game("tobias_grell", "ada_whitlock")
    s = game.state
    a = s.active
    rearrange(game, at={a: "loading_dock"}, figures=[("cultist", "loading_dock"), ("fire_vampire", "loading_dock"), ("cultist", "yard_gate")], fire={})
    script_dice(game, *([""] * 12))
    do(game, "end_actions")
    assert game.prompt.kind == "attack_order"
    assert sorted(c["against"] for c in game.legal(game.prompt.seat)) == ["cultist-t1", "fire_vampire-t2"]
    ev = do(game, "defend", against="fire_vampire-t2")
    assert [e["figure"] for e in ev if e.type == "enemy_attacks"] == ["fire_vampire-t2"]
    # An enemy that enters the space during the fight attacks as well.
    s.figure("cultist-t3").space = "loading_dock"
    do(game, "keep")
    assert sorted(c["against"] for c in game.legal(game.prompt.seat)) == ["cultist-t1", "cultist-t3"]
    do(game, "defend", against="cultist-t3")
    do(game, "keep")
    do(game, "keep")  # cultist-t1, the last one, attacks without a question
    attacked = [f for f in s.figures if f.space == "loading_dock"]
    assert len(attacked) == 3


def test_an_enemy_that_leaves_during_the_fight_no_longer_attacks():
    game = new_game("tobias_grell", "ada_whitlock")
    s = game.state
    a = s.active
    rearrange(game, at={a: "loading_dock"}, figures=[("cultist", "loading_dock"), ("cultist", "loading_dock")], fire={})
    script_dice(game, *([""] * 12))
    do(game, "end_actions")
    do(game, "defend", against="cultist-t1")
    s.figure("cultist-t2").space = "yard_gate"
    ev = do(game, "keep")
    assert "enemy_attacks" not in types(ev)
    assert "turn_started" in types(ev)


def test_armor_ignores_wounds_per_attack():
    game = new_game("tobias_grell", "ada_whitlock")
    a = game.state.active
    rearrange(game, at={a: "loading_dock"}, figures=[("cultist", "loading_dock")], levels={a: {"toughness": 2}}, fire={})
    script_dice(game, "success", "success")
    do(game, "end_actions")
    ev = do(game, "keep")
    assert game.state.investigators[a].wounds == 1
    ignored = [e for e in ev if e.type == "harm_ignored"]
    assert [(e["by"], e["n"], e["sources"]) for e in ignored] == [("armor", 1, ["Toughness"])]
    assert ignored[0]["cause"] == {"kind": "enemy", "name": "Cultist"}
    assert types(ev).index("harm_ignored") < types(ev).index("wounded")


def test_a_wound_that_armor_ignores_entirely_is_still_told():
    game = new_game("tobias_grell", "ada_whitlock")
    a = game.state.active
    rearrange(game, at={a: "loading_dock"}, figures=[("cultist", "loading_dock")], levels={a: {"toughness": 2}}, fire={})
    script_dice(game, "success", "")
    do(game, "end_actions")
    ev = do(game, "keep")
    assert game.state.investigators[a].wounds == 0 and "wounded" not in types(ev)
    assert [(e["by"], e["n"], e["name"]) for e in ev if e.type == "harm_ignored"] == [("armor", 1, "Tobias Grell")]


def test_elder_signs_that_cancel_successes_and_tentacles_a_skill_ignores_are_told():
    game = new_game("yusuf_haddad", "ada_whitlock")
    a = game.state.active
    # Warding Sigils 1 (elder signs against you cancel a success each) and Willpower 1 (ignore 1 tentacle).
    rearrange(game, at={a: "loading_dock"}, figures=[("cultist", "loading_dock")], levels={a: {"warding_sigils": 1, "willpower": 1}}, fire={})
    script_dice(game, "success", "elder")
    do(game, "end_actions")
    ev = do(game, "keep")
    assert game.state.investigators[a].wounds == 0
    assert [(e["by"], e["n"], e["sources"]) for e in ev if e.type == "harm_ignored"] == [("elder_signs", 1, ["Warding Sigils"])]
    game2 = new_game("yusuf_haddad", "ada_whitlock")
    b = game2.state.active
    rearrange(game2, at={b: "loading_dock"}, figures=[("cultist", "loading_dock")], levels={b: {"willpower": 2}}, fire={})
    script_dice(game2, "tentacle", "tentacle")
    do(game2, "end_actions")
    ev = do(game2, "keep")
    calm = [e for e in ev if e.type == "harm_ignored"]
    assert [(e["by"], e["n"], e["sources"]) for e in calm] == [("calm", 1, ["Willpower"])]
    assert calm[0]["cause"] == {"kind": "tentacles", "name": "defend"}
    lost = [e for e in ev if e.type == "sanity_lost"]
    assert lost and lost[0]["n"] == 1


def test_a_shield_cancels_successes_of_the_fire_roll_too():
    """Fire rolls against the investigator (RULES.md, Dice): Warding Sigils' "elder signs rolled against
    you each cancel a success" holds on it as on an enemy's attack, and the odds panel counts it so."""
    from cthulhu.core.main.odds import roll_odds

    game, a = burning("yusuf_haddad", "success", "elder", "success", levels={"warding_sigils": 1})
    odds = roll_odds(game.view(game.prompt.seat), game.content.main)
    assert odds is not None and odds.purpose == "fire" and odds.goal == "avoid"
    assert odds.total == 1 and odds.keep == 0  # 2 successes, 1 cancelled: 1 wound if kept
    ev = do(game, "keep")
    assert game.state.investigators[a].wounds == 1
    ignored = [(e["by"], e["n"], e["sources"], e["cause"]) for e in ev if e.type == "harm_ignored"]
    assert ignored == [("elder_signs", 1, ["Warding Sigils"], {"kind": "fire", "name": ""})]
    # Without such a skill the same faces are 2 wounds, and the panel says so.
    game, a = burning("ada_whitlock", "success", "elder", "success")
    odds = roll_odds(game.view(game.prompt.seat), game.content.main)
    assert odds is not None and odds.total == 2
    ev = do(game, "keep")
    assert game.state.investigators[a].wounds == 2 and "harm_ignored" not in types(ev)


def test_fire_vampire_elder_signs_set_the_defender_alight():
    game = new_game("osric_vane", "ada_whitlock")
    a = game.state.active
    rearrange(game, at={a: "loading_dock"}, figures=[("fire_vampire", "loading_dock")], fire={})
    script_dice(game, "elder", "", "elder")
    do(game, "end_actions")
    ev = do(game, "keep")
    caught = [e for e in ev if e.type == "fire_caught"]
    assert caught and caught[0]["tokens"] == 2


def test_solo_play_alternates_two_investigators_on_one_seat():
    game = Game.new(Setup(seed=3))
    s = game.state
    assert len(s.investigators) == 2 and {i.seat for i in s.investigators} == {0}
    first = s.active
    for inv in s.investigators:
        inv.space = "yard_gate"
    rearrange(game, figures=[], fire={})
    do(game, "end_actions")
    assert s.active == 1 - first and game.prompt.seat == 0
    do(game, "end_actions")
    assert s.active == first


def test_solo_means_exactly_two_investigators():
    three = ["ada_whitlock", "osric_vane", "mina_castellane"]
    for invs in (["ada_whitlock"], three):
        with pytest.raises(ValueError, match=f"exactly 2 investigators .*, not {len(invs)}"):
            Game.new(Setup(seed=1, investigators=invs))
    assert len(Game.new(Setup(seed=1, investigators=three, players=2)).state.investigators) == 3  # two players may share three


def test_several_players_each_decide_for_their_own_investigator():
    game = new_game("osric_vane", "ada_whitlock", players=2)
    s = game.state
    a = s.active
    rearrange(game, at={0: "yard_gate", 1: "yard_gate"}, figures=[], fire={})
    with pytest.raises(NotYourDecision):
        game.apply(1 - a, Command.of("end_actions"))
    game.apply(a, Command.of("end_actions"))
    assert game.prompt.seat == 1 - a


def test_bad_commands_are_rejected_and_change_nothing():
    game = new_game("osric_vane", "ada_whitlock")
    before = game.state_hash()
    seat = game.prompt.seat
    for bad in (Command.of("attack", target="nobody"), Command.of("fly"), Command.of("move", to="strongroom")):
        with pytest.raises(IllegalCommand) as info:
            game.apply(seat, bad)
        assert info.value.reason
    with pytest.raises(StalePrompt):
        game.apply(seat, game.legal(seat)[0], version=game.step + 5)
    with pytest.raises(NotYourDecision):
        game.apply(seat + 1, game.legal(seat)[0])
    assert game.state_hash() == before


def test_death_before_summoning_ends_the_game_at_once():
    game = new_game("osric_vane", "ada_whitlock")
    s = game.state
    a = s.active
    inv = s.investigators[a]
    inv.wounds = game.content.main.investigators[inv.id].health - 1
    rearrange(game, at={a: "loading_dock"}, figures=[("cultist", "loading_dock"), ("cultist", "loading_dock")], fire={})
    script_dice(game, "success", "success")
    do(game, "end_actions")
    do(game, "defend", against="cultist-t1")
    ev = do(game, "keep")
    assert types(ev)[-1] == "game_lost"
    assert "enemy_attacks" not in types(ev)  # the second cultist never got its turn: the turn was cut
    assert game.prompt is None


def test_setup_refuses_seats_that_do_not_fit():
    from pydantic import ValidationError

    for bad in ({"seats": []}, {"seats": [0, 3], "players": 2}, {"seats": [0], "investigators": ["ada_whitlock", "osric_vane"]}):
        with pytest.raises(ValidationError):
            Setup(**bad)
    assert Setup(seats=[0, 1], players=2, investigators=["ada_whitlock", "osric_vane"]).seat_of(1) == 1
