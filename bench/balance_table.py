"""The balance table: `cthulhu sim` for every Elder One x episode and both bots, as Markdown.

    python bench/balance_table.py [--games 500] [--seed 1] [--jobs 2] [--bots heuristic,random]

Each row is one `cthulhu sim --json` run (its own process, so `--jobs` of them run
side by side). Rows are sorted by Elder One, then by episode difficulty.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from cthulhu.content import builtin

CAUSES = {
    "all_dead": "all dead after summoning",
    "died_before_summoning": "death before summoning",
    "track_end": "track reached its end",
}


def sim(elder_one: str, episode: str, bot: str, games: int, seed: int) -> dict:
    cmd = [sys.executable, "-m", "cthulhu.cli", "sim", "--json", "--games", str(games), "--seed", str(seed),
           "--bot", bot, "--elder-one", elder_one, "--episode", episode]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0 and not done.stdout:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def row(elder: str, episode: str, difficulty: int, bot: str, s: dict) -> str:
    losses = s["loss_causes"]
    main_cause = max(losses, key=losses.get) if losses else None
    lost = sum(losses.values())
    cause = f"{CAUSES.get(main_cause, main_cause)} ({losses[main_cause] / lost:.0%} of losses)" if main_cause else "-"
    unused = len(s.get("content_coverage", {}).get("unused", []))
    return (f"| {elder} | {episode} ({difficulty}) | {bot} | {s['win_rate']:.1%} | {s['mean_turns']:.1f} "
            f"| {s['summoned_share']:.0%} | {cause} | {unused} |")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--bots", default="heuristic,random")
    args = p.parse_args(argv)
    c = builtin().main
    episodes = sorted(c.episodes, key=lambda e: (c.episodes[e].difficulty, e))
    combos = [(eo, ep, bot) for bot in args.bots.split(",") for eo in sorted(c.elder_ones) for ep in episodes]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda x: sim(*x, args.games, args.seed), combos))
    print(f"`cthulhu sim --games {args.games} --seed {args.seed} --bot BOT --elder-one E --episode P` "
          f"(default investigators, one player)\n")
    print("| Elder One | Episode (difficulty) | Bot | Wins | Mean turns | Summoned | Main loss cause | Unused entries |")
    print("|---|---|---|---:|---:|---:|---|---:|")
    for (eo, ep, bot), s in zip(combos, results):
        print(row(c.elder_ones[eo].name, c.episodes[ep].name, c.episodes[ep].difficulty, bot, s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
