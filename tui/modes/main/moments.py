"""The main game's big moments (`tui.moments`): each card drawn or set off and each Elder One moment.

A Mythos, Discovery or insanity card, a Stage coming into play or falling, the Elder One advancing
or summoned, the ritual disrupted, a death and the end begin a moment; what a card did (every event
whose cause names it, and the summons and placements that follow it) is told under its title, in
the Log's own words without the "from the Mythos card ..." the title already says.
"""

from __future__ import annotations

from typing import Any

from cthulhu.core.main.view import MainView

from ...english import possessive
from .. import Beat
from .narrate import TELLERS, Names

# The causes that are cards or the Story Board's own text: their effects are told under their title.
CARD_CAUSES = {"mythos", "discovery", "stage", "insanity", "episode"}
# Events told with the cause at the end of the sentence ("... from the Mythos card X"): under the
# card's title it goes. The others (a choice, a roll's result) say their cause inside the sentence.
CAUSE_SUFFIX = {
    "wounded", "stress_taken", "sanity_lost", "fire_caught", "card_lost", "space_tokens_changed", "tokens_changed",
    "healed", "enemy_moved", "summoned", "summon_skipped", "fire_spread", "ritual_progress", "elder_placed", "elder_moved",
}
# What a card's lines end with: its summons and the Elder One set on the board belong to the card open.
FOLLOW_THE_CARD = {"summoned", "summon_skipped", "elder_placed", "elder_moved", "enemy_moved"}
# The turn goes on to something else: the card begun last is done.
MOVE_ON = {"turn_started", "turn_ended", "investigated", "attack_declared", "enemy_attacks", "action_taken", "dice_rolled"}


def _told(ev: Any, n: Names, without_cause: bool = False) -> str:
    if without_cause and ev["type"] in CAUSE_SUFFIX:
        ev = {**ev, "cause": None}
    return TELLERS[ev["type"]](ev, n)[1]


def _title(cause: Any, n: Names) -> str:
    kind, name = cause["kind"], cause["name"]
    return {"mythos": f"Mythos card: {name}", "discovery": f"Discovery card: {name}", "insanity": f"Insanity: {name}",
            "stage": f"{possessive(n.elder)} Stage card: {name}", "episode": f"{n.elder} draws nearer: {name}"}[kind]


def beat(ev: Any, view: MainView) -> Beat | None:
    """What one checked event of the main game is to the moment card."""
    t = ev["type"]
    n = Names(view)
    if t == "mythos_drawn":
        return Beat("begin", f"mythos:{ev['card']}", f"Mythos card: {ev['card']}", ev["text"], quote=True)
    if t == "mythos_recurs":
        return Beat("begin", f"mythos:{ev['card']}", f"Kept Mythos card: {ev['card']}", _told(ev, n))
    if t == "discovery_drawn":
        return Beat("begin", f"discovery:{ev['card']}", f"Discovery card: {ev['card']}", ev["text"], quote=True)
    if t == "insanity_activated":
        return Beat("begin", f"insanity:{ev['card']}", f"{possessive(n.inv(ev['inv'], ev['name']))} insanity: {ev['card']}",
                    ev["text"], quote=True)
    if t == "stage_revealed":
        text = ev["text"].removeprefix("Revealed: ").strip()
        return Beat("begin", f"stage:{ev['name']}", f"{possessive(ev['elder'])} {n.stage(ev['stage'], ev['stages'])}: {ev['name']}",
                    text, quote=True)
    if t == "stage_defeated":
        return Beat("begin", f"fallen:{ev['name']}", f"{possessive(ev['elder'])} {n.stage(ev['stage'], ev['stages'])} falls",
                    _told(ev, n))
    if t == "elder_advanced":
        mover = "The Progression token" if ev["token"] == "progression" else ev["name"]
        return Beat("begin", "elder", f"{mover} advances: space {ev['track']} of {ev['last']}", _told(ev, n))
    if t == "elder_summoned":
        return Beat("begin", "elder", f"{ev['name']} is summoned!", _told(ev, n))
    if t == "ritual_disrupted":
        return Beat("begin", "ritual", "The ritual is disrupted!", _told(ev, n))
    if t == "investigator_died":
        return Beat("begin", f"death:{ev['inv']}", f"{n.inv(ev['inv'], ev['name'])} is dead", _told(ev, n))
    if t in ("game_won", "game_lost"):
        return Beat("begin", "end", "The investigators win!" if t == "game_won" else "The game is lost", _told(ev, n))
    if t == "chose" and ev["cause"] and ev["cause"]["kind"] in CARD_CAUSES:
        cause = ev["cause"]
        return Beat("add", f"{cause['kind']}:{cause['name']}", _title(cause, n), f"{n.inv(ev['inv'])} chooses: {ev['label']}.")
    if t == "claimed":
        return Beat("add", f"discovery:{ev['source']}", f"Discovery card: {ev['source']}", _told(ev, n))
    cause = ev.get("cause")
    if cause and cause["kind"] in CARD_CAUSES and cause["name"]:
        return Beat("add", f"{cause['kind']}:{cause['name']}", _title(cause, n), _told(ev, n, without_cause=True))
    if t in FOLLOW_THE_CARD:
        return Beat("add", "", "", _told(ev, n))
    if t in MOVE_ON:
        return Beat("end")
    return None
