"""The main game's events told as sentences for the Log pane, each with a kind that picks its color.

One teller per declared event type (`cthulhu.core.main.events`); every event
arrives checked against its type, so a teller reads its fields directly. The
events carry the names a sentence needs (an enemy killed in the update is gone
from the view that comes with it) and their causes; the view adds only what
never changes in a game (space names, the Elder One's name, track sizes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cthulhu.core.main.view import MainView

from ...english import a, and_list, cap, plural, possessive, the
from .dice import faces_text

Told = tuple[str, str]

PURPOSE = {"attack": "attack roll", "defend": "defence roll", "check": "roll", "fire": "roll against the flames"}
ACTIONS = {"run": "Run", "attack": "Attack", "rest": "Rest", "trade": "Trade", "end_actions": "End actions"}


class Names:
    """What a sentence needs from the view: names of investigators and spaces, the Elder One, track sizes."""

    def __init__(self, view: MainView) -> None:
        self.view = view
        self.spaces = {sp["id"]: sp["name"] for tile in view["episode"]["tiles"] for sp in tile["spaces"]}
        self.invs = {i["index"]: i for i in view["investigators"]}
        self.elder = view["elder_one"]["name"]

    def space(self, sid: str) -> str:
        return self.spaces.get(sid, "a space off the map")

    def inv(self, index: int, fallback: str = "") -> str:
        found = self.invs.get(index)
        return found["name"] if found is not None else (fallback or "An investigator")

    def enemy(self, name: str) -> str:
        """'the Cultist', or the Elder One's own name."""
        return the(name, proper=name == self.elder)

    def source(self, cause: Any) -> str:
        """What a roll or a choice is for: 'Seal a furnace door', 'the Discovery card Fire Point'."""
        if not cause or not cause["name"]:
            return "it"
        kind, name = str(cause["kind"]), str(cause["name"])
        return {"action": name, "discovery": f"the Discovery card {name}", "mythos": f"the Mythos card {name}",
                "stage": f"{possessive(self.elder)} Stage card {name}", "insanity": f"the insanity {name}"}.get(kind, name)

    def stage(self, stage: int, stages: int) -> str:
        return "Final Stage" if stage == stages - 1 else f"Stage {stage + 1}"

    def cause(self, cause: Any, lead: str = " ") -> str:
        """' (from the Mythos card The Pale Mask)'-style words for an event's cause; '' when it has none."""
        if not cause:
            return ""
        kind, name = cause["kind"], cause["name"]
        words = {
            "mythos": f"from the Mythos card {name}",
            "discovery": f"from the Discovery card {name}",
            "stage": f"from {possessive(self.elder)} Stage card {name}",
            "episode": f"as {self.elder} draws nearer ({name})",
            "action": f"by the action {name}",
            "insanity": f"from the insanity {name}",
            "enemy": f"from {self.enemy(name)}",
            "fire": f"leaving the burning {name}" if name else "from the flames",
            "reroll": "to reroll a die",
            "tentacles": f"for the tentacles on the {PURPOSE.get(name, 'roll')}",
            "summoning": f"through the {name} gate",
        }.get(kind)
        return f"{lead}{words}" if words else ""


def _dice(ev: Any) -> str:
    return faces_text(ev["dice"])


