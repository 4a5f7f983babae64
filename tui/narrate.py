"""Events told as sentences for the Log pane, each with a kind that picks its color.

Events the narrator does not know yet (new rules land all the time) still get a
readable line built from their fields, never a crash and never silence.
"""

from __future__ import annotations

from typing import Any, Callable

from .dice import faces_text

# kind -> style (16-color names so the ANSI theme and plain terminals agree)
KIND_STYLES = {
    "turn": "bold",
    "dice": "cyan",
    "harm": "red",
    "enemy": "magenta",
    "good": "green",
    "move": "",
    "story": "yellow",
    "end": "bold reverse",
    "info": "dim",
    "chat": "blue",
    "error": "bold red",
}


class Names:
    """Looks up display names in a view, falling back to the raw id."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.mode = view.get("mode") or "main"
        self.view = view
        self.spaces: dict[str, str] = {}
        for tile in (view.get("episode") or {}).get("tiles", []):
            for sp in tile.get("spaces", []):
                self.spaces[sp["id"]] = sp.get("name", sp["id"])
        self.invs = {i.get("index", n): i.get("name", f"Investigator {n + 1}") for n, i in enumerate(view.get("investigators") or [])}
        self.enemies = {e["id"]: e.get("name", e["id"]) for e in view.get("enemies") or []}

    def space(self, sid: Any) -> str:
        return self.spaces.get(sid, str(sid).replace("_", " "))

    def inv(self, ev: dict[str, Any]) -> str:
        if "name" in ev and "inv" in ev and isinstance(ev.get("name"), str) and ev.get("name") in self.invs.values():
            return ev["name"]
        return self.invs.get(ev.get("inv"), ev.get("name") or "Someone")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _humanize(ev: dict[str, Any], names: Names) -> str:
    kind = str(ev.get("type", "event")).replace("_", " ")
    parts = []
    for k, v in ev.items():
        if k == "type":
            continue
        if k in ("space", "to", "frm") and isinstance(v, str):
            v = names.space(v)
        parts.append(f"{k.replace('_', ' ')} {v}")
    return kind.capitalize() + (": " + ", ".join(parts) if parts else "") + "."


_Teller = Callable[[dict[str, Any], Names], tuple[str, str]]

def _undone(ev: dict[str, Any], names: Names) -> tuple[str, str]:
    taken = [str(t) for t in ev.get("taken") or []]
    what = "; ".join(taken) if taken else "a decision"
    return "info", f"Seat {int(ev['seat']) + 1} takes back: {what}. (Back at step {ev.get('step')}; no roll or card is changed.)"


_TELLERS: dict[str, _Teller] = {
    "undone": _undone,
    "turn_started": lambda e, n: ("turn", f"Turn {e.get('turn')}: {n.inv(e)} begins."),
    "turn_ended": lambda e, n: ("info", f"{n.inv(e)}'s turn {e.get('turn')} ends."),
    "action_taken": lambda e, n: ("info", f"{n.inv(e)} takes the {str(e.get('action')).replace('_', ' ')} action ({e.get('left')} left)."),
    "actions_ended": lambda e, n: ("info", f"{n.inv(e)} ends their actions" + (f" with {e['unused']} unused." if e.get("unused") else ".")),
    "moved": lambda e, n: ("move", f"{n.inv(e)} moves to {e.get('space') or n.space(e.get('to'))}."),
    "followed": lambda e, n: ("enemy", f"A {e.get('name')} follows {n.inv(e)} to {n.space(e.get('to'))}."),
    "investigated": lambda e, n: ("good", f"{n.inv(e)} investigates {n.space(e.get('space'))}."),
    "dice_rolled": lambda e, n: ("dice", f"{n.inv(e)} rolls for {str(e.get('purpose', 'a check')).replace('_', ' ')}: {faces_text(e.get('dice') or [], ascii_only=True)}."),
    "die_rerolled": lambda e, n: ("dice", f"{n.inv(e)} rerolls die {int(e.get('die', 0)) + 1}: {faces_text(e.get('dice') or [], ascii_only=True)}."),
    "stress_taken": lambda e, n: ("harm", f"{n.inv(e)} takes {_plural(int(e.get('n', 1)), 'stress')}" + (f" ({str(e['why']).replace('_', ' ')})" if e.get("why") else "") + f", now {e.get('stress')}."),
    "wounded": lambda e, n: ("harm", f"{n.inv(e)} takes {_plural(int(e.get('n', 1)), 'wound')}" + (f" from {str(e['source']).replace('_', ' ')}" if e.get("source") else "") + f" ({e.get('wounds')}/{e.get('health')})."),
    "sanity_lost": lambda e, n: ("harm", f"{n.inv(e)} loses {e.get('n', 1)} sanity ({e.get('sanity')} of {e.get('skull')})."),
    "threshold_reached": lambda e, n: ("good", f"{n.inv(e)} crosses the sanity threshold at {e.get('at')}."),
    "skill_leveled": lambda e, n: ("good", f"{n.inv(e)} raises {e.get('skill_name') or e.get('skill')} to level {e.get('level')}."),
    "bonus_die_gained": lambda e, n: ("good", f"{n.inv(e)} gains a bonus die (now {e.get('bonus')})."),
    "rested": lambda e, n: ("good", f"{n.inv(e)} rests: heals {_plural(int(e.get('wounds', 0)), 'wound')} and {e.get('stress', 0)} stress."),
    "fire_caught": lambda e, n: ("harm", f"{n.inv(e)} catches fire ({_plural(int(e.get('tokens', 1)), 'Fire token')})."),
    "burning": lambda e, n: ("harm", f"{n.inv(e)} is burning ({_plural(int(e.get('tokens', 1)), 'Fire token')})."),
    "fire_out": lambda e, n: ("good", f"{n.inv(e)}'s flames go out."),
    "attack_declared": lambda e, n: ("enemy", f"{n.inv(e)} attacks " + ", ".join(n.enemies.get(t, str(t)) for t in e.get("targets") or []) + "."),
    "attack_missed": lambda e, n: ("info", f"{n.inv(e)}'s attack misses the {e.get('name')}."),
    "enemy_attacks": lambda e, n: ("enemy", f"The {e.get('name')} attacks {e.get('target') or n.inv(e)}."),
    "enemy_wounded": lambda e, n: ("good", f"The {e.get('name')} takes {_plural(int(e.get('n', 1)), 'wound')} ({e.get('wounds')}/{e.get('health')})."),
    "enemy_killed": lambda e, n: ("good", f"The {e.get('name')} in {n.space(e.get('space'))} is killed."),
    "investigator_died": lambda e, n: ("end", f"{n.inv(e)} dies in {n.space(e.get('space'))} ({str(e.get('cause', '')).replace('_', ' ')})."),
    "game_lost": lambda e, n: ("end", f"The game is lost: {e.get('text') or str(e.get('cause', '')).replace('_', ' ')}."),
    "game_won": lambda e, n: ("end", "The game is won" + (f": {e['text']}" if e.get("text") else "") + "."),
    "mythos_drawn": lambda e, n: ("story", f"Mythos: {e.get('card')}" + (" (summoning symbol)" if e.get("summoning") else "") + f". {e.get('text', '')}".rstrip()),
    "mythos_shuffled": lambda e, n: ("info", f"The Mythos discard is shuffled back ({e.get('deck')} cards)."),
    "mythos_kept": lambda e, n: ("story", f"{n.inv(e)} keeps the Mythos card {e.get('card')}."),
    "mythos_recurs": lambda e, n: ("story", f"{e.get('card')} strikes {n.inv(e)} again."),
    "discovery_drawn": lambda e, n: ("story", f"Discovery: {e.get('card')}. {e.get('text', '')}".rstrip()),
    "discovery_empty": lambda e, n: ("info", "The Discovery deck is empty."),
    "chose": lambda e, n: ("info", f"{n.inv(e)} chooses: {e.get('label')}."),
    "claimed": lambda e, n: ("good", f"{n.inv(e)} takes {e.get('card')} ({e.get('kind')}): {e.get('text', '')}".rstrip()),
    "card_lost": lambda e, n: ("harm", f"{n.inv(e)} loses {e.get('card')}."),
    "traded": lambda e, n: ("info", f"{e.get('card')} goes to {e.get('name') or n.invs.get(e.get('to'))}."),
    "companion_wounded": lambda e, n: ("harm", f"{e.get('card')} takes a wound for {n.inv(e)} ({e.get('wounds')}/{e.get('health')})."),
    "healed": lambda e, n: ("good", f"{n.inv(e)} heals {_plural(int(e.get('wounds', 0)), 'wound')} and {e.get('stress', 0)} stress" + (f" ({e['why']})" if e.get("why") else "") + "."),
    "enemy_moved": lambda e, n: ("enemy", f"A {e.get('name')} moves to {e.get('space_name') or n.space(e.get('to'))}."),
    "summoned": lambda e, n: ("enemy", f"A {e.get('name')} arrives at {e.get('space_name') or n.space(e.get('space'))}."),
    "summon_skipped": lambda e, n: ("info", f"No {e.get('name')} is left to summon."),
    "fire_spread": lambda e, n: ("harm", f"Fire spreads in {e.get('space_name') or n.space(e.get('space'))} (+{e.get('n', 1)})."),
    "fire_doused": lambda e, n: ("good", f"{n.inv(e)} beats out {_plural(int(e.get('n', 1)), 'Fire token')} in {e.get('space_name') or n.space(e.get('space'))}."),
    "check_result": lambda e, n: ("good" if e.get("passed") else "harm", f"{n.inv(e)} {'passes' if e.get('passed') else 'fails'} the check: {e.get('successes')} of {e.get('need')} successes."),
    "space_tokens_changed": lambda e, n: ("story", f"{e.get('space_name') or n.space(e.get('space'))}: {e.get('token_name') or e.get('token')} now {e.get('n')}."),
    "tokens_changed": lambda e, n: ("story", f"{n.inv(e)} now holds {e.get('n')} {e.get('token_name') or e.get('token')}."),
    "ritual_progress": lambda e, n: ("good", f"The ritual falters: {e.get('progress')} of {e.get('needed')} ({e.get('name')})."),
    "ritual_disrupted": lambda e, n: ("good", f"The ritual is disrupted: {e.get('name')}! The Elder One can now be hurt."),
    "insanity_activated": lambda e, n: ("harm", f"{n.inv(e)}'s madness wakes: {e.get('card')}. {e.get('text', '')}".rstrip()),
    "elder_advanced": lambda e, n: ("story", f"{e.get('name')} advances to space {e.get('track')} of {e.get('last')} on the summoning track."),
    "elder_summoned": lambda e, n: ("end", f"{e.get('name')} is summoned!"),
    "stage_revealed": lambda e, n: ("story", f"Stage revealed: {e.get('name')}. {e.get('text', '')}".rstrip()),
    "elder_placed": lambda e, n: ("enemy", f"{e.get('name')} appears at {e.get('space_name') or n.space(e.get('space'))}."),
}


def tell(ev: dict[str, Any], names: Names) -> tuple[str, str]:
    """(kind, sentence) for one event wire dict."""
    if names.mode == "shamblers":
        from .narrate_shamblers import tell as tell_shamblers

        told = tell_shamblers(ev, names.view)
        if told is not None:
            return told
    teller = _TELLERS.get(str(ev.get("type")))
    if teller is not None:
        try:
            return teller(ev, names)
        except (TypeError, ValueError, KeyError):
            pass
    text = ev.get("text")
    if isinstance(text, str) and text:
        return "story", text
    return "info", _humanize(ev, names)
