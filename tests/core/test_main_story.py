"""Seed 001's Mythos, Discovery, insanity, summoning and Elder One rules, and the end of the game."""

from __future__ import annotations

from pydantic import TypeAdapter

from cthulhu.core import Command, script_dice
from cthulhu.core.main import harm
from cthulhu.core.main.board import distances
from cthulhu.core.main.ops import AnyOp, KeepMythosOp
from cthulhu.core.main.state import Figure

from support.helpers import discovery_id, do, filler, hastur_summoned, mythos_id, new_game, rearrange, setup_table, symbols, types


# ------------------------------------------------------------------ Mythos


def test_mythos_effect_comes_before_its_summons_and_the_card_is_discarded():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    card = mythos_id(game, "A Song From Nowhere")  # stress 1, then a Disciple at the blue gate
    s.mythos_deck[:] = [card]
    ev = do(game, "end_actions")
    order = types(ev)
    assert order.index("mythos_drawn") < order.index("stress_taken") < order.index("summoned")
    summoned = [e for e in ev if e.type == "summoned"][0]
    assert summoned["kind"] == "disciple" and summoned["space"] == game.content.main.episodes["wexley_mill"].map.gates["blue"]
    assert s.mythos_discard == [card]
    assert game.view(0)["mythos"]["summoning"] == 1  # the symbol stays visible in the discard


def test_summons_stop_at_the_first_gate_without_figures():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    s.mythos_deck[:] = [mythos_id(game, "Wings Over the Rooftops")]  # Disciples at yellow, then red
    s.reserve["disciple"] = 1
    ev = do(game, "end_actions")
    assert [e["space"] for e in ev if e.type == "summoned"] == [game.content.main.episodes["wexley_mill"].map.gates["yellow"]]
    assert [e.type for e in ev if e.type == "summon_skipped"] == ["summon_skipped"]
    game2 = new_game("ada_whitlock", "osric_vane")
    setup_table(game2)
    game2.state.mythos_deck[:] = [mythos_id(game2, "Wings Over the Rooftops")]
    game2.state.reserve["disciple"] = 0
    ev = do(game2, "end_actions")
    assert "summoned" not in types(ev) and types(ev).count("summon_skipped") == 1


def test_mythos_effects_hit_only_the_active_investigator_unless_stated():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    s.mythos_deck[:] = [mythos_id(game, "The Pale Mask")]  # gain 1 Yellow Sign
    do(game, "end_actions")
    assert s.investigators[0].tokens.get("yellow_sign") == 1
    assert not s.investigators[1].tokens.get("yellow_sign")


# ------------------------------------------------------------------ the summoning track


def test_three_summoning_symbols_advance_the_elder_one_then_the_discard_is_shuffled_back():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    s.mythos_discard[:] = symbols(game, 3)
    s.mythos_deck[:] = [filler(game)]
    ev = do(game, "end_actions")
    assert s.track == 2
    order = types(ev)
    assert "elder_advanced" in order and order.index("elder_advanced") < order.index("mythos_shuffled")
    # Hastur's Stage 1: every investigator gains a Yellow Sign on each advance.
    assert all(inv.tokens.get("yellow_sign") == 1 for inv in s.investigators)
    assert s.mythos_discard == [] and len(s.mythos_deck) == 5


def test_two_symbols_do_not_advance():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    s.mythos_discard[:] = symbols(game, 2)
    s.mythos_deck[:] = [filler(game)]
    ev = do(game, "end_actions")
    assert s.track == 1 and "elder_advanced" not in types(ev)


def test_entering_the_first_red_space_summons_the_elder_one():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    s.track = 4
    s.mythos_discard[:] = symbols(game, 3)
    s.mythos_deck[:] = [filler(game)]
    ev = do(game, "end_actions")
    assert s.track == 5 and s.summoned and s.stage == 1
    order = types(ev)
    assert order.index("elder_advanced") < order.index("elder_summoned") < order.index("elder_placed")
    elder = s.figure("elder_one")
    assert elder.space == game.content.main.episodes["wexley_mill"].map.gates["yellow"]
    view = game.view(0)["elder_one"]
    assert view["summoned"] and view["position"] == 5  # the Progression token takes the figure's place
    assert view["stages"][0]["revealed"] and view["stages"][1]["revealed"] and not view["stages"][2]["revealed"]


