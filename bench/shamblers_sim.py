"""Shamblers mode simulator: win rate, mean turns and games/second per difficulty, bot and table size.

    python bench/shamblers_sim.py --games 1000                # every level, both bots, 1 and 2 players: JSON
    python bench/shamblers_sim.py --games 1000 --markdown     # the same as bench/RESULTS.md's table

Every game is seeded (game seed = first seed + i, bot seed = the same), so the
figures are reproducible; only `games_per_second` depends on the machine.
The difficulty numbers in content/shamblers/difficulty.toml were chosen with it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from cthulhu.content import read_tree
from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot


def shamblers_content(root: str | None = None):
    """The built-in Shamblers content alone (works even while other modes' content is broken)."""
    import tomllib

    from cthulhu.core.canon import digest
    from cthulhu.core.content import Content
    from cthulhu.core.shamblers.content import load_shamblers

    files = {p: t for p, t in read_tree(root).items() if p.startswith("shamblers/")}
    docs = {p: tomllib.loads(t) for p, t in files.items()}
    return Content(version=digest(files), modes={"shamblers": load_shamblers(docs)})


def play(content, bot_kind: str, seed: int, players: int, difficulty: str | None = None) -> Game:
    game = Game.new(Setup(mode="shamblers", seed=seed, players=players, difficulty=difficulty), content)
    bot = make_bot(bot_kind, "shamblers", seed)
    while game.outcome is None:
        p = game.prompt
        game.apply(p.seat, bot.choose(game, p.seat))
    return game


def run(content, bot_kind: str, games: int, first_seed: int, players: int, difficulty: str | None = None) -> dict:
    wins = 0
    turns = 0
    steps = 0
    causes: Counter[str] = Counter()
    banished = 0
    start = time.perf_counter()
    for i in range(games):
        g = play(content, bot_kind, first_seed + i, players, difficulty)
        wins += g.outcome == "won"
        turns += g.state.turn
        steps += g.step
        causes[g.state.cause] += 1
        banished += sum(g.state.mat_shamblers.values())
    elapsed = time.perf_counter() - start
    return {
        "difficulty": content.shamblers.at(difficulty).difficulty,
        "bot": bot_kind,
        "games": games,
        "players": players,
        "win_rate": round(wins / games, 4),
        "mean_turns": round(turns / games, 2),
        "mean_commands": round(steps / games, 2),
        "mean_banished": round(banished / games, 2),
        "causes": dict(sorted(causes.items())),
        "games_per_second": round(games / elapsed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0, help="first game seed")
    ap.add_argument("--players", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--bots", nargs="+", default=["random", "heuristic"])
    ap.add_argument("--difficulty", nargs="+", default=None, help="levels to play (default: every level of the content)")
    ap.add_argument("--content", default=None, help="content folder (default: built-in)")
    ap.add_argument("--markdown", action="store_true", help="print bench/RESULTS.md's table instead of JSON")
    args = ap.parse_args(argv)
    content = shamblers_content(args.content)
    levels = args.difficulty or [lv.id for lv in content.shamblers.levels]
    results = [
        run(content, b, args.games, args.seed, n, level)
        for level in levels
        for n in args.players
        for b in args.bots
    ]
    if args.markdown:
        print(markdown(results, content))
    else:
        json.dump({"mode": "shamblers", "results": results}, sys.stdout, indent=2)
        print()
    return 0


def markdown(results: list[dict], content) -> str:
    names = {lv.id: lv.name for lv in content.shamblers.levels}
    lines = [
        "| difficulty | bot | players | win rate | mean turns | main loss cause | games/s |",
        "|---|---|---:|---:|---:|---|---:|",
    ]
    for r in results:
        losses = {k: v for k, v in r["causes"].items() if k != "banished"}
        cause = max(losses, key=losses.get).replace("_", " ") if losses else "-"
        lines.append(
            f"| {names[r['difficulty']]} | {r['bot']} | {r['players']} | {100 * r['win_rate']:.1f}% | "
            f"{r['mean_turns']:.1f} | {cause} | {r['games_per_second']:.0f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
