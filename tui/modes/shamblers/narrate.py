"""Shamblers mode events told as sentences for the Log pane.

Event names and fields are `core/shamblers/rules.py`'s. Names of Player Mats,
Town Cards and tentacles come from the view; every color is also said as its
letter (R, B, G, C) so the log reads the same without color.
"""

from __future__ import annotations

from typing import Any, Callable

from cthulhu.core.shamblers.view import ShamblersView

from ...english import plural

CHAOS = "chaos"


class ShamblerNames:
    """Display names from a Shamblers view, falling back to numbers and ids."""

    def __init__(self, view: ShamblersView) -> None:
        self.mats = [m["name"] for m in view["mats"]]
        self.towns = [t["name"] for t in view["towns"]]
        self.tentacles = {c["id"]: c["tentacle"] for c in view["colors"]}
        self.tracks = {c["id"]: c["track"] for c in view["colors"]}
        self.tentacles[CHAOS] = "Chaos"
        self.lose = view["goals"]["loss_mat_tentacles"]
        self.tracks[CHAOS] = "Chaos Track"

    def mat(self, index: Any) -> str:
        if isinstance(index, int) and 0 <= index < len(self.mats):
            return self.mats[index]
        return f"Player {int(index) + 1}" if isinstance(index, int) else "Someone"

    def town(self, index: Any) -> str:
        if isinstance(index, int) and 0 <= index < len(self.towns):
            return self.towns[index]
        return f"Town Card {index}"

    def tentacle(self, color: Any) -> str:
        """'Rage Tentacle (R)'."""
        color = str(color)
        return f"{self.tentacles.get(color, color.title())} Tentacle ({letter(color)})"

    def shambler(self, color: Any) -> str:
        """'red Shambler (R)'."""
        return f"{color} Shambler ({letter(str(color))})"


def letter(color: str) -> str:
    return "C" if color == CHAOS else (color[:1].upper() or "?")


def dice_text(dice: list[Any]) -> str:
    """'[1] [0] [2]': tentacles shown on each Cthulhu Die."""
    return " ".join(f"[{int(d)}]" for d in dice) or "no dice"


