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
from .heuristic import HeuristicBot, json_key, prompt_of
from .odds import face_value, held_mods, symbols
from .view import InvestigatorView, MainView

TENTACLE = 0.35  # a point of sanity, in passed checks (twice that near the skull)
WOUND = 0.6  # a wound an enemy's or the Fire's roll does
HIT = 0.5  # a wound on the enemy attacked (and a kill is worth 1 more)
STRESS = 0.12  # a point of stress spent on a reroll ...
LAST_STRESS = 0.3  # ... and the last point before the maximum, which ends the rerolls


class SearchPolicy(HeuristicBot):
    def __init__(self, seed: int, content: MainContent) -> None:
        super().__init__(seed)
        self.c = content

    def on_reroll(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        roll = view["last_roll"]
        if roll is None:
            return None
        roller = view["investigators"][roll["inv"]]
        mods = held_mods(self.c, view, roller)
        purpose = roll["purpose"]
        frenzy = purpose == "defend" and any(
            e.name == roll["enemy"] and e.ability is not None and e.ability.kind == "frenzy" for e in self.c.enemies.values()
        )
        # What each face of each die counts on this roll: (hits, tentacles).
        table = {kind: [(face_value(f, purpose, mods, frenzy), symbols(f).count("tentacle")) for f in faces]
                 for kind, faces in (("standard", self.c.dice.standard), ("bonus", self.c.dice.bonus))}
        shown = {kind: dict(zip(faces, table[kind])) for kind, faces in (("standard", self.c.dice.standard), ("bonus", self.c.dice.bonus))}
        counted = [shown[kind][f] for kind, f in roll["dice"]]
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
        data = {json_key(o["command"]): o["data"] for o in prompt_of(view)["options"]}
        best: dict[str, Any] | None = None
        gain = 0.0
        for o in self.by_kind(options, "reroll"):
            n = o["die"]
            s0, t0 = counted[n]
            die = table[roll["dice"][n][0]]
            expect = sum(worth(hits - s0 + s, tentacles - t0 + t) for s, t in die) / len(die)
            price = 0.0
            if data[json_key(o)]["stress"]:
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
