"""A rule-of-thumb bot for Shamblers mode: better than random, cheap, deterministic.

It only ever picks among `game.legal(seat)`; the state is read to rank them.
Plan per action: banish when the odds of affording the dice are good, gather
what pays for banishing (or starves a feeding card), otherwise walk to the
most pressing Town Card. When feeding, it feeds the color furthest from the
Shambler Mat's loss threshold; when paying, it banishes colors still needed
for the win and those crowding the Shambler Mat, sparing Chaos Tentacles.
"""

from __future__ import annotations

from ..command import Command
from ..game import Game
from ..rng import Rng
from .content import CHAOS
from .state import ShamblerState


def _at_most(faces: list[int], cost: int) -> float:
    """Chance that one die shows at most `cost` tentacles."""
    return sum(1 for f in faces if f <= cost) / len(faces)


class HeuristicBot:
    def __init__(self, seed: int) -> None:
        self.rng = Rng(seed)  # breaks exact ties only

    def choose(self, game: Game, seat: int) -> Command:
        legal = game.legal(seat)
        if not legal:
            raise ValueError(f"seat {seat} has nothing to decide")
        state: ShamblerState = game.state
        kinds = {c.kind for c in legal}
        if "pay" in kinds or "decline" in kinds:
            return self._pay(state, legal)
        if "feed" in kinds:
            return self._feed(state, legal)
        return self._action(state, legal)

    # ---------------------------------------------------------------- ranking

    def _best(self, scored: list[tuple[float, Command]]) -> Command:
        top = max(s for s, _ in scored)
        best = [c for s, c in scored if s == top]
        return best[self.rng.below("bot", len(best))] if len(best) > 1 else best[0]

    def _need(self, state: ShamblerState, color: str) -> float:
        """How much banishing `color` still helps the win (0 once enough are banished)."""
        return max(0, state.cfg.win_per_color - state.mat_shamblers[color])

    def _pay(self, state: ShamblerState, legal: list[Command]) -> Command:
        scored = []
        for cmd in legal:
            if cmd.kind == "decline":
                scored.append((-100.0, cmd))
                continue
            color = cmd["color"]
            score = 10.0 * self._need(state, color) + 2.0 * state.mat_tentacles[color]
            score -= 3.0 * cmd["chaos"]  # Chaos is wild: keep it for later
            if color == state.cfg.bonus_color:
                score -= 1.0 * cmd["madness"]  # Rage held raises the next banish's bonus
            scored.append((score, cmd))
        return self._best(scored)

    def _feed(self, state: ShamblerState, legal: list[Command]) -> Command:
        scored = []
        for cmd in legal:
            color = cmd["color"]
            # Fewest on the Shambler Mat first; colors already won are safer to feed only by that count.
            scored.append((-float(state.mat_tentacles[color]), cmd))
        return self._best(scored)

    def _afford(self, state: ShamblerState, color: str) -> int:
        mat = state.mats[state.active]
        return mat.tracks[color] + min(mat.chaos, state.cfg.chaos_wild_max)

    def _banish_odds(self, state: ShamblerState, town_index: int) -> float:
        """Chance the dice on that card come out payable for the best color there."""
        town = state.towns[town_index]
        k = town.shambler_count()
        if k == 0:
            return 0.0
        faces = list(state.cfg.die.faces)
        best = 0.0
        for color in state.colors:
            if town.shamblers[color] > 0:
                weight = 1.0 if self._need(state, color) > 0 else 0.6
                best = max(best, weight * _at_most(faces, self._afford(state, color)) ** k)
        return best

    def _town_pressure(self, state: ShamblerState, index: int) -> float:
        town = state.towns[index]
        shamblers = town.shambler_count()
        madness = town.madness(state.colors)
        score = 0.0
        if shamblers:
            score += 3.0 * shamblers + 2.0 * min(shamblers, madness)
        score += 0.8 * madness + 1.2 * town.tentacles[CHAOS]
        return score

    def _action(self, state: ShamblerState, legal: list[Command]) -> Command:
        mat = state.mats[state.active]
        here = mat.town
        town = state.towns[here]
        n = len(state.towns)
        scored: list[tuple[float, Command]] = []
        for cmd in legal:
            if cmd.kind == "banish":
                odds = self._banish_odds(state, here)
                scored.append((12.0 * odds, cmd))
            elif cmd.kind == "gather":
                color = cmd["color"]
                full = (
                    mat.chaos >= state.cfg.chaos_capacity
                    if color == CHAOS
                    else mat.tracks[color] >= state.cfg.color(color).track_capacity
                )
                if full:
                    # Only worth a Delirium if it stops a feed that would lose the game.
                    danger = town.shambler_count() > 0 and color != CHAOS and (
                        state.mat_tentacles[color] >= state.cfg.loss_mat_tentacles - 2
                    )
                    room = state.cfg.delirium_capacity - mat.delirium
                    scored.append((6.0 if danger and room > 2 else -5.0, cmd))
                    continue
                score = 4.0
                if color == CHAOS:
                    score += 3.0
                else:
                    # Tentacles that can pay for Shamblers on the board, or that would feed here.
                    on_board = sum(t.shamblers[color] for t in state.towns)
                    score += 1.5 * min(on_board, 2) + 1.0 * (self._need(state, color) > 0)
                    if town.shambler_count() > 0:
                        score += 2.0
                scored.append((score, cmd))
            elif cmd.kind == "move":
                to = cmd["town"]
                best = 0.0
                for j in range(n):
                    d_from = min((here - j) % n, (j - here) % n)
                    d_to = min((to - j) % n, (j - to) % n)
                    if d_to < d_from:
                        best = max(best, self._town_pressure(state, j) / (1 + d_to))
                scored.append((min(best, 9.0), cmd))
            elif cmd.kind == "end_actions":
                scored.append((0.5, cmd))
        return self._best(scored)
