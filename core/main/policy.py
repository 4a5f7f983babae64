"""The search bot's own rules of thumb for the main game: the heuristic bot, with rerolls worked out.

The search bot plays this policy where it does not search (mid-card and mid-fight prompts,
whose engine agenda a view does not show) and in every rollout. It is the heuristic bot
(`heuristic.py`, kept as it is: its games are a determinism referee) except at the dice:
the heuristic rerolls any die that does not help while stress lasts, even when the roll
already has what it needs and even when that spends the stress the next roll will want.
This one rerolls the die whose exact expected worth (every face of that die, from the
content, with the symbol changes in force) beats keeping by more than the stress costs:
a check is worth passing, an attack its wounds (and the kill), an attack against you the
wounds it does not do, and every tentacle costs sanity.
"""

from __future__ import annotations

from typing import Any

from .content import MainContent
from .heuristic import HeuristicBot, prompt_of
from .odds import face_value, symbols
from .view import InvestigatorView, MainView

TENTACLE = 0.35  # a point of sanity, in passed checks (twice that near the skull)
WOUND = 0.6  # a wound an enemy's or the Fire's roll does
HIT = 0.5  # a wound on the enemy attacked (and a kill is worth 1 more)
STRESS = 0.12  # a point of stress spent on a reroll ...
LAST_STRESS = 0.3  # ... and the last point before the maximum, which ends the rerolls


Counts = tuple[int, int]  # (hits, tentacles) of one face on one kind of roll


FaceTable = dict[str, tuple[list[Counts], dict[str, Counts]]]
# Keyed by id(content); each entry keeps its content alive so the id is never reused (as `mods` does).
_TABLES: dict[tuple[Any, ...], tuple[MainContent, FaceTable]] = {}
_FRENZIED: dict[int, tuple[MainContent, frozenset[str]]] = {}


def _faces(c: MainContent, purpose: str, mods: tuple[tuple[str, Any], ...], frenzy: bool) -> FaceTable:
    """Per die kind: what each face counts on this kind of roll, in face order and by face."""
    key = (id(c), purpose, mods, frenzy)
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is c:
        return hit[1]
    given = dict(mods)
    out: FaceTable = {}
    for kind, faces in (("standard", c.dice.standard), ("bonus", c.dice.bonus)):
        counts = [(face_value(f, purpose, given, frenzy), symbols(f).count("tentacle")) for f in faces]
        out[kind] = (counts, dict(zip(faces, counts)))
    if len(_TABLES) > 1024:
        _TABLES.clear()
    _TABLES[key] = (c, out)
    return out


def _frenzied(c: MainContent) -> frozenset[str]:
    """The names of the enemies whose elder signs are hits too."""
    hit = _FRENZIED.get(id(c))
    if hit is None or hit[0] is not c:
        hit = _FRENZIED[id(c)] = (c, frozenset(e.name for e in c.enemies.values() if e.ability is not None and e.ability.kind == "frenzy"))
    return hit[1]


class SearchPolicy(HeuristicBot):
    def __init__(self, seed: int, content: MainContent) -> None:
        super().__init__(seed)
        self.c = content

    def on_reroll(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        roll = view["last_roll"]
        if roll is None:
            return None
        roller = view["investigators"][roll["inv"]]
        mods = roller["mods"]  # skills at their held levels and the held cards' own
        purpose = roll["purpose"]
        frenzy = purpose == "defend" and roll["enemy"] in _frenzied(self.c)
        table = _faces(self.c, purpose, tuple(sorted(mods.items())), frenzy)
        counted = [table[kind][1][face] for kind, face in roll["dice"]]
        hits, tentacles = sum(s for s, _ in counted), sum(t for _, t in counted)
        calm = int(mods.get("calm", 0))
        armor = int(mods.get("armor", 0)) if purpose == "defend" else 0
        tentacle = TENTACLE * (2 if roller["skull"] - roller["sanity"] <= 3 else 1)
        left = self._health_left(view, roller, roll["target_names"]) if purpose == "attack" else 0

        def worth(s: int, t: int) -> float:
            cost = tentacle * max(0, t - calm)
            if purpose == "check":
                return float(s >= (roll["need"] or 0)) - cost
            if purpose == "attack":
                return HIT * min(s, left) + float(s >= left) - cost
            return -WOUND * max(0, s - armor) - cost

        now = worth(hits, tentacles)
        best: dict[str, Any] | None = None
        gain = 0.0
        for option in prompt_of(view)["options"]:  # the same options, in order, with their data
            o = option["command"]
            if o["kind"] != "reroll":
                continue
            n = o["die"]
            s0, t0 = counted[n]
            die = table[roll["dice"][n][0]][0]
            expect = sum(worth(hits - s0 + s, tentacles - t0 + t) for s, t in die) / len(die)
            price = 0.0
            if option["data"]["stress"]:
                price = STRESS if roller["stress"] < roller["stress_max"] - 1 else LAST_STRESS
            if expect - now - price > gain + 1e-9:
                best, gain = o, expect - now - price
        return best or {"kind": "keep"}

    @staticmethod
    def _health_left(view: MainView, roller: InvestigatorView, names: list[str]) -> int:
        left = 0
        wanted = list(names)
        for enemy in view["enemies"]:
            if enemy["space"] == roller["space"] and enemy["name"] in wanted:
                wanted.remove(enemy["name"])
                left += max(0, enemy["health"] - enemy["wounds"])
        return left or 99
