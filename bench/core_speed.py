"""Speed of the rules core on one core: whole bot games, as `cthulhu sim` plays them, beside references.

Run: python bench/core_speed.py [--games N] [--repeat R]

For each mode and bot it plays the games `cthulhu sim --games N --seed 1` plays
(one process), best of R rounds, and prints games per second and the cost of
one decision all in (bot, rules, undo history, final hash). The machine is
shared, so each round also times references in the same minute:

* a fixed pure-Python loop (random tic-tac-toe playouts, below): its decisions
  per second measure the interpreter's speed right now, and each figure is
  also given as a ratio to it, which the load moves much less than the figure;
* python-chess, if it is installed (it is not a dependency): a random game's
  decision there is its legal moves listed plus a push.

It says whether the core is compiled (setup.py) and prints the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any

from cthulhu.content import builtin
from cthulhu.core import Game, Setup
from cthulhu.core import canon
from cthulhu.core.canon import canonical_bytes
from cthulhu.core.sim import game_seed, play

GOALS = {("main", "random"): 1000, ("shamblers", "random"): 5000, ("main", "heuristic"): 400, ("shamblers", "heuristic"): None}
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def reference_playouts(games: int) -> int:
    """Random tic-tac-toe to the end, `games` times: the fixed pure-Python workload. Returns decisions."""
    state, decisions = 12345, 0
    for _ in range(games):
        board = [0] * 9
        player = 1
        while True:
            free = [i for i in range(9) if not board[i]]
            if not free:
                break
            state = (state * 1103515245 + 12345) & 0x7FFFFFFF
            board[free[state % len(free)]] = player
            decisions += 1
            if any(board[a] == board[b] == board[c] == player for a, b, c in LINES):
                break
            player = 3 - player
    return decisions


def chess_playouts(games: int) -> int | None:
    """python-chess random games of at most 80 plies, if python-chess is installed. Returns decisions."""
    try:
        import chess
    except ImportError:
        return None
    state, decisions = 12345, 0
    for _ in range(games):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 80:
            moves = list(board.legal_moves)
            state = (state * 1103515245 + 12345) & 0x7FFFFFFF
            board.push(moves[state % len(moves)])
            decisions += 1
    return decisions


def timed(fn: Any, *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def sim_round(mode: str, bot: str, games: int, content: Any) -> tuple[float, int]:
    """`cthulhu sim --games N --seed 1 --mode M --bot B` in this process: seconds and decisions."""
    start = time.perf_counter()
    decisions = 0
    for n in range(games):
        decisions += play(Setup(mode=mode, seed=game_seed(1, n)), bot=bot, content=content).commands
    return time.perf_counter() - start, decisions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games per round and figure (default 200)")
    ap.add_argument("--repeat", type=int, default=5, help="rounds; the best is kept (default 5)")
    ap.add_argument("--markdown", action="store_true", help="a table for bench/RESULTS.md instead of JSON")
    args = ap.parse_args()
    content = builtin()
    load_before = os.getloadavg()
    reference: list[float] = []
    chess: list[float] = []
    figures: dict[tuple[str, str], tuple[float, float]] = {}
    for _ in range(args.repeat):
        t, d = timed(reference_playouts, 20000)
        reference.append(d / t)
        t, d = timed(chess_playouts, 20)
        if d is not None:
            chess.append(d / t)
        for key in GOALS:
            seconds, decisions = sim_round(*key, args.games, content)
            best = figures.get(key)
            if best is None or seconds < best[0]:
                figures[key] = (seconds, decisions)
    ref = max(reference)
    sizes = []
    for n in range(20):
        game = Game.new(Setup(seed=game_seed(1, n)), content)
        sizes.append(len(canonical_bytes(game.canonical())))
    import cthulhu.core.main.engine as engine

    out: dict[str, Any] = {
        "games": args.games,
        "repeat": args.repeat,
        "compiled": not engine.__file__.endswith(".py"),
        "orjson": getattr(canon, "fast_bytes", None) is not None,
        "load_average": [round(x, 2) for x in (*load_before, *os.getloadavg())],
        "reference_decisions_per_second": round(ref),
        "python_chess_decisions_per_second": round(max(chess)) if chess else None,
        "figures": {},
    }
    for (mode, bot), (seconds, decisions) in figures.items():
        per_decision = seconds / decisions
        out["figures"][f"{mode} {bot}"] = {
            "games_per_second": round(args.games / seconds, 1),
            "goal": GOALS[(mode, bot)],
            "decision_us": round(per_decision * 1e6, 2),
            "decisions_per_game": round(decisions / args.games, 1),
            "vs_reference": round((1 / per_decision) / ref, 4),  # our decisions per reference decision
            "vs_python_chess": round((1 / per_decision) / max(chess), 3) if chess else None,
        }
    out["main_state_bytes_median"] = int(statistics.median(sizes))
    if not args.markdown:
        print(json.dumps(out, indent=1))
        return
    print(f"load average {out['load_average'][:3]} before, {out['load_average'][3:]} after; compiled: {out['compiled']}; "
          f"reference loop {ref:,.0f} decisions/s" + (f"; python-chess {max(chess):,.0f} decisions/s" if chess else ""))
    print()
    print("| mode, bot | games/s | goal | µs per decision | decisions per reference decision |")
    print("|---|---:|---:|---:|---:|")
    for name, f in out["figures"].items():
        goal = f"{f['goal']:,}" if f["goal"] else "—"
        print(f"| {name} | {f['games_per_second']:,.0f} | {goal} | {f['decision_us']} | {f['vs_reference']} |")


if __name__ == "__main__":
    main()