def test_disrupting_the_ritual_summons_at_the_end_of_that_turn():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    s.ritual = 2
    s.space_tokens["yard_gate"] = {"furnace": 1}
    rearrange(game)
    script_dice(game, "success", "success", "", *([""] * 4))
    do(game, "episode", action=0)  # seal the furnace door: 2 successes
    ev = do(game, "keep")
    assert s.disrupted and "ritual_disrupted" in types(ev)
    assert not s.summoned  # not yet: at the end of the turn
    ev = do(game, "end_actions")
    assert s.summoned and "elder_summoned" in types(ev)
    assert [e["why"] for e in ev if e.type == "elder_summoned"] == ["ritual"]


def test_the_elder_one_cannot_be_attacked_before_the_ritual_is_disrupted_but_attacks():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    hastur_summoned(game, disrupted=False)
    rearrange(game)
    assert not any(c.kind == "attack" for c in game.legal(game.prompt.seat))
    script_dice(game, "success", "", "")
    ev = do(game, "end_actions")
    assert [e["figure"] for e in ev if e.type == "enemy_attacks"] == ["elder_one"]
    # Stage 2 alone: 2 standard + 1 bonus dice, bonus dice being the Elder One's own.
    assert [d for d, _ in game.state.last_roll["dice"]] == ["standard", "standard", "bonus"]


def test_hastur_stage_overflow_example():
    """14 wounds against Stage 2's 12: Stage 3 is revealed with nothing carried over."""
    game = new_game("tobias_grell", "ada_whitlock")
    setup_table(game)
    s = game.state
    hastur = hastur_summoned(game, stage=1)
    hastur.wounds = 9
    s.investigators[0].tokens = {"yellow_sign": 1}
    s.investigators[1].tokens = {"yellow_sign": 2}
    s.investigators[0].levels.update({"haymaker": 1, "brawling": 1})
    rearrange(game)
    # Tobias attacks with 3 standard and 2 bonus dice: five successes.
    script_dice(game, "success", "success", "success", "success", "success")
    do(game, "attack", target="elder_one")
    ev = do(game, "keep")
    wounded = [e for e in ev if e.type == "enemy_wounded"][0]
    assert (wounded["n"], wounded["wounds"], wounded["health"]) == (5, 14, 12)
    defeated = [e for e in ev if e.type == "stage_defeated"][0]
    assert defeated["excess"] == 2
    assert s.stage == 2 and hastur.wounds == 0  # the extra 2 wounds do not carry over
    assert hastur.space == game.content.main.episodes["wexley_mill"].map.gates["red"]
    # Only the investigator with 2 or more Yellow Signs takes a wound.
    assert (s.investigators[0].wounds, s.investigators[1].wounds) == (0, 1)
    assert game.rules.engine(s).attack_dice(hastur) == (3, 3)


def test_defeating_the_final_stage_wins_even_if_the_attacker_goes_mad_at_once():
    game = new_game("tobias_grell", "ada_whitlock")
    setup_table(game)
    s = game.state
    hastur = hastur_summoned(game, stage=3)
    hastur.wounds = game.content.main.elder_ones["hastur"].stages[3].health - 1
    inv = s.investigators[0]
    inv.sanity = game.content.main.investigators[inv.id].sanity - 1
    inv.reached = list(game.content.main.investigators[inv.id].thresholds)
    rearrange(game)
    script_dice(game, "success+tentacle", "", "")
    do(game, "attack", target="elder_one")
    ev = do(game, "keep")
    assert game.outcome == "won" and types(ev)[-1] == "game_won"


def test_the_progression_token_reaching_the_last_space_loses():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    hastur_summoned(game, space="strongroom", disrupted=False)
    s.track = 7
    rearrange(game)
    s.mythos_discard[:] = symbols(game, 3)
    s.mythos_deck[:] = [filler(game)]
    do(game, "end_actions")
    assert game.outcome == "lost" and s.cause == "track_end"


