"""The main game in brief, in our own words, with the numbers taken from the content."""

from __future__ import annotations

from collections.abc import Callable
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


# A line for the first time each kind of decision (or a few events) comes up in a game.
HINTS: dict[str, str | Callable[[Any], str]] = {
    "action": "Your turn: 3 actions, then a Mythos card, then investigate or fight.",
    "event:mythos_drawn": "Mythos: a card the game plays against you after your actions.",
    "run": "Run: one space at a time; enemies in the space you leave follow you.",
    "reroll": "* success, T tentacle (1 sanity), E elder sign. Keep, or reroll a die.",
    "attack_order": "Enemies here attack one by one, in your order: a success is a wound.",
    "choose": "A card offers a choice: each option says what it does and gives.",
    "level_up": "Insanity threshold: the loss stops here and a skill grows a level.",
    "assign_hit": "Your hits may be shared out: pick where each one lands.",
    "wound_to": "A Companion may take a wound for you; it leaves when it is full.",
    "rest": "Rest heals wounds and stress (never sanity), only with no enemy here.",
    "trade": "Give Items and Companions here; backing out before a gift is free.",
    "douse": "Put out Fire: pick the space to take the Fire tokens off.",
    "pick_enemy": "Two enemies are equally close: pick the one that moves.",
    "enemy_path": "An enemy has two shortest ways to you: pick the one it takes.",
    "discard_card": "A card must go: pick which of yours you lose.",
    "event:discovery_drawn": "Discovery: a safe space is searched; keep what the card gives.",
    "event:elder_advanced": "3 summoning symbols move the Elder One; red spaces summon it.",
    "event:elder_summoned": "The Elder One fights like any enemy; hurt it once the ritual breaks.",
}
