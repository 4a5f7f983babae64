"""Shamblers mode in brief, in our own words, with the numbers of the level being played.

The numbers come from the game's view when there is one (it says its level's
draw, actions and goals), else from the content at the level chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...render import number_word


def rules_in_brief(content: Any, view: Any = None, options: Any = None) -> list[tuple[str, str]]:
    c = content.shamblers.at(view["difficulty"]["id"] if view else getattr(options, "difficulty", None))
    level = view["difficulty"]["name"] if view else c.level.name
    draw = view["wheel_draw"] if view else c.wheel_draw
    actions = view["actions_per_turn"] if view else c.actions_per_turn
    win = view["goals"]["win_per_color"] if view else c.win_per_color
    loss = view["goals"]["loss_mat_tentacles"] if view else c.loss_mat_tentacles
    bonus = ", ".join(str(b) for b in c.banish_bonus[:-1]) + f" or {c.banish_bonus[-1]}"
    held = ", ".join(str(n) for n in range(len(c.banish_bonus) - 1)) + f" or {len(c.banish_bonus) - 1}"
    rage = c.color(c.bonus_color).tentacle
    return [
        ("", f"Shamblers ({level}): banish the Great Old One's minions from a ring of {number_word(len(c.towns))} "
         "Town Cards. On your turn:"),
        ("1. ", f"The Wheel turns to a random Town Card: {draw} Madness Tentacles come out of the bag onto it, "
         f"and the next Shambler lands {number_word(c.shambler_offset)} cards clockwise from it."),
        ("2. ", f"Take {number_word(actions)} actions: Move to a neighbouring card, Gather a tentacle from your card onto "
         "your Player Mat (a full track costs 1 Delirium instead), or Banish."),
        ("3. ", "Feed: every card with Shamblers loses one of its Madness Tentacles per Shambler to the "
         "Shambler Mat."),
        ("", ""),
        ("", "Banish: roll one Cthulhu Die per Shambler on your card. The highest single die (never the "
         f"sum) is the cost, paid in tentacles of the banished Shambler's color; up to {number_word(c.chaos_wild_max)} Chaos "
         f"Tentacles may stand in. Then the Shambler goes to the Shambler Mat and {bonus} tentacles "
         f"of its color leave the Shambler Mat, for {held} {rage} Tentacles you held when you began."),
        ("", ""),
        ("", f"Win at once with {win} Shamblers of every color on the Shambler Mat. Lose at once when a "
         f"Shambler is due and none are left, when the Shambler Mat holds {loss} tentacles of one color, "
         "or when anyone's Delirium fills."),
        ("", ""),
        ("", legend(c)),
    ]


def legend(c: Any) -> str:
    """The marks on the Shamblers screen, in this mode's own words (colors from the content)."""
    marks = ", ".join(f"{col.id[:1].upper()} {col.tentacle} ({col.id})" for col in c.colors)
    return (f"Marks: {marks}, C Chaos (wild); P1, P2 ... the Player Mats; W the Town Card the Wheel chose; "
            "[2] a Cthulhu Die showing two tentacles; T tentacles and Sh Shamblers on a card.")


# A line for the first time each kind of decision (or a few events) comes up in a game.
ACTIONS = (("move", "Move"), ("gather", "Gather a tentacle onto your Player Mat"), ("banish", "Banish a Shambler"))


def action_hint(prompt: Any) -> str:
    """The actions this prompt offers, and only those (a loaded game may offer no Gather, no Banish)."""
    offered = {o["data"].get("action") for o in prompt["options"]}
    words = [word for action, word in ACTIONS if action in offered]
    if not words:
        return ""
    return (words[0] if len(words) == 1 else ", ".join(words[:-1]) + (", or " if len(words) > 2 else " or ") + words[-1]) + "."


HINTS: dict[str, str | Callable[[Any], str]] = {
    "event:wheel_turned": "The Wheel: tentacles come out, a Shambler rises 2 cards clockwise.",
    "action": action_hint,
    "banish": "The highest single die is the cost, in the Shambler's color or Chaos.",
    "feed": "Each card with Shamblers feeds them a tentacle onto the Shambler Mat.",
}
