"""Shamblers mode events told as sentences for the Log pane.

Event names and fields are `core/shamblers/rules.py`'s. Names of Player Mats,
Town Cards and tentacles come from the view; every color is also said as its
letter (R, B, G, C) so the log reads the same without color.
"""

from __future__ import annotations

from typing import Any, Callable

CHAOS = "chaos"


class ShamblerNames:
    """Display names from a Shamblers view, falling back to numbers and ids."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.mats = [str(m.get("name", f"Player {n + 1}")) for n, m in enumerate(view.get("mats") or [])]
        self.towns = [str(t.get("name", t.get("id", n))) for n, t in enumerate(view.get("towns") or [])]
        self.tentacles = {str(c["id"]): str(c.get("tentacle", c["id"])) for c in view.get("colors") or []}
        self.tracks = {str(c["id"]): str(c.get("track", c["id"])) for c in view.get("colors") or []}
        self.tentacles[CHAOS] = "Chaos"
        self.lose = (view.get("goals") or {}).get("loss_mat_tentacles")
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


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def dice_text(dice: list[Any]) -> str:
    """'[1] [0] [2]': tentacles shown on each Cthulhu Die."""
    return " ".join(f"[{int(d)}]" for d in dice) or "no dice"


def _on_level(e: dict[str, Any]) -> str:
    level = e.get("difficulty")
    return f" on {level}" if level else ""


def _drawn(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    drawn = list(e.get("tentacles") or [])
    if not drawn:
        return "info", f"No tentacle is left to draw onto {n.town(e.get('town'))}."
    what = ", ".join(n.tentacle(c) for c in drawn)
    return "story", f"{plural(len(drawn), 'tentacle')} drawn from the bag onto {n.town(e.get('town'))}: {what}."


def _gathered(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    who, color, town = n.mat(e.get("mat")), str(e.get("color")), n.town(e.get("town"))
    track = n.tracks.get(color, color)
    if e.get("to") == "track":
        return "good", f"{who} gathers a {n.tentacle(color)} from {town} onto the {track}."
    where = "the general supply" if e.get("to") == "supply" else "the Discard Mat"
    return "harm", f"{who}'s {track} is full: the {n.tentacle(color)} from {town} goes to {where}."


def _delirium(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    why = " (a full track)" if e.get("reason") == "track_full" else ""
    return "harm", f"{n.mat(e.get('mat'))} gains 1 Delirium{why}: {e.get('delirium')} of {e.get('capacity')}."


def _rolled(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    dice = list(e.get("dice") or [])
    cost = int(e.get("cost", 0))
    sentence = (
        f"{n.mat(e.get('mat'))} rolls {len(dice)} {'Cthulhu Die' if len(dice) == 1 else 'Cthulhu Dice'} "
        f"on {n.town(e.get('town'))}: {dice_text(dice)} (tentacles per die); "
    )
    if cost == 0:
        return "dice", sentence + "all zero, so the banish is free."
    return "dice", sentence + f"the highest die sets the cost at {plural(cost, 'tentacle')}."


def _paid(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    color = str(e.get("color"))
    pay = e.get("payment") or {}
    madness, chaos = int(pay.get("madness", 0)), int(pay.get("chaos", 0))
    cost = int(e.get("cost", 0))
    parts = ([f"{madness} {n.tentacles.get(color, color)} (to the Discard Mat)"] if madness else []) + (
        [f"{chaos} Chaos (to the general supply)"] if chaos else []
    )
    how = "free, all dice zero" if cost == 0 else f"cost {cost}, paid with {' + '.join(parts)}"
    moved = int(e.get("mat_tentacles_discarded", 0))
    rage = int(e.get("rage_at_start", 0))
    if moved:
        verb = "leaves" if moved == 1 else "leave"
        bonus = f"{plural(moved, f'{color} tentacle')} {verb} the Shambler Mat for the Discard Mat"
    else:
        bonus = f"no {color} tentacle is on the Shambler Mat to discard"
    return "good", (
        f"{n.mat(e.get('mat'))} banishes a {n.shambler(color)} from {n.town(e.get('town'))}: "
        f"dice {dice_text(list(e.get('dice') or []))}, {how}. "
        f"With {rage} Rage held at the start, {bonus}."
    )


def _lost(e: dict[str, Any], n: ShamblerNames) -> tuple[str, str]:
    cause = e.get("cause")
    if cause == "shambler_mat_full":
        why = f"the Shambler Mat holds {e.get('count')} {e.get('color')} tentacles"
    elif cause == "delirium":
        why = f"{n.mat(e.get('mat'))}'s Delirium track is full"
    elif cause == "shambler_track_empty":
        why = f"a Shambler must rise on {n.town(e.get('town'))} but the Shambler Track is empty"
    elif cause == "turn_limit":
        why = f"the turn limit of {e.get('limit')} is reached"
    else:
        why = str(cause or "it is over").replace("_", " ")
    return "end", f"The game is lost on turn {e.get('turn')}: {why}."


_Teller = Callable[[dict[str, Any], ShamblerNames], tuple[str, str]]

TELLERS: dict[str, _Teller] = {
    "game_started": lambda e, n: ("story", f"A game of Shamblers{_on_level(e)} begins: {plural(len(e.get('towns') or []), 'Town Card')} in a ring, "
                                           f"{e.get('shamblers')} Shamblers on the Shambler Track, {e.get('bag')} tentacles in the bag."),
    "turn_started": lambda e, n: ("turn", f"Turn {e.get('turn')}: {n.mat(e.get('mat'))} begins."),
    "wheel_turned": lambda e, n: ("story", f"The Wheel turns to {n.town(e.get('town'))}."),
    "tentacles_drawn": _drawn,
    "bag_refilled": lambda e, n: ("info", f"The bag is empty: the Discard Mat's {plural(int(e.get('count', 0)), 'tentacle')} are shuffled back into it."),
    "bag_empty": lambda e, n: ("info", f"The bag and the Discard Mat are both empty: nothing to draw onto {n.town(e.get('town'))}."),
    "shambler_placed": lambda e, n: ("enemy", f"A {n.shambler(e.get('color'))} rises on {n.town(e.get('town'))}, two steps clockwise of the Wheel; "
                                              f"{e.get('track_left')} left on the Shambler Track."),
    "moved": lambda e, n: ("move", f"{n.mat(e.get('mat'))} moves from {n.town(e.get('from'))} to {n.town(e.get('to'))}."),
    "gathered": _gathered,
    "delirium": _delirium,
    "dice_rolled": _rolled,
    "banish_failed": lambda e, n: ("harm", f"{n.mat(e.get('mat'))} cannot pay {plural(int(e.get('cost', 0)), 'tentacle')} in a Shambler's color "
                                           f"(nor with Chaos): no banish, nothing spent."),
    "banish_declined": lambda e, n: ("info", f"{n.mat(e.get('mat'))} chooses not to banish; nothing is spent."),
    "banished": _paid,
    "actions_ended": lambda e, n: ("info", f"{n.mat(e.get('mat'))} ends their actions"
                                           + (f" with {plural(int(e['skipped']), 'action')} unused." if e.get("skipped") else ".")),
    "fed": lambda e, n: ("harm", f"The Shamblers on {n.town(e.get('town'))} feed on a {n.tentacle(e.get('color'))}: "
                                 f"the Shambler Mat now holds {e.get('shambler_mat')} {e.get('color')}"
                                 + (f" ({n.lose} lose the game)." if n.lose else ".")),
    "game_won": lambda e, n: ("end", f"The game is won on turn {e.get('turn')}: enough Shamblers of every color are banished."),
    "game_lost": _lost,
}


def tell(ev: dict[str, Any], view: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, sentence), or None for an event this mode does not know (the caller falls back)."""
    teller = TELLERS.get(str(ev.get("type")))
    if teller is None:
        return None
    try:
        return teller(ev, ShamblerNames(view))
    except (TypeError, ValueError, KeyError):
        return None
