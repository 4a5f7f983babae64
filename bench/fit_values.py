"""Fit the search bot's value models (`core/main/value.py`, `core/shamblers/value.py`).

Plays games with the search bot's policy (every Elder One x episode pair, or every Shamblers
level, solo and with two players), records the model's features at the start of every turn
and the game's outcome, and fits a logistic regression by Newton's method (pure Python: the
models are small). Prints the `WEIGHTS` line to paste into the mode's value module, and the
fit's log loss beside that of always guessing the mean.

    python bench/fit_values.py --mode main --games 40
    python bench/fit_values.py --mode shamblers --games 100
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

from cthulhu.content import builtin
from cthulhu.core import Game, Setup, modes
from cthulhu.core.main import value as main_value
from cthulhu.core.shamblers import value as shamblers_value
from cthulhu.core.sim import game_seed

FEATURES: dict[str, Callable[[Any], list[float]]] = {"main": main_value.features, "shamblers": shamblers_value.features}


def setups(mode: str, games: int, content: Any) -> list[Setup]:
    out = []
    for players in (1, 2):
        if mode == "main":
            for episode in sorted(content.main.episodes):
                for elder in sorted(content.main.elder_ones):
                    out += [Setup(mode=mode, seed=game_seed(99, n), players=players, episode=episode, elder_one=elder) for n in range(games)]
        else:
            for level in content.part("shamblers").levels:
                out += [Setup(mode=mode, seed=game_seed(99, n), players=players, difficulty=level.id) for n in range(games)]
    return out


def collect(mode: str, games: int) -> tuple[list[list[float]], list[float]]:
    content = builtin()
    hooks = modes.get(mode).search
    assert hooks is not None
    rows: list[list[float]] = []
    outcomes: list[float] = []
    for setup in setups(mode, games, content):
        game = Game.new(setup, content)
        bots: dict[int, Any] = {}
        seen: list[list[float]] = []
        turn = -1
        while game.outcome is None and game.state.turn <= 200:
            prompt = game.prompt
            assert prompt is not None
            if game.state.turn != turn:
                turn = game.state.turn
                seen.append(FEATURES[mode](game.view(None)))
            bot = bots.get(prompt.seat) or bots.setdefault(prompt.seat, hooks.policy(setup.seed + prompt.seat, content))
            game.apply(prompt.seat, bot.choose(game, prompt.seat))
        rows += seen
        outcomes += [float(game.outcome == "won")] * len(seen)
    return rows, outcomes


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            continue
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for k in range(col, n + 1):
                    m[r][k] -= f * m[col][k]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def fit(rows: list[list[float]], outcomes: list[float], rounds: int = 12, l2: float = 1e-3) -> list[float]:
    d = len(rows[0])
    w = [0.0] * d
    for _ in range(rounds):
        grad = [0.0] * d
        hess = [[0.0] * d for _ in range(d)]
        for x, y in zip(rows, outcomes):
            p = _sigmoid(sum(a * b for a, b in zip(w, x)))
            e, s = p - y, p * (1 - p)
            for j in range(d):
                grad[j] += e * x[j]
                sx = s * x[j]
                hj = hess[j]
                for k in range(d):
                    hj[k] += sx * x[k]
        for j in range(d):
            grad[j] += l2 * w[j]
            hess[j][j] += l2
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step)]
    return w


def log_loss(w: list[float], rows: list[list[float]], outcomes: list[float]) -> float:
    total = 0.0
    for x, y in zip(rows, outcomes):
        p = _sigmoid(sum(a * b for a, b in zip(w, x)))
        total -= y * math.log(p + 1e-12) + (1 - y) * math.log(1 - p + 1e-12)
    return total / len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=sorted(FEATURES), required=True)
    parser.add_argument("--games", type=int, default=40, help="games per row (Elder One x episode, or level) and table size")
    args = parser.parse_args()
    start = time.perf_counter()
    rows, outcomes = collect(args.mode, args.games)
    w = fit(rows, outcomes)
    mean = sum(outcomes) / len(outcomes)
    print(f"# {len(rows)} turn starts, win share {mean:.3f}, {time.perf_counter() - start:.0f} s; log loss "
          f"{log_loss(w, rows, outcomes):.4f} (the mean alone: {-(mean * math.log(mean) + (1 - mean) * math.log(1 - mean)):.4f})")
    print("WEIGHTS: list[float] = [" + ", ".join(f"{x:.4f}" for x in w) + "]")


if __name__ == "__main__":
    main()
