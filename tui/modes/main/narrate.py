"""The main game's events told as sentences for the Log pane, each with a kind that picks its color.

Every event arrives checked against its declared type (`cthulhu.core.main.events`),
so a teller reads its fields directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cthulhu.core.main.view import MainView

from .dice import faces_text

Told = tuple[str, str]


class Names:
    """Looks up display names in a view, falling back to the raw id."""

    def __init__(self, view: MainView) -> None:
        self.view = view
        self.spaces = {sp["id"]: sp["name"] for tile in view["episode"]["tiles"] for sp in tile['spaces']}
        self.invs = {i["index"]: i["name"] for i in view["investigators"]}
        self.enemies = {e['id']: e['name'] for e in view["enemies"]}

    def space(self, sid: Any) -> str:
        return self.spaces.get(sid, str(sid).replace("_", " "))

    def inv(self, ev: Any) -> str:
        """The investigator an event is about, by its index (events name them too)."""
        return self.invs.get(ev["inv"], ev.get("name") or "Someone")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


_Teller = Callable[[Any, Names], Told]

_TELLERS: dict[str, _Teller] = {
    "turn_started": lambda e, n: ("turn", f"Turn {e['turn']}: {n.inv(e)} begins."),
    "turn_ended": lambda e, n: ("info", f"{n.inv(e)}'s turn {e['turn']} ends."),
    "action_taken": lambda e, n: ("info", f"{n.inv(e)} takes the {str(e['action']).replace('_', ' ')} action ({e['left']} left)."),
    "actions_ended": lambda e, n: ("info", f"{n.inv(e)} ends their actions" + (f" with {e['unused']} unused." if e['unused'] else ".")),
    "moved": lambda e, n: ("move", f"{n.inv(e)} moves to {e['space'] or n.space(e['to'])}."),
    "followed": lambda e, n: ("enemy", f"A {e['name']} follows {n.inv(e)} to {n.space(e['to'])}."),
    "investigated": lambda e, n: ("good", f"{n.inv(e)} investigates {n.space(e['space'])}."),
    "dice_rolled": lambda e, n: ("dice", f"{n.inv(e)} rolls for {str(e['purpose']).replace('_', ' ')}: {faces_text(e['dice'] or [], ascii_only=True)}."),
    "die_rerolled": lambda e, n: ("dice", f"{n.inv(e)} rerolls die {int(e['die']) + 1}: {faces_text(e['dice'] or [], ascii_only=True)}."),
    "stress_taken": lambda e, n: ("harm", f"{n.inv(e)} takes {_plural(int(e['n']), 'stress')}" + (f" ({str(e['why']).replace('_', ' ')})" if e['why'] else "") + f", now {e['stress']}."),
    "wounded": lambda e, n: ("harm", f"{n.inv(e)} takes {_plural(int(e['n']), 'wound')}" + (f" from {str(e['source']).replace('_', ' ')}" if e['source'] else "") + f" ({e['wounds']}/{e['health']})."),
    "sanity_lost": lambda e, n: ("harm", f"{n.inv(e)} loses {e['n']} sanity ({e['sanity']} of {e['skull']})."),
    "threshold_reached": lambda e, n: ("good", f"{n.inv(e)} crosses the sanity threshold at {e['at']}."),
    "skill_leveled": lambda e, n: ("good", f"{n.inv(e)} raises {e['skill_name'] or e['skill']} to level {e['level']}."),
    "bonus_die_gained": lambda e, n: ("good", f"{n.inv(e)} gains a bonus die (now {e['bonus']})."),
    "rested": lambda e, n: ("good", f"{n.inv(e)} rests: heals {_plural(int(e['wounds']), 'wound')} and {e['stress']} stress."),
    "fire_caught": lambda e, n: ("harm", f"{n.inv(e)} catches fire ({_plural(int(e['tokens']), 'Fire token')})."),
    "burning": lambda e, n: ("harm", f"{n.inv(e)} is burning ({_plural(int(e['tokens']), 'Fire token')})."),
    "fire_out": lambda e, n: ("good", f"{n.inv(e)}'s flames go out."),
    "attack_declared": lambda e, n: ("enemy", f"{n.inv(e)} attacks " + ", ".join(n.enemies.get(t, str(t)) for t in e['targets'] or []) + "."),
    "attack_missed": lambda e, n: ("info", f"{n.inv(e)}'s attack misses the {e['name']}."),
    "enemy_attacks": lambda e, n: ("enemy", f"The {e['name']} attacks {e['target'] or n.inv(e)}."),
    "enemy_wounded": lambda e, n: ("good", f"The {e['name']} takes {_plural(int(e['n']), 'wound')} ({e['wounds']}/{e['health']})."),
    "enemy_killed": lambda e, n: ("good", f"The {e['name']} in {n.space(e['space'])} is killed."),
    "investigator_died": lambda e, n: ("end", f"{n.inv(e)} dies in {n.space(e['space'])} ({str(e['cause']).replace('_', ' ')})."),
    "game_lost": lambda e, n: ("end", f"The game is lost: {e['text'] or str(e['cause']).replace('_', ' ')}."),
    "game_won": lambda e, n: ("end", f"The game is won: {e['name']} is put down."),
    "mythos_drawn": lambda e, n: ("story", f"Mythos: {e['card']}" + (" (summoning symbol)" if e['summoning'] else "") + f". {e['text']}".rstrip()),
    "mythos_shuffled": lambda e, n: ("info", f"The Mythos discard is shuffled back ({e['deck']} cards)."),
    "mythos_kept": lambda e, n: ("story", f"{n.inv(e)} keeps the Mythos card {e['card']}."),
    "mythos_recurs": lambda e, n: ("story", f"{e['card']} strikes {n.inv(e)} again."),
    "discovery_drawn": lambda e, n: ("story", f"Discovery: {e['card']}. {e['text']}".rstrip()),
    "discovery_empty": lambda e, n: ("info", "The Discovery deck is empty."),
    "chose": lambda e, n: ("info", f"{n.inv(e)} chooses: {e['label']}."),
    "claimed": lambda e, n: ("good", f"{n.inv(e)} takes {e['card']} ({e['kind']}): {e['text']}".rstrip()),
    "card_lost": lambda e, n: ("harm", f"{n.inv(e)} loses {e['card']}."),
    "traded": lambda e, n: ("info", f"{e['card']} goes to {e['name'] or n.invs.get(e['to'])}."),
    "companion_wounded": lambda e, n: ("harm", f"{e['card']} takes a wound for {n.inv(e)} ({e['wounds']}/{e['health']})."),
    "healed": lambda e, n: ("good", f"{n.inv(e)} heals {_plural(int(e['wounds']), 'wound')} and {e['stress']} stress" + (f" ({e['why']})" if e['why'] else "") + "."),
    "enemy_moved": lambda e, n: ("enemy", f"A {e['name']} moves to {e['space_name'] or n.space(e['to'])}."),
    "summoned": lambda e, n: ("enemy", f"A {e['name']} arrives at {e['space_name'] or n.space(e['space'])}."),
    "summon_skipped": lambda e, n: ("info", f"No {e['name']} is left to summon."),
    "fire_spread": lambda e, n: ("harm", f"Fire spreads in {e['space_name'] or n.space(e['space'])} (+{e['n']})."),
    "fire_doused": lambda e, n: ("good", f"{n.inv(e)} beats out {_plural(int(e['n']), 'Fire token')} in {e['space_name'] or n.space(e['space'])}."),
    "check_result": lambda e, n: ("good" if e['passed'] else "harm", f"{n.inv(e)} {'passes' if e['passed'] else 'fails'} the check: {e['successes']} of {e['need']} successes."),
    "space_tokens_changed": lambda e, n: ("story", f"{e['space_name'] or n.space(e['space'])}: {e['token_name'] or e['token']} now {e['n']}."),
    "tokens_changed": lambda e, n: ("story", f"{n.inv(e)} now holds {e['n']} {e['token_name'] or e['token']}."),
    "ritual_progress": lambda e, n: ("good", f"The ritual falters: {e['progress']} of {e['needed']} ({e['name']})."),
    "ritual_disrupted": lambda e, n: ("good", f"The ritual is disrupted: {e['name']}! The Elder One can now be hurt."),
    "insanity_activated": lambda e, n: ("harm", f"{n.inv(e)}'s madness wakes: {e['card']}. {e['text']}".rstrip()),
    "elder_advanced": lambda e, n: ("story", f"{e['name']} advances to space {e['track']} of {e['last']} on the summoning track."),
    "elder_summoned": lambda e, n: ("end", f"{e['name']} is summoned!"),
    "stage_revealed": lambda e, n: ("story", f"Stage revealed: {e['name']}. {e['text']}".rstrip()),
    "elder_placed": lambda e, n: ("enemy", f"{e['name']} appears at {e['space_name'] or n.space(e['space'])}."),
}


def tell(ev: Any, view: MainView) -> Told | None:
    """(kind, sentence) for one checked event of the main game; None for a type it does not tell."""
    teller = _TELLERS.get(ev["type"])
    return teller(ev, Names(view)) if teller is not None else None
