"""The main game in brief, in our own words, with the numbers taken from the content."""

from __future__ import annotations

from typing import Any

from ...render import number_word
from .dice import LEGEND


def rules_in_brief(content: Any, view: Any = None, options: Any = None) -> list[tuple[str, str]]:
    r = content.main.rules
    actions, dice = number_word(r.actions), number_word(r.dice)
    return [
        ("", "Investigators share one table against a waking Elder One. On your turn:"),
        ("1. ", f"Take {actions} actions: Run (move up to {r.run} spaces; every enemy in the space you leave "
         f"follows you), Attack the enemies in your space, Rest (heal {r.rest} wounds or stress, only where "
         "no enemy stands), Trade, or the episode's own two actions. An action may be repeated."),
        ("2. ", "Draw a Mythos card: it may summon enemies through the gates."),
        ("3. ", "Investigate if your space is safe (draw a Discovery card); otherwise every enemy "
         "there attacks you, in the order you pick."),
        ("4. ", f"End of turn: Fire burns, and {r.summoning_symbols} summoning symbols in the Mythos discard "
         "move the Elder One along the summoning track."),
        ("", ""),
        ("", f"Dice: {dice} standard dice plus your bonus dice. Successes hurt; each tentacle costs 1 "
         "sanity. After any roll you may take 1 stress to reroll one die of your choice, again "
         "and again, until your stress is full."),
        ("", ""),
        ("", "Sanity climbs toward the skull. Each threshold stops the loss there and lets you "
         f"level up a skill (to level {r.skill_cap} at most); reaching the skull kills you, and so do wounds up to your health."),
        ("", ""),
        ("", "Win by disrupting the ritual and defeating the Elder One's final stage. Lose if "
         "anyone dies before the Elder One is summoned, if everyone dies after, or if its token "
         "reaches the end of the summoning track."),
        ("", ""),
        ("", LEGEND),
    ]