def _rolled(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"], e["name"])
    count = plural(len(e["dice"]), "die")
    purpose = e["purpose"]
    if purpose == "defend":
        enemy = n.enemy(e["enemy"]) if e["enemy"] else "an enemy"
        return "dice", f"{cap(enemy)} rolls {count} against {who}: {_dice(e)}. Each success is a wound to {who}, each tentacle 1 sanity."
    if purpose == "attack":
        targets = and_list(n.enemy(t) for t in e["target_names"]) or "the enemy"
        return "dice", f"{who} rolls {count} to attack {targets}: {_dice(e)}. Each success is a wound to {targets}, each tentacle 1 sanity."
    if purpose == "fire":
        return "dice", f"The flames on {who} roll {count}: {_dice(e)}. Each success is a wound to {who}, each tentacle 1 sanity."
    need = e["need"] or 1
    return "dice", f"{who} makes a roll for {n.source(e['cause'])}, needing {plural(need, 'success')}: {_dice(e)}."


def _rerolled(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"])
    cost = "free" if e["cost"] == 0 else f"{e['cost']} stress"
    was = faces_text([["bonus" if e["bonus"] else "standard", e["was"]]])
    now = faces_text([["bonus" if e["bonus"] else "standard", e["face"]]])
    return "dice", f"{who} rerolls die {e['die'] + 1} ({cost}): {was} becomes {now}. The dice: {_dice(e)}."


def _kept(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"], e["name"])
    counts = [plural(e["successes"], "success"), plural(e["tentacles"], "tentacle")]
    if e["elders"]:
        counts.append(plural(e["elders"], "elder sign"))
    return "dice", f"{who} keeps the dice: {_dice(e)}, {and_list(counts)}."


def _wounded(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"], e["name"])
    return "harm", f"{who} takes {plural(e['n'], 'wound')}{n.cause(e['cause'])} ({e['wounds']} of {e['health']})."


def _ignored(e: Any, n: Names) -> Told:
    """'Tobias Grell's Toughness ignores 1 wound from the Cultist.'"""
    who = n.inv(e["inv"], e["name"])
    sources = list(e["sources"])
    whose = f"{possessive(who)} {and_list(sources)}" if sources else who
    verb = "ignore" if len(sources) > 1 else "ignores"
    cause = e["cause"]
    if e["by"] == "calm":
        roll = PURPOSE.get(cause["name"], "roll") if cause else "roll"
        return "good", f"{whose} {verb} {plural(e['n'], 'tentacle')} of the {roll}: no sanity lost for {'it' if e['n'] == 1 else 'them'}."
    attacker = n.enemy(cause["name"]) if cause and cause["name"] else "the enemy"
    if e["by"] == "elder_signs":
        signs = plural(e["n"], "elder sign")
        cancel = "cancels" if e["n"] == 1 else "cancel"
        roll = "the roll against the flames" if cause and cause["kind"] == "fire" else f"{possessive(attacker)} attack"
        return "good", f"{whose}: {signs} {cancel} {plural(e['n'], 'success')} of {roll}."
    return "good", f"{whose} {verb} {plural(e['n'], 'wound')} from {attacker}."


def _stress(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"], e["name"])
    found = n.invs.get(e["inv"])
    cap_ = f" of {found['stress_max']}" if found is not None else ""
    return "harm", f"{who} takes {plural(e['n'], 'stress')}{n.cause(e['cause'])} (stress {e['stress']}{cap_})."


def _sanity(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"], e["name"])
    return "harm", f"{who} loses {e['n']} sanity{n.cause(e['cause'])} ({e['sanity']} of {e['skull']}, the skull)."


def _threshold(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"], e["name"])
    ignored = f" (the other {e['ignored']} sanity lost is ignored)" if e["ignored"] else ""
    return "good", f"{who} stops on an insanity threshold, space {e['at']} of the sanity track{ignored}: a skill levels up."


def _healed_parts(wounds: int, stress: int) -> str:
    return and_list(([plural(wounds, "wound")] if wounds else []) + ([plural(stress, "stress")] if stress else [])) or "nothing"


def _fire_caught(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"], e["name"])
    stand = f" ({plural(e['stand_ins'], 'wound token')} standing in for Fire)" if e["stand_ins"] else ""
    total = e["tokens"] + e["stand_ins"]
    return "harm", f"{who} catches fire{n.cause(e['cause'])}: {plural(total, 'Fire token')}{stand}."


def _enemy_wounded(e: Any, n: Names) -> Told:
    shown = min(e["wounds"], e["health"])  # wounds past its health are lost (a Stage's excess is told when it falls)
    return "good", f"{cap(n.enemy(e['name']))} takes {plural(e['n'], 'wound')} ({shown} of {e['health']})."


def _stage_defeated(e: Any, n: Names) -> Told:
    lost = f"; {plural(e['excess'], 'excess wound')} {'is' if e['excess'] == 1 else 'are'} lost" if e["excess"] > 0 else ""
    return "good", f"{possessive(e['elder'])} {n.stage(e['stage'], e['stages'])}, {e['name']}, is defeated{lost}."


def _stage_revealed(e: Any, n: Names) -> Told:
    text = e["text"].removeprefix("Revealed: ").strip()
    text = (" " + cap(text)) if text else ""
    return "story", f"{possessive(e['elder'])} {n.stage(e['stage'], e['stages'])} comes into play: {e['name']}.{text}"


def _ability(e: Any, n: Names) -> Told:
    enemy = cap(n.enemy(e["name"]))
    if e["ability"] == "regenerate":
        return "enemy", f"{enemy} regenerates: {e['text']}"
    target = f" against {n.inv(e['inv'])}" if e["inv"] is not None else ""
    return "enemy", f"{enemy} rolled {plural(e['n'], 'elder sign')}{target}: {e['text']}"


def _card_lost(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"], e["name"])
    if e["reason"] == "wounds":
        return "harm", f"{e['card']} is too badly hurt to go on and leaves {who}."
    if e["reason"] == "death":
        return "harm", f"{e['card']} is lost with {who}."
    return "harm", f"{who} loses {e['card']}{n.cause(e['cause'])}."


def _space_tokens(e: Any, n: Names) -> Told:
    where = e["space_name"] or n.space(e["space"])
    change = e["change"]
    why = n.cause(e["cause"])
    what = a(e["token_name"]) if abs(change) == 1 else plural(abs(change), e["token_name"])
    if change > 0:
        return "story", f"{cap(what)} {'is' if change == 1 else 'are'} placed on {where}{why} ({e['n']} there now)."
    left = f"{e['n']} left" if e["n"] else "none left"
    return "story", f"{cap(what)} {'is' if change == -1 else 'are'} taken off {where}{why} ({left})."


def _tokens(e: Any, n: Names) -> Told:
    who = n.inv(e["inv"], e["name"])
    change = e["change"]
    verb = "gains" if change > 0 else "gives up"
    what = a(e["token_name"]) if abs(change) == 1 else plural(abs(change), e["token_name"])
    return "story", f"{who} {verb} {what}{n.cause(e['cause'])} (holds {e['n']})."


def _advanced(e: Any, n: Names) -> Told:
    mover = "the Progression token" if e["token"] == "progression" else e["name"]
    return "story", (f"{plural(e['symbols'], 'summoning symbol')} in the Mythos discard: {mover} advances to space "
                     f"{e['track']} of {e['last']} on the summoning track, and the discard is shuffled back.")


def _summoned_elder(e: Any, n: Names) -> Told:
    if e["why"] == "ritual":
        return "end", f"{e['name']} is summoned because the ritual was disrupted this turn!"
    return "end", f"{e['name']} is summoned: it reached space {e['track']}, the first red space of the summoning track!"


def _discovery(e: Any, n: Names) -> Told:
    halves = [f"{h['kind'].title()}: {h['name']}" for h in (e.get("left"), e.get("right")) if h]
    tail = f" ({' / '.join(halves)})" if halves else ""
    return "story", f"Discovery card for {n.inv(e['inv'])}: {e['card']}{tail}. {e['text']}".rstrip()


def _game_lost(e: Any, n: Names) -> Told:
    return "end", f"The game is lost: {e['text']}."


_Teller = Callable[[Any, Names], Told]

TELLERS: dict[str, _Teller] = {
    "turn_started": lambda e, n: ("turn", f"Turn {e['turn']}: {n.inv(e['inv'], e['name'])} takes the turn."),
    "turn_ended": lambda e, n: ("info", f"{possessive(n.inv(e['inv'], e['name']))} turn ends."),
    "action_taken": lambda e, n: ("info", f"{n.inv(e['inv'])} takes the action {e.get('episode_action') or ACTIONS.get(e['action'], e['action'])} "
                                          f"({plural(e['left'], 'action')} left)."),
    "actions_ended": lambda e, n: ("info", f"{n.inv(e['inv'])} ends the actions" + (f", leaving {plural(e['unused'], 'action')} unused." if e["unused"] else ".")),
    "run_stopped": lambda e, n: ("move", f"{n.inv(e['inv'])} stops running after {plural(e['moved'], 'space')}."),
    "moved": lambda e, n: ("move", f"{n.inv(e['inv'], e['name'])} moves to {e['space'] or n.space(e['to'])}."),
    "followed": lambda e, n: ("enemy", f"{cap(n.enemy(e['name']))} follows {n.inv(e['inv'])} to {n.space(e['to'])}."),
    "investigated": lambda e, n: ("good", f"No enemy at {n.space(e['space'])}: {n.inv(e['inv'], e['name'])} investigates."),
    "dice_rolled": _rolled,
    "die_rerolled": _rerolled,
    "dice_kept": _kept,
    "stress_taken": _stress,
    "wounded": _wounded,
    "harm_ignored": _ignored,
    "sanity_lost": _sanity,
    "threshold_reached": _threshold,
    "skill_leveled": lambda e, n: ("good", f"{n.inv(e['inv'], e['name'])} raises {e['skill_name']} to level {e['level']}."),
    "bonus_die_gained": lambda e, n: ("good", f"{n.inv(e['inv'], e['name'])} gains a bonus die for good (now {plural(e['bonus'], 'bonus die')})."),
    "rested": lambda e, n: ("good", f"{n.inv(e['inv'], e['name'])} rests and heals {_healed_parts(e['wounds'], e['stress'])}."),
    "fire_caught": _fire_caught,
    "burning": lambda e, n: ("harm", f"{n.inv(e['inv'], e['name'])} is burning: {plural(e['tokens'], 'Fire token')} "
                                     f"{'rolls' if e['tokens'] == 1 else 'roll'} against them."),
    "fire_out": lambda e, n: ("good", f"The flames on {n.inv(e['inv'], e['name'])} go out."),
    "attack_declared": lambda e, n: ("enemy", f"{n.inv(e['inv'], e['name'])} attacks {and_list(n.enemy(t) for t in e['target_names']) or 'nothing'}."),
    "attack_missed": lambda e, n: ("info", f"{possessive(n.inv(e['inv']))} attack does not wound {n.enemy(e['name'])}."),
    "enemy_attacks": lambda e, n: ("enemy", f"{cap(n.enemy(e['name']))} attacks {n.inv(e['inv'], e['target'])}."),
    "enemy_wounded": _enemy_wounded,
    "enemy_killed": lambda e, n: ("good", f"{cap(n.enemy(e['name']))} is killed at {e['space_name']}."),
    "stage_defeated": _stage_defeated,
    "stage_revealed": _stage_revealed,
    "investigator_died": lambda e, n: ("end", f"{n.inv(e['inv'], e['name'])} " + ("is consumed by madness" if e["cause"] == "madness" else "is killed")
                                              + f" at {n.space(e['space'])}."),
    "game_lost": _game_lost,
    "game_won": lambda e, n: ("end", f"The investigators win: {e['name']} is put down."),
    "mythos_drawn": lambda e, n: ("story", f"Mythos card for {n.inv(e['inv'])}: {e['card']}" + (" (it bears a summoning symbol)" if e["summoning"] else "")
                                           + f". {e['text']}".rstrip()),
    "mythos_shuffled": lambda e, n: ("info", f"The Mythos discard is shuffled back into the deck ({plural(e['deck'], 'card')})."),
    "mythos_kept": lambda e, n: ("story", f"{n.inv(e['inv'], e['name'])} keeps the Mythos card {e['card']}: it strikes again every turn."),
    "mythos_recurs": lambda e, n: ("story", f"The kept Mythos card {e['card']} strikes {n.inv(e['inv'], e['name'])} again."),
    "discovery_drawn": _discovery,
    "discovery_empty": lambda e, n: ("info", "The Discovery deck is empty: there is nothing left to find."),
    "chose": lambda e, n: ("info", f"{n.inv(e['inv'])} chooses ({n.source(e['cause'])}): {e['label']}."),
    "claimed": lambda e, n: ("good", f"{n.inv(e['inv'], e['name'])} takes the {e['kind'].title()} {e['card']} ({e['source']}): {e['text']}".rstrip()),
    "card_lost": _card_lost,
    "traded": lambda e, n: ("info", f"{e['giver']} gives {e['card']} to {e['name']}."),
    "trade_ended": lambda e, n: ("info", f"{n.inv(e['inv'])} trades nothing, and the action is not spent." if e["refunded"]
                                 else f"{n.inv(e['inv'])} is done trading ({plural(e['given'], 'card')} given)."),
    "companion_wounded": lambda e, n: ("harm", f"{e['card']} takes a wound for {n.inv(e['inv'], e['name'])}"
                                               + (f" ({e['wounds']} of {e['health']})." if e["health"] else ".")),
    "healed": lambda e, n: ("good", f"{n.inv(e['inv'], e['name'])} heals {_healed_parts(e['wounds'], e['stress'])}{n.cause(e['cause'])}."),
    "enemy_moved": lambda e, n: ("enemy", f"{cap(n.enemy(e['name']))} moves to {e['space_name']}{n.cause(e['cause'])}."),
    "summoned": lambda e, n: ("enemy", f"{cap(a(e['name']))} arrives at {e['space_name']}{n.cause(e['cause'])}."),
    "summon_skipped": lambda e, n: ("info", f"No {e['name']} is left to summon, so none arrives at {e['space_name']}{n.cause(e['cause'])}."),
    "fire_spread": lambda e, n: ("harm", f"Fire spreads in {e['space_name']}{n.cause(e['cause'])}: "
                                         f"{plural(e['n'], 'Fire token')} more, {e['total']} there now."),
    "fire_doused": lambda e, n: ("good", f"{n.inv(e['inv'])} puts out {plural(e['n'], 'Fire token')} in {e['space_name']}."),
    "check_result": lambda e, n: ("good" if e["passed"] else "harm",
                                  f"{n.inv(e['inv'], e['name'])} {'passes' if e['passed'] else 'fails'} the roll for {n.source(e['cause'])}: "
                                  f"{plural(e['successes'], 'success')}, {e['need']} needed."),
    "space_tokens_changed": _space_tokens,
    "tokens_changed": _tokens,
    "ritual_progress": lambda e, n: ("good", f"The ritual weakens{n.cause(e['cause'])}: {e['name']}, {e['progress']} of {e['needed']}."),
    "ritual_disrupted": lambda e, n: ("good", f"The ritual is disrupted ({e['name']})! {n.elder} can now be wounded."),
    "insanity_activated": lambda e, n: ("harm", f"{possessive(n.inv(e['inv'], e['name']))} insanity takes hold: {e['card']}. {e['text']}".rstrip()),
    "elder_advanced": _advanced,
    "elder_summoned": _summoned_elder,
    "elder_placed": lambda e, n: ("enemy", f"{e['name']} appears at {e['space_name']}{n.cause(e['cause'])}."),
    "elder_moved": lambda e, n: ("enemy", f"{e['name']} moves to {e['space_name']}{n.cause(e['cause'])}."),
    "ability_used": _ability,
    "enemy_regenerated": lambda e, n: ("enemy", f"{cap(n.enemy(e['name']))} heals {plural(e['wounds'], 'wound')}."),
}


def tell(ev: Any, view: MainView) -> Told | None:
    """(kind, sentence) for one checked event of the main game; None for a type it does not tell."""
    teller = TELLERS.get(ev["type"])
    return teller(ev, Names(view)) if teller is not None else None
