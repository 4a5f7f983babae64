"""Shamblers mode in brief, in our own words, with the numbers taken from the content."""

from __future__ import annotations

from typing import Any

from ...render import number_word


def rules_in_brief(content: Any) -> list[tuple[str, str]]:
    c = content.shamblers
    bonus = ", ".join(str(b) for b in c.banish_bonus[:-1]) + f" or {c.banish_bonus[-1]}"
    held = ", ".join(str(n) for n in range(len(c.banish_bonus) - 1)) + f" or {len(c.banish_bonus) - 1}"
    rage = c.color(c.bonus_color).tentacle
    return [
        ("", f"Shamblers: banish the Great Old One's minions from a ring of {number_word(len(c.towns))} Town Cards. On your turn:"),
        ("1. ", f"The Wheel turns to a random Town Card: {c.wheel_draw} Madness Tentacles come out of the bag onto it, "
         f"and the next Shambler lands {number_word(c.shambler_offset)} cards clockwise from it."),
        ("2. ", f"Take {number_word(c.actions_per_turn)} actions: Move to a neighbouring card, Gather a tentacle from your card onto "
         "your Player Mat (a full track costs 1 Delirium instead), or Banish."),
        ("3. ", "Feed: every card with Shamblers loses one of its Madness Tentacles per Shambler to the "
         "Shambler Mat."),
        ("", ""),
        ("", "Banish: roll one Cthulhu Die per Shambler on your card. The highest single die (never the "
         f"sum) is the cost, paid in tentacles of the banished Shambler's color; up to {number_word(c.chaos_wild_max)} Chaos "
         f"Tentacles may stand in. Then the Shambler goes to the Shambler Mat and {bonus} tentacles "
         f"of its color leave the Shambler Mat, for {held} {rage} Tentacles you held when you began."),
        ("", ""),
        ("", f"Win with {number_word(c.win_per_color)} Shamblers of every color on the Shambler Mat. Lose when a Shambler is due "
         f"and none are left, when the Shambler Mat holds {number_word(c.loss_mat_tentacles)} tentacles of one color, or when anyone's "
         "Delirium fills."),
    ]