def _drawn(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    drawn = list(e['tentacles'] or [])
    if not drawn:
        return "info", f"No tentacle is left to draw onto {n.town(e['town'])}."
    what = ", ".join(n.tentacle(c) for c in drawn)
    return "story", f"{plural(len(drawn), 'tentacle')} drawn from the bag onto {n.town(e['town'])}: {what}."


def _gathered(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    who, color, town = n.mat(e['mat']), str(e['color']), n.town(e['town'])
    track = n.tracks.get(color, color)
    if e['to'] == "track":
        return "good", f"{who} gathers a {n.tentacle(color)} from {town} onto the {track}."
    return "harm", f"{who}'s {track} is full: the {n.tentacle(color)} from {town} goes to the Discard Mat."


def _delirium(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    why = " (a full track)" if e['reason'] == "track_full" else ""
    return "harm", f"{n.mat(e['mat'])} gains 1 Delirium{why}: {e['delirium']} of {e['capacity']}."


def _rolled(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    dice = list(e['dice'] or [])
    cost = e['cost']
    sentence = (
        f"{n.mat(e['mat'])} rolls {len(dice)} {'Cthulhu Die' if len(dice) == 1 else 'Cthulhu Dice'} "
        f"on {n.town(e['town'])}: {dice_text(dice)} (tentacles per die); "
    )
    if cost == 0:
        return "dice", sentence + "all zero, so the banish is free."
    return "dice", sentence + f"the highest die sets the cost at {plural(cost, 'tentacle')}."


def _paid(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    color = str(e['color'])
    pay = e['payment'] or {}
    madness, chaos = int(pay.get("madness", 0)), int(pay.get("chaos", 0))
    cost = e['cost']
    parts = ([f"{madness} {n.tentacles.get(color, color)} to the Discard Mat"] if madness else []) + (
        [f"{chaos} Chaos to the general supply"] if chaos else []
    )
    how = "for free (every die showed zero)" if cost == 0 else f"paying {' and '.join(parts)}"
    moved = e['mat_tentacles_discarded']
    rage = e['rage_at_start']
    if moved:
        verb = "leaves" if moved == 1 else "leave"
        bonus = f"{plural(moved, f'{color} tentacle')} {verb} the Shambler Mat for the Discard Mat"
    else:
        bonus = f"no {color} tentacle is on the Shambler Mat to take off"
    return "good", (
        f"{n.mat(e['mat'])} banishes a {n.shambler(color)} from {n.town(e['town'])} {how}. "
        f"With {plural(rage, 'Rage Tentacle')} held when the banish began, {bonus}."
    )


def _lost(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    cause = e["cause"]
    if cause == "shambler_mat_full":
        why = f"the Shambler Mat holds {e.get('count')} {e.get('color')} tentacles"
    elif cause == "delirium":
        why = f"{n.mat(e.get('mat'))}'s Delirium track is full"
    elif cause == "shambler_track_empty":
        why = f"a Shambler must rise on {n.town(e.get('town'))} but the Shambler Track is empty"
    else:
        why = str(cause or "it is over").replace("_", " ")
    return "end", f"The game is lost on turn {e['turn']}: {why}."


_Teller = Callable[[Any, ShamblerNames], tuple[str, str]]

TELLERS: dict[str, _Teller] = {
    "game_started": lambda e, n: ("story", f"A game of Shamblers on {e['difficulty']} begins: {plural(len(e['towns'] or []), 'Town Card')} in a ring, "
                                           f"{e['shamblers']} Shamblers on the Shambler Track, {e['bag']} tentacles in the bag."),
    "turn_started": lambda e, n: ("turn", f"Turn {e['turn']}: {n.mat(e['mat'])} takes the turn."),
    "wheel_turned": lambda e, n: ("story", f"The Wheel turns to {n.town(e['town'])}."),
    "tentacles_drawn": _drawn,
    "bag_refilled": lambda e, n: ("info", f"The bag is empty: the Discard Mat's {plural(e['count'], 'tentacle')} "
                                          f"{'is' if e['count'] == 1 else 'are'} shuffled back into it."),
    "bag_empty": lambda e, n: ("info", f"The bag and the Discard Mat are both empty: nothing to draw onto {n.town(e['town'])}."),
    "shambler_placed": lambda e, n: ("enemy", f"A {n.shambler(e['color'])} rises on {n.town(e['town'])}, two steps clockwise of the Wheel; "
                                              f"{e['track_left']} left on the Shambler Track."),
    "moved": lambda e, n: ("move", f"{n.mat(e['mat'])} moves from {n.town(e['from'])} to {n.town(e['to'])}."),
    "gathered": _gathered,
    "delirium": _delirium,
    "dice_rolled": _rolled,
    "banish_failed": lambda e, n: ("harm", f"{n.mat(e['mat'])} cannot pay {plural(e['cost'], 'tentacle')} in a Shambler's color "
                                           f"(nor with Chaos): no banish, nothing spent."),
    "banish_declined": lambda e, n: ("info", f"{n.mat(e['mat'])} chooses not to banish; nothing is spent."),
    "banished": _paid,
    "actions_ended": lambda e, n: ("info", f"{n.mat(e['mat'])} ends their actions"
                                           + (f" with {plural(e['skipped'], 'action')} unused." if e['skipped'] else ".")),
    "fed": lambda e, n: ("harm", f"The Shamblers on {n.town(e['town'])} feed on a {n.tentacle(e['color'])}: "
                                 f"the Shambler Mat now holds {plural(e['shambler_mat'], e['color'] + ' tentacle')}"
                                 + (f" ({n.lose} of one color lose the game)." if n.lose else ".")),
    "game_won": lambda e, n: ("end", f"The game is won on turn {e['turn']}: enough Shamblers of every color are banished."),
    "game_lost": _lost,
}


def tell(ev: Any, view: ShamblersView) -> tuple[str, str] | None:
    """(kind, sentence) for one checked Shamblers event; None for a type it does not tell."""
    teller = TELLERS.get(ev["type"])
    return teller(ev, ShamblerNames(view)) if teller is not None else None