def test_after_the_summoning_one_death_is_not_the_end_but_all_deaths_are():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    hastur_summoned(game, space="strongroom", disrupted=False)
    a = s.investigators[0]
    a.wounds = game.content.main.investigators[a.id].health - 1
    rearrange(game, figures=[("cultist", "yard_gate")])
    s.figures.append(Figure(id="elder_one", kind="elder_one", space="strongroom"))
    script_dice(game, "success", "")
    do(game, "end_actions")
    ev = do(game, "keep")
    assert not a.alive and game.outcome is None
    assert "turn_started" in types(ev) and s.active == 1
    b = s.investigators[1]
    b.wounds = game.content.main.investigators[b.id].health - 1
    b.space = "yard_gate"
    script_dice(game, "success", "")
    do(game, "end_actions")
    do(game, "keep")
    assert game.outcome == "lost" and s.cause == "all_dead"


def test_a_dead_investigators_later_turns_are_skipped():
    game = new_game("ada_whitlock", "osric_vane", "tobias_grell", players=2)  # three investigators: not a solo table
    setup_table(game)
    s = game.state
    hastur_summoned(game, space="strongroom", disrupted=False)
    s.investigators[1].alive = False
    s.investigators[1].cause = "killed"
    rearrange(game)
    do(game, "end_actions")
    assert s.active == 2


# ------------------------------------------------------------------ Discovery, companions, trade


def test_investigating_draws_a_discovery_and_claims_a_half():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    card = discovery_id(game, "Old Jory, Stoker")
    s.discovery_deck[:] = [card]
    ev = do(game, "end_actions")
    drawn = [e for e in ev if e.type == "discovery_drawn"][0]
    assert drawn["left"]["name"] == "Old Jory, Stoker"
    assert game.prompt.kind == "choose"
    assert [o.label for o in game.prompt.options][0].startswith("Heave the beam")
    ev = do(game, "choose", option=0)  # take 2 stress, then claim the left half
    assert types(ev)[:2] == ["chose", "stress_taken"]
    assert s.investigators[0].cards == [{"card": card, "side": "left", "wounds": 0}]
    assert s.discovery_discard == []  # a claimed card is under the board, not in the discard


def claim_companion(game, name: str, who: int = 0) -> None:
    s = game.state
    s.investigators[who].cards.append({"card": discovery_id(game, name), "side": "left", "wounds": 0})


def test_a_companion_grants_a_skill_level_and_takes_it_away_when_lost():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    eng = game.rules.engine(s)
    assert eng.levels(0)["brawling"] == 1
    claim_companion(game, "Old Jory, Stoker")  # Brawling, which Ada has: one level up
    assert eng.levels(0)["brawling"] == 2 and eng.mods(0)["attack_all"]
    claim_companion(game, "Nell Parry, Watchwoman")  # Marksman, which Ada lacks: level 1
    assert eng.levels(0)["marksman"] == 1
    harm.lose_card(eng, 0, discovery_id(game, "Old Jory, Stoker"), "effect")
    assert eng.levels(0)["brawling"] == 1 and not eng.mods(0)["attack_all"]


def test_the_level_a_companion_grants_is_the_level_every_view_shows():
    from cthulhu.tui.modes.main.panes import render_investigators

    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    claim_companion(game, "Old Jory, Stoker")  # Brawling, which Ada has: level 2 while he is with her
    claim_companion(game, "Nell Parry, Watchwoman")  # Marksman, which Ada lacks: level 1
    eng = game.rules.engine(game.state)
    ada = game.view(0)["investigators"][0]
    shown = {sk["id"]: sk["level"] for sk in ada["skills"]}
    assert shown == eng.levels(0) == {"smoke_eater": 1, "toughness": 1, "brawling": 2, "marksman": 1}
    assert ada["mods"] == {k: v for k, v in eng.mods(0).items() if v} and ada["mods"]["attack_all"]
    brawling = next(sk for sk in ada["skills"] if sk["id"] == "brawling")
    assert brawling["own"] == 1 and brawling["granted"] == ["Old Jory, Stoker"]
    board = render_investigators(game.view(0), width=70).plain
    assert "Brawling 2 (1 + Old Jory, Stoker)" in board and "Marksman 1 (0 + Nell Parry, Watchwoman)" in board
    level2 = game.content.main.skills["brawling"].levels[1].text
    assert "2: " + " ".join(level2.split()[:4]) in board  # the level in effect is spelled out under the skill
    brief = render_investigators(game.view(0), detail=False, width=70).plain
    assert "Brawling 2" in brief


