"""Rules fidelity II (issue 11): no bookkeeping lost to a death or a fallen Stage.

Each test builds the exact table of one deviation found by the audit and
checks the rule as RULES.md "Decided after the first audit" states it.
"""

from __future__ import annotations

from cthulhu.core import script_dice

from helpers import do, new_game, rearrange, types
from test_main_story import hastur_summoned, setup_table


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
