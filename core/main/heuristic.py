"""A heuristic bot for the main game that reads only its seat's view.

It attacks what it can kill (and the Elder One once the ritual is broken),
rests when hurt in a safe space, walks to the episode's ritual work and does
it, banks a point of stress for rerolls, and otherwise keeps away from enemies.
Reading the view alone makes it usable by network peers as well as in the host.
"""

from __future__ import annotations

from typing import Any

from ..basebots import ViewBot
from ..command import PromptWire
from .view import EnemyView, InvestigatorView, MainView
from ..rng import Rng
from .board import distances

def prompt_of(view: MainView) -> PromptWire:
    prompt = view["prompt"]
    if prompt is None:
        raise ValueError("nothing to decide in this view")
    return prompt


class HeuristicBot(ViewBot):
    def __init__(self, seed: int) -> None:
        self.rng = Rng(seed)
        # Distances to a space, by map: (the map's adjacency, the target) -> distances. The map of a
        # game never changes, so each is worked out once (the adjacency is kept, so its id stays its own).
        self._distances: dict[tuple[int, str], tuple[dict[str, list[str]], dict[str, int]]] = {}

    def distances(self, adj: dict[str, list[str]], target: str) -> dict[str, int]:
        hit = self._distances.get((id(adj), target))
        if hit is None or hit[0] is not adj:
            if len(self._distances) > 4096:
                self._distances.clear()
            hit = self._distances[(id(adj), target)] = (adj, distances(adj, target))
        return hit[1]

    # ------------------------------------------------------------------ reading the table

    def choose_view(self, view: MainView) -> dict[str, Any]:
        prompt = prompt_of(view)
        options = [o["command"] for o in prompt["options"]]
        actor = prompt["actor"]
        me = view["investigators"][actor] if actor is not None else None
        choice = self.on(prompt["kind"], view, me, options) if me is not None else None
        return choice if choice is not None else options[0]

    def on(self, kind: str, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The pick of this bot's method for a prompt of `kind` (None: no method or no opinion, so the first option)."""
        match kind:
            case "action":
                return self.on_action(view, me, options)
            case "run":
                return self.on_run(view, me, options)
            case "reroll":
                return self.on_reroll(view, me, options)
            case "assign_hit":
                return self.on_assign_hit(view, me, options)
            case "rest":
                return self.on_rest(view, me, options)
            case "wound_to":
                return self.on_wound_to(view, me, options)
            case "choose":
                return self.on_choose(view, me, options)
            case "trade":
                return self.on_trade(view, me, options)
        return None

    @staticmethod
    def by_kind(options: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
        return [o for o in options if o["kind"] == kind]

    @staticmethod
    def enemies_at(view: MainView, space: str) -> list[EnemyView]:
        return [e for e in view["enemies"] if e["space"] == space]

    def goals(self, view: MainView, me: InvestigatorView) -> set[str]:
        """Spaces where ritual work can be done (or the Elder One, once it can be hurt)."""
        if view["ritual"]["disrupted"]:
            return {e["space"] for e in view["enemies"] if e["kind"] == "elder_one"}
        out: set[str] = set()
        spaces = [sp["id"] for t in view["episode"]["tiles"] for sp in t["spaces"]]
        for act in view["episode"]["actions"]:
            if not act["advances"]:
                continue
            req = act["requires"]
            if any(me["tokens"].get(t, 0) < n for t, n in req["tokens"].items()):
                continue
            for sp in spaces:
                if req["at"] and sp not in req["at"]:
                    continue
                if req["space_token"] and not view["space_tokens"].get(sp, {}).get(req["space_token"]):
                    continue
                if req["fire_here"] and not view["fire"].get(sp):
                    continue
                out.add(sp)
        return out

    def danger(self, me: InvestigatorView) -> bool:
        return me["wounds"] >= me["health"] - 3 or me["sanity"] >= me["skull"] - 2

    # ------------------------------------------------------------------ decisions

    def on_action(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        here = me["space"]
        hurt = self.danger(me)
        enemies_here = self.enemies_at(view, here)
        sneak = me["mods"].get("sneak", False)
        episode = self.by_kind(options, "episode")
        useful = [o for o in episode if view["episode"]["actions"][o["action"]]["advances"]]
        dousing = [o for o in episode if view["episode"]["actions"][o["action"]]["requires"]["fire_here"]]
        attacks = self.by_kind(options, "attack")
        targets = {e["id"]: e for e in view["enemies"]}
        # By the command dicts themselves: `options` holds the very ones of the prompt's options.
        dice = {id(o["command"]): o["data"].get("dice", 0) for o in prompt_of(view)["options"]}
        for o in attacks:
            target = targets.get(o.get("target") or "")
            if target is not None and target["kind"] == "elder_one":
                return o  # it follows wherever we run: the only way out is through
        if useful and not (enemies_here and hurt):
            return useful[0]
        spread = [o for o in attacks if o.get("all")]
        single = [o for o in attacks if not o.get("all")]
        killable = sorted(
            ((targets[o["target"]]["health"] - targets[o["target"]]["wounds"], o) for o in single),
            key=lambda x: x[0],
        )
        if spread and not hurt:
            return spread[0]
        # Expected successes: half the dice (skills' bonus dice as the view shows them).
        expected = (dice[id(killable[0][1])] + me["bonus"] + me["mods"].get("attack_dice", 0)) * 0.5 if killable else 0.0
        if killable and killable[0][0] <= expected + 0.5 and not hurt:
            return killable[0][1]
        if enemies_here:
            # Running is no escape unless enemies stay behind: they follow. Fight back instead.
            if sneak and self.by_kind(options, "run"):
                return {"kind": "run"}
            if spread:
                return spread[0]
            if killable:
                return killable[0][1]
        rest = self.by_kind(options, "rest")
        if rest and (me["wounds"] >= 2 or me["stress"] >= me["stress_max"] - 1):
            return rest[0]
        if dousing:
            return dousing[0]
        if self.by_kind(options, "run") and self.goals(view, me) - {here}:
            return {"kind": "run"}
        if episode:
            return episode[0]
        if rest:
            return rest[0]
        return {"kind": "end_actions"}

    def on_run(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        adj = view["episode"]["adjacent"]
        here = me["space"]
        goals = set() if self.danger(me) else self.goals(view, me)
        moves = self.by_kind(options, "move")
        can_stop = any(o["kind"] == "stop" for o in options)
        if here in goals and can_stop:
            return {"kind": "stop"}
        fire = view["fire"]

        def cost(o: dict[str, Any]) -> tuple[int, int, int, str]:
            to = o["to"]
            far = min(self.distances(adj, to).get(g, 99) for g in goals) if goals else 0
            return (far, fire.get(to, 0), len(self.enemies_at(view, to)), to)

        best = min(moves, key=cost)
        if not goals:
            # Nowhere to be: stay put unless this space is worse than the best neighbour.
            now = (0, fire.get(here, 0), len(self.enemies_at(view, here)), here)
            if can_stop and cost(best)[1:3] >= now[1:3]:
                return {"kind": "stop"}
        return best

    def on_reroll(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Reroll dice that hurt (or fail to help) while a free reroll or spare stress allows."""
        roll = view["last_roll"]
        if roll is None:
            return None
        data = {id(o["command"]): o["data"] for o in prompt_of(view)["options"]}  # as in `on_action`
        spare = me["stress"] < me["stress_max"] - 1  # bank the last point of stress
        for o in self.by_kind(options, "reroll"):
            face = roll["dice"][o["die"]][1]
            symbols = face.split("+") if face else []
            if roll["purpose"] in ("attack", "check"):
                bad = "success" not in symbols or "tentacle" in symbols
            else:
                bad = "success" in symbols or "tentacle" in symbols
            if bad and (spare or data[id(o)]["stress"] == 0):
                return o
        return {"kind": "keep"}

    def on_assign_hit(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        targets = {e["id"]: e for e in view["enemies"]}
        return min(options, key=lambda o: targets[o["target"]]["health"] - targets[o["target"]]["wounds"])

    def on_rest(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        if me["stress"] >= me["stress_max"] - 1 and me["wounds"] < me["health"] - 2:
            return max(options, key=lambda o: o["stress"])
        return max(options, key=lambda o: o["wounds"])

    def on_wound_to(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        companions = [o for o in options if o["card"] is not None]
        return companions[0] if companions else None

    def on_choose(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        labels = [o["data"]["text"] for o in prompt_of(view)["options"]]
        if me["stress"] >= me["stress_max"] - 1 or self.danger(me):
            # Hurt: prefer a choice that costs nothing we can see.
            for o, label in zip(options, labels):
                if "stress" not in label.lower() and "wound" not in label.lower():
                    return o
        return options[0]

    def on_trade(self, view: MainView, me: InvestigatorView, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        return {"kind": "done"}