def test_a_level_up_says_the_level_it_reaches_with_the_companion_held():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    claim_companion(game, "Old Jory, Stoker")
    s = game.state
    s.stack.append({"k": "level_up", "inv": 0})
    s.pending = None
    eng = game.rules.engine(s)
    eng.run()
    labels = [label for _, label in s.pending["options"]]
    assert any(label.startswith("Brawling to level 3: ") for label in labels), labels
    ev = eng.answer(Command.of("level_up", skill="brawling"))
    assert [e["level"] for e in ev if e.type == "skill_leveled"] == [3]


def test_companions_can_take_wounds_and_are_lost_at_their_value():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    claim_companion(game, "Sam Okoro, Bobbin Boy")  # health 1
    rearrange(game, figures=[("cultist", "yard_gate")])
    script_dice(game, "success", "success")
    do(game, "end_actions")
    do(game, "keep")
    assert game.prompt.kind == "wound_to"
    card = discovery_id(game, "Sam Okoro, Bobbin Boy")
    ev = do(game, "take", card=card)
    assert "card_lost" in types(ev)
    assert s.investigators[0].wounds == 1  # the second wound had nowhere else to go
    assert s.investigators[0].cards == []


def test_trade_moves_items_and_companions_keeping_their_side_but_not_conditions():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    jory = discovery_id(game, "Old Jory, Stoker")
    rota = discovery_id(game, "Knows the Shift Rota")
    s.investigators[0].cards[:] = [{"card": jory, "side": "left", "wounds": 1}, {"card": rota, "side": "left", "wounds": 0}]
    rearrange(game)
    do(game, "trade")
    gifts = [c for c in game.legal(0) if c.kind == "give"]
    assert [c["card"] for c in gifts] == [jory]  # a Condition cannot be traded
    do(game, "give", card=jory, to=1)
    do(game, "done")
    assert s.investigators[1].cards == [{"card": jory, "side": "left", "wounds": 1}]


# ------------------------------------------------------------------ insanity


def test_the_insanity_card_activates_at_every_threshold_before_the_level_up():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    inv = s.investigators[0]
    inv.insanity = next(k for k, v in game.content.main.insanity.items() if v.activate[0].op == "stress")
    ref = game.content.main.investigators[inv.id]
    inv.sanity = ref.thresholds[0] - 1
    s.pending = None
    s.stack.append({"k": "sanity", "inv": 0, "n": 1})
    eng = game.rules.engine(s)
    eng.run()
    order = types(eng.events)
    assert order.index("threshold_reached") < order.index("insanity_activated")
    assert "stress_taken" in order
    assert game.prompt.kind == "level_up"


def test_each_investigator_is_dealt_a_different_insanity_card():
    game = new_game("ada_whitlock", "osric_vane", "tobias_grell", "mina_castellane", players=2)
    cards = [inv.insanity for inv in game.state.investigators]
    assert None not in cards and len(set(cards)) == 4
    view = game.view(0)
    assert all(i["insanity"]["name"] for i in view["investigators"])


def test_a_kept_mythos_card_strikes_again_at_the_start_of_each_turn():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    s.mythos_discard[:] = [mythos_id(game, "The Pale Mask")]
    s.pending = None
    s.stack.append({"k": "ops", "inv": 1, "ops": [KeepMythosOp(op="keep_mythos")], "src": "test", "card": None})
    game.rules.engine(s).run()
    assert s.investigators[1].kept == [mythos_id(game, "The Pale Mask")] and s.mythos_discard == []
    ev = do(game, "end_actions")  # Osric's turn begins with the kept card again
    assert "mythos_recurs" in types(ev)
    assert s.investigators[1].tokens.get("yellow_sign") == 1


def test_episode_actions_need_their_requirements():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    assert not any(c.kind == "episode" for c in game.legal(0))
    s.fire = {"yard_gate": 3}
    s.fire_reserve -= 3
    rearrange(game, fire={"yard_gate": 3})
    assert Command.of("episode", action=1) in game.legal(0)
    do(game, "episode", action=1)
    assert s.fire.get("yard_gate") == 1


