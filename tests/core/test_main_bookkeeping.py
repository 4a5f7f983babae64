"""Rules fidelity II (issue 11): no bookkeeping lost to a death or a fallen Stage.

Each test builds the exact table of one deviation found by the audit and
checks the rule as RULES.md "Decided after the first audit" states it.
"""

from __future__ import annotations

import pytest

from cthulhu.core import Game, Setup, script_dice

from support.helpers import do, new_game, rearrange, types
from support.helpers import filler, hastur_summoned, mythos_id, setup_table, symbols


def on_the_brink(game, i: int) -> None:
    """Investigator i is one sanity step from the skull, every threshold already behind them."""
    inv = game.state.investigators[i]
    ref = game.content.main.investigators[inv.id]
    inv.sanity = ref.sanity - 1
    inv.reached = list(ref.thresholds)


# ------------------------------------------------------------------ 1. split hits after a fallen Stage


def test_split_hits_are_rechecked_when_a_stage_falls():
    """Stage 2 at 11/12 and three split hits: one fells the Stage; the other two cannot follow Hastur."""
    game = new_game("ada_whitlock", "mina_castellane")
    setup_table(game, figures=[("cultist", "yard_gate")])
    s = game.state
    hastur = hastur_summoned(game, stage=1, space="yard_gate")
    hastur.wounds = 11
    rearrange(game, levels={0: {"brawling": 2}})  # Brawling 2: hits may be split
    assert game.content.main.enemies["cultist"].health == 2
    script_dice(game, "success", "success", "success", "")  # 3 standard + 1 bonus from Brawling 1
    do(game, "attack", all=True)
    do(game, "keep")
    assert game.prompt.kind == "assign_hit"
    ev = do(game, "hit", target="elder_one")
    assert "stage_defeated" in types(ev) and s.stage == 2
    red = game.content.main.episodes["wexley_mill"].map.gates["red"]
    assert hastur.space == red  # Stage 3's reveal moved him out of the attacker's space
    # The two hits left can land only on the Cultist (the one choice left is taken at once).
    assert hastur.wounds == 0  # Stage 3 starts with no wounds
    hits = [e for e in ev if e.type == "enemy_wounded"]
    assert [h["figure"] for h in hits] == ["elder_one", "cultist-t1", "cultist-t1"]
    assert "enemy_killed" in types(ev)
    assert game.prompt.kind == "action"


# ------------------------------------------------------------------ 2 and 3. an advance that kills the active investigator


def cthulhu_on_the_board_with_three_symbols() -> Game:
    """Cthulhu summoned (away from the investigators), three summoning symbols waiting in the discard,
    and the active investigator one sanity step from madness: Stage 1's advance effect will kill her."""
    game = new_game("ada_whitlock", "mina_castellane", elder_one="cthulhu")
    setup_table(game)
    s = game.state
    hastur_summoned(game, stage=1, space="strongroom", disrupted=False)  # the figure is Cthulhu's here
    on_the_brink(game, 0)
    s.mythos_discard[:] = symbols(game, 3)
    s.mythos_deck[:] = [filler(game)]
    rearrange(game, decks=True)
    return game


def test_an_advance_that_kills_the_active_investigator_still_reshuffles_the_discard():
    game = cthulhu_on_the_board_with_three_symbols()
    s = game.state
    n_cards = len(s.mythos_discard) + len(s.mythos_deck)
    ev = do(game, "end_actions")
    order = types(ev)
    assert order.count("elder_advanced") == 1 and not s.investigators[0].alive
    assert order.index("elder_advanced") < order.index("investigator_died") < order.index("mythos_shuffled")
    assert s.mythos_discard == [] and len(s.mythos_deck) == n_cards
    assert game.outcome is None and s.active == 1  # Mina plays on
    # Her turn draws a card without a symbol: the Elder One does not advance again.
    s.mythos_deck.remove(filler(game))
    s.mythos_deck.append(filler(game))
    ev = do(game, "end_actions")
    assert "elder_advanced" not in types(ev) and s.track == 6


