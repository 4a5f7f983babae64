"""A rule-of-thumb bot for Shamblers mode: better than random, cheap, deterministic.

It reads only the seat's public view (so a network peer can run it with
`choose_view`) and only ever picks one of the prompt's options. Per action:
banish when the odds of affording the dice are good, gather what pays for
banishing (or starves a card the Shamblers feed on), otherwise walk to the
most pressing Town Card. When feeding, it feeds the color furthest from the
Shambler Mat's loss threshold; when paying, it banishes colors still needed
for the win and those crowding the Shambler Mat, sparing Chaos Tentacles.
"""

from __future__ import annotations

from typing import Any

from ..basebots import ViewBot
from ..rng import Rng
from .view import ShamblersView

CHAOS = "chaos"


def _at_most(faces: list[int], cost: int) -> float:
    """Chance that one die shows at most `cost` tentacles."""
    return sum(1 for f in faces if f <= cost) / len(faces)


class _Board:
    """Convenience reads over a Shamblers view."""

    def __init__(self, view: ShamblersView) -> None:
        self.v = view
        self.mat = view["mats"][view["active"]]
        self.towns = view["towns"]
        self.colors = [c["id"] for c in view["colors"]]
        self.capacity = {c["id"]: c["capacity"] for c in view["colors"]}
        self.banished = view["shambler_mat"]["shamblers"]
        self.fed = view["shambler_mat"]["tentacles"]
        self.win = view["goals"]["win_per_color"]
        self.loss = view["goals"]["loss_mat_tentacles"]
        self.wild = view["banish_rules"]["chaos_wild_max"]
        self.bonus_color = view["banish_rules"]["bonus_color"]
        self.faces = list(view["die"]["faces"])

    def need(self, color: str) -> int:
        """How many more of `color` the win still needs on the Shambler Mat."""
        return max(0, self.win - self.banished[color])

    def full(self, color: str) -> bool:
        if color == CHAOS:
            return self.mat["chaos"] >= self.mat["chaos_capacity"]
        return self.mat["tracks"][color] >= self.capacity[color]

    def afford(self, color: str) -> int:
        return self.mat["tracks"][color] + min(self.mat["chaos"], self.wild)

    def shamblers(self, index: int) -> int:
        return sum(self.towns[index]["shamblers"].values())

    def madness(self, index: int) -> int:
        return sum(self.towns[index]["tentacles"][c] for c in self.colors)


class HeuristicBot(ViewBot):
    def __init__(self, seed: int) -> None:
        self.rng = Rng(seed)  # breaks exact ties only

    def choose_view(self, view: ShamblersView) -> dict[str, Any]:
        """Pick from `view["prompt"]` (the view of the deciding seat); returns a wire command."""
        prompt = view.get("prompt")
        if not prompt or not prompt["options"]:
            raise ValueError("nothing to decide in this view")
        board = _Board(view)
        commands = [o["command"] for o in prompt["options"]]
        rank = {"banish": self._pay, "feed": self._feed}.get(prompt["kind"], self._action)
        scored = [(rank(board, cmd), i) for i, cmd in enumerate(commands)]
        top = max(s for s, _ in scored)
        best = [i for s, i in scored if s == top]
        pick = best[self.rng.below("bot", len(best))] if len(best) > 1 else best[0]
        return commands[pick]

    # ---------------------------------------------------------------- ranking

    def _pay(self, b: _Board, cmd: dict[str, Any]) -> float:
        if cmd["kind"] != "pay":
            return -100.0  # declining: banishing any Shambler beats it
        color: str = cmd["color"]
        chaos: int = cmd["chaos"]
        madness: int = cmd["madness"]
        score = 10.0 * b.need(color) + 2.0 * b.fed[color]
        score -= 3.0 * chaos  # Chaos is wild: keep it for later
        if color == b.bonus_color:
            score -= 1.0 * madness  # Rage held raises the next banish's bonus
        return score

    def _feed(self, b: _Board, cmd: dict[str, Any]) -> float:
        return -float(b.fed[cmd["color"]])  # keep every color far from the loss threshold

    def _banish_odds(self, b: _Board, index: int) -> float:
        """Chance the dice on that card come out payable for the best color there."""
        k = b.shamblers(index)
        best = 0.0
        for color in b.colors:
            if b.towns[index]["shamblers"][color] > 0:
                weight = 1.0 if b.need(color) > 0 else 0.6
                best = max(best, weight * _at_most(b.faces, b.afford(color)) ** k)
        return best

    def _pressure(self, b: _Board, index: int) -> float:
        shamblers = b.shamblers(index)
        madness = b.madness(index)
        score = 0.8 * madness + 1.2 * b.towns[index]["tentacles"][CHAOS]
        if shamblers:
            score += 3.0 * shamblers + 2.0 * min(shamblers, madness)
        return score

    def _action(self, b: _Board, cmd: dict[str, Any]) -> float:
        here = b.mat["town"]
        n = len(b.towns)
        kind = cmd["kind"]
        if kind == "banish":
            return 12.0 * self._banish_odds(b, here)
        if kind == "gather":
            color = cmd["color"]
            if b.full(color):
                # Worth a Delirium only to stop a feed that would soon lose the game.
                danger = color != CHAOS and b.shamblers(here) > 0 and b.fed[color] >= b.loss - 2
                room = b.mat["delirium_capacity"] - b.mat["delirium"]
                return 6.0 if danger and room > 2 else -5.0
            score = 4.0
            if color == CHAOS:
                return score + 3.0
            on_board = sum(t["shamblers"][color] for t in b.towns)
            score += 1.5 * min(on_board, 2) + 1.0 * (b.need(color) > 0)
            if b.shamblers(here) > 0:
                score += 2.0  # it would feed the Shamblers here otherwise
            return score
        if kind == "move":
            to = cmd["town"]
            best = 0.0
            for j in range(n):
                d_from = min((here - j) % n, (j - here) % n)
                d_to = min((to - j) % n, (j - to) % n)
                if d_to < d_from:
                    best = max(best, self._pressure(b, j) / (1 + d_to))
            return min(best, 9.0)
        return 0.5  # end_actions: only when nothing else helps