def run_ops(game, subject: int, ops: list[dict]) -> list:
    """Resolve effects written as content data (validated into the content's op models)."""
    s = game.state
    s.pending = None
    s.stack.append({"k": "ops", "inv": subject, "ops": TypeAdapter(list[AnyOp]).validate_python(ops), "src": "test", "card": None})
    eng = game.rules.engine(s)
    eng.run()
    return eng.events


def test_if_space_token_checks_the_place():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    s = game.state
    s.space_tokens["yard_gate"] = {"rlyeh": 1}
    ops = [{"op": "if_space_token", "token": "rlyeh", "at_least": 1, "at": "here", "then": [{"op": "stress", "n": 1, "who": "you"}], "otherwise": [{"op": "heal", "wounds": 1, "stress": 0, "who": "you"}]}]
    run_ops(game, 0, ops)
    assert s.investigators[0].stress == 1
    s.investigators[1].space = "loading_dock"
    s.investigators[1].wounds = 1
    run_ops(game, 1, ops)
    assert (s.investigators[1].stress, s.investigators[1].wounds) == (0, 0)


def test_enemies_move_toward_the_investigator_the_effect_is_about():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game, figures=[("cultist", "spinning_floor")])
    s = game.state
    s.investigators[1].space = "clerk_office"  # Osric, not the active investigator
    run_ops(game, 1, [{"op": "move_enemies", "which": "closest", "kind": "any", "steps": 1}])
    assert s.figures[0].space == "clerk_office"


# ------------------------------------------------------------------ the Elder One is an enemy (seed 001: "acts like any enemy")


def _moves(events) -> list[tuple[str, str]]:
    return [(e["figure"], e["to"]) for e in events if e.type == "enemy_moved"]


def test_move_the_closest_enemy_reaches_the_elder_one_when_it_is_the_only_enemy():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    hastur_summoned(game, space="carding_room")  # 3 spaces from the Yard Gate
    game.state.mythos_deck[:] = [mythos_id(game, "The Play's Second Act")]  # move the closest enemy 2 toward you
    ev = do(game, "end_actions")
    while game.prompt is not None and game.prompt.kind == "enemy_path":
        ev += game.apply(game.prompt.seat, game.legal(game.prompt.seat)[0])
    assert [fid for fid, _ in _moves(ev)] == ["elder_one", "elder_one"]
    assert distances(game.rules.engine(game.state).adj, "yard_gate")[game.state.figure("elder_one").space] == 1


def test_the_beacon_insanity_pulls_the_elder_one_too():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    hastur_summoned(game, space="spinning_floor")  # 2 spaces away
    ops = TypeAdapter(list[AnyOp]).dump_python(game.content.main.insanity["beacon"].activate)
    run_ops(game, 0, ops)
    assert game.state.figure("elder_one").space == "yard_gate"


def test_only_monster_and_cultist_effects_leave_the_elder_one_out():
    for kind in ("monster", "cultist"):
        game = new_game("ada_whitlock", "osric_vane")
        setup_table(game)
        hastur_summoned(game, space="spinning_floor")
        assert not _moves(run_ops(game, 0, [{"op": "move_enemies", "which": "all", "kind": kind, "steps": 1}]))
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game)
    hastur_summoned(game, space="spinning_floor")
    assert _moves(run_ops(game, 0, [{"op": "move_enemies", "which": "all", "kind": "any", "steps": 1}])) == [("elder_one", "loading_dock")]


def test_a_tie_for_closest_names_the_elder_one_without_an_article():
    game = new_game("ada_whitlock", "osric_vane")
    setup_table(game, figures=[("cultist", "coal_cellar")])
    hastur_summoned(game, space="spinning_floor")  # both 2 spaces from the Yard Gate
    run_ops(game, 0, [{"op": "move_enemies", "which": "closest", "kind": "any", "steps": 1}])
    pending = game.state.pending
    assert pending is not None and pending["kind"] == "pick_enemy"
    labels = [label for _, label in pending["options"]]
    assert "Hastur in Spinning Floor" in labels and "The Cultist in Coal Cellar" in labels