def test_an_advance_that_kills_the_active_investigator_still_runs_the_episode_effect():
    game = cthulhu_on_the_board_with_three_symbols()
    s = game.state
    blue = game.content.main.episodes["wexley_mill"].map.gates["blue"]
    assert s.fire.get(blue, 0) == 0
    ev = do(game, "end_actions")
    order = types(ev)
    assert order.index("investigator_died") < order.index("fire_spread")  # the Elder One's effects first
    assert s.fire.get(blue) == 1  # The Wexley Mill Fire: a Fire token on the blue gate


def test_a_mythos_card_whose_reader_dies_is_resolved_to_its_end():
    """Tattered Robes wounds its reader to death; its summon line still brings a Disciple, then it is discarded."""
    game = new_game("ada_whitlock", "mina_castellane")
    setup_table(game)
    s = game.state
    hastur_summoned(game, stage=1, space="vat_hall", disrupted=False)
    ada = s.investigators[0]
    ada.wounds = game.content.main.investigators[ada.id].health - 1
    ada.tokens = {"yellow_sign": 2}
    card = mythos_id(game, "Tattered Robes")
    s.mythos_deck[:] = [card]
    rearrange(game, decks=True)
    ev = do(game, "end_actions")
    assert not ada.alive and game.outcome is None
    summoned = [e for e in ev if e.type == "summoned"]
    assert [(e["kind"], e["space"]) for e in summoned] == [("disciple", game.content.main.episodes["wexley_mill"].map.gates["yellow"])]
    assert card in s.mythos_discard
    assert s.active == 1


def test_every_task_kind_says_what_a_death_does_to_it():
    from cthulhu.core.main.engine import ANSWERS, STEPS
    from cthulhu.core.main.tasks import OUTLIVES_DEATH, PERSONAL, SKIPPED_PHASES

    kinds = set(STEPS) | set(ANSWERS)
    groups = (PERSONAL, SKIPPED_PHASES, OUTLIVES_DEATH)
    assert set().union(*groups) == kinds
    assert sum(len(g) for g in groups) == len(kinds)  # each kind in exactly one group


# ------------------------------------------------------------------ 4. a solo table needs two investigators


def test_a_one_player_game_with_one_investigator_is_refused():
    with pytest.raises(ValueError, match="2 investigators"):
        Game.new(Setup(seed=1, players=1, investigators=["ada_whitlock"]))
    # Nor may a seat sit at the table with no investigator (a bot seat would play a one-investigator game).
    with pytest.raises(ValueError, match="every player needs an investigator"):
        Game.new(Setup(seed=1, players=2, investigators=["ada_whitlock"]))
    with pytest.raises(ValueError, match="every player needs an investigator"):
        Game.new(Setup(seed=1, players=2, seats=[0, 0], investigators=["ada_whitlock", "osric_vane"]))
    assert len(Game.new(Setup(seed=1, players=1, investigators=["ada_whitlock", "osric_vane"])).state.investigators) == 2
    assert len(Game.new(Setup(seed=1, players=2, investigators=["ada_whitlock", "osric_vane"])).state.investigators) == 2


def test_cthulhu_play_refuses_one_investigator_solo_in_one_line():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "cthulhu.cli", "play", "--players", "1", "--investigators", "ada_whitlock"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "2 investigators" in lines[0] and lines[0].startswith("cthulhu play:")


# ------------------------------------------------------------------ 5. one event per card traded


def test_a_trade_to_a_later_seat_is_told_once():
    game = new_game("ada_whitlock", "mina_castellane")
    setup_table(game)
    s = game.state
    from support.helpers import discovery_id

    jory = discovery_id(game, "Old Jory, Stoker")
    s.investigators[0].cards[:] = [{"card": jory, "side": "left", "wounds": 0}]
    rearrange(game)
    do(game, "trade")
    ev = do(game, "give", card=jory, to=1)
    assert [(e["card"], e["to"]) for e in ev if e.type == "traded"] == [("Old Jory, Stoker", 1)]
    assert s.investigators[1].cards == [{"card": jory, "side": "left", "wounds": 0}] and s.investigators[0].cards == []
