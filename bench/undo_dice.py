"""Costs of take-backs and of verifying the dice: what the history adds to `apply`, what an undo
costs, and how long a peer takes to replay and check a whole game at the end.

Run: python bench/undo_dice.py [--games 40]
Commands are recorded from seeded heuristic games first; timings are then taken on replays.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from cthulhu.core import Game, Setup, undo
from cthulhu.core.bots import make_bot
from cthulhu.core.rng import Rng
from cthulhu.net.commitment import GameRecord, public_setup, verify
from cthulhu.savegame.dice import Dice
from cthulhu.net.delta import view_hash

MODES = {"main": 1, "shamblers": 2}


def record(mode: str, seed: int) -> tuple[Setup, list]:
    setup = Setup(mode=mode, seed=seed, players=MODES[mode])
    game = Game.new(setup)
    bot = make_bot("heuristic", mode, seed)
    log = []
    while game.outcome is None and game.step < 3000:
        seat = game.prompt.seat
        cmd = bot.choose(game, seat)
        game.apply(seat, cmd)
        log.append((seat, cmd))
    return setup, log


def apply_us(games: list) -> float:
    start, n = time.perf_counter(), 0
    for setup, log in games:
        game = Game.new(setup)
        for seat, cmd in log:
            game.apply(seat, cmd)
            n += 1
    return (time.perf_counter() - start) / n * 1e6


def history_overhead(games: list) -> tuple[float, float]:
    """Microseconds per command with and without the history's two hooks (best of 3 each)."""
    before, after = undo.History.before, undo.History.after
    with_h, without = [], []
    for _ in range(3):
        undo.History.before, undo.History.after = before, after
        with_h.append(apply_us(games))
        undo.History.before = lambda self, game: (0, (), None)  # type: ignore[method-assign]
        undo.History.after = lambda self, *a: None  # type: ignore[method-assign]
        without.append(apply_us(games))
    undo.History.before, undo.History.after = before, after
    return min(with_h), min(without)


def undo_costs(games: list) -> dict:
    one, far, reach = [], [], []
    pick = Rng(5)
    for setup, log in games:
        game = Game.new(setup)
        for seat, cmd in log:
            game.apply(seat, cmd)
            s = game.prompt.seat if game.prompt else None
            h = game.undo_horizon(s) if s is not None else 0
            if h and pick.below("when", 4) == 0:
                at = game.step
                t = time.perf_counter_ns()
                game.undo(s, 1)
                one.append(time.perf_counter_ns() - t)
                game.apply(*log[at - 1])
                if h > 1:
                    t = time.perf_counter_ns()
                    game.undo(s, h)
                    far.append(time.perf_counter_ns() - t)
                    reach.append(h)
                    for entry in log[at - h : at]:
                        game.apply(*entry)
    q = lambda xs, p: sorted(xs)[int(p * (len(xs) - 1))] / 1000 if xs else None  # noqa: E731
    return {
        "undo_one_us_median": q(one, 0.5),
        "undo_one_us_p99": q(one, 0.99),
        "undo_to_horizon_us_median": q(far, 0.5),
        "undo_to_horizon_us_p99": q(far, 0.99),
        "horizon_median": statistics.median(reach) if reach else None,
        "horizon_max": max(reach) if reach else None,
        "undos_timed": len(one) + len(far),
    }


def verify_costs(games: list) -> dict:
    """What a spectator does at game over: replay the whole game and check every step's view hash."""
    times, steps = [], []
    for setup, log in games:
        game = Game.new(setup)
        dice = Dice.new(setup.seed)
        rec = GameRecord()
        rec.joined(None, 0, view_hash(game.view(None)), dice.commit, public_setup(setup))
        for seat, cmd in log:
            game.apply(seat, cmd)
            rec.stepped(game.step, [seat, cmd.wire()], view_hash(game.view(None)))
        t = time.perf_counter()
        verdict = verify(rec, seed=setup.seed, salt=dice.salt, final_hash=game.state_hash())
        times.append(time.perf_counter() - t)
        steps.append(len(log))
        assert verdict.verified, verdict
    return {
        "verify_ms_median": round(statistics.median(times) * 1000, 1),
        "verify_ms_max": round(max(times) * 1000, 1),
        "verify_ms_per_1000_steps": round(sum(times) / sum(steps) * 1e6, 1),
        "steps_median": statistics.median(steps),
        "steps_max": max(steps),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=40)
    args = ap.parse_args()
    out = {}
    for mode in MODES:
        games = [record(mode, seed) for seed in range(1, args.games + 1)]
        with_h, without = history_overhead(games)
        out[mode] = {
            "games": len(games),
            "apply_us_with_history": round(with_h, 1),
            "apply_us_without_history": round(without, 1),
            **undo_costs(games),
            **verify_costs(games),
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
