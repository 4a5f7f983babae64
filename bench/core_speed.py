"""Speed of the rules core on one core: apply, legal, bot turns, state size.

Run: python bench/core_speed.py [--games N] [--mode main|shamblers]
Commands are recorded from random-bot games first, then replayed and timed,
so the bot's own cost is not counted in the apply figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from cthulhu.core import Game, Setup
from cthulhu.core.bots import RandomBot
from cthulhu.core.canon import canonical_bytes


def record(mode: str, seed: int, turn_limit: int) -> tuple[Setup, list]:
    setup = Setup(mode=mode, seed=seed, players=2 if mode == "shamblers" else 1)
    game = Game.new(setup)
    bot = RandomBot(seed)
    log = []
    while game.outcome is None and getattr(game.state, "turn", 0) <= turn_limit:
        seat = game.prompt.seat
        cmd = bot.choose(game, seat)
        game.apply(seat, cmd)
        log.append((seat, cmd))
    return setup, log


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--mode", default="main")
    ap.add_argument("--turn-limit", type=int, default=200)
    args = ap.parse_args()

    t0 = time.perf_counter()
    turns = 0
    recorded = []
    for seed in range(args.games):
        setup, log = record(args.mode, seed, args.turn_limit)
        recorded.append((setup, log))
    bot_seconds = time.perf_counter() - t0

    apply_ns: list[int] = []
    legal_ns: list[int] = []
    sizes: list[int] = []
    total_cmds = 0
    t1 = time.perf_counter()
    for setup, log in recorded:
        game = Game.new(setup)
        for seat, cmd in log:
            a = time.perf_counter_ns()
            game.legal(seat)
            b = time.perf_counter_ns()
            game.apply(seat, cmd)
            c = time.perf_counter_ns()
            legal_ns.append(b - a)
            apply_ns.append(c - b)
        total_cmds += len(log)
        turns += getattr(game.state, "turn", 0)
        sizes.append(len(canonical_bytes(game.canonical())))
    replay_seconds = time.perf_counter() - t1

    def q(xs: list[int], p: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(p * len(xs)))] / 1000

    print(json.dumps({
        "mode": args.mode,
        "games": args.games,
        "commands": total_cmds,
        "applied_per_second": round(total_cmds / (sum(apply_ns) / 1e9)),
        "apply_us_median": round(statistics.median(apply_ns) / 1000, 1),
        "apply_us_p99": round(q(apply_ns, 0.99), 1),
        "legal_us_median": round(statistics.median(legal_ns) / 1000, 1),
        "legal_us_p99": round(q(legal_ns, 0.99), 1),
        "bot_turns_per_second": round(turns / bot_seconds),
        "replay_seconds": round(replay_seconds, 2),
        "state_bytes_median": int(statistics.median(sizes)),
        "state_bytes_max": max(sizes),
    }, indent=1))


if __name__ == "__main__":
    main()
