"""How much stronger the search bot is than the heuristic bot, row by row, over the same seeds.

    python bench/bot_strength.py --games 10 --sims 48 --out strength.jsonl     # every row, both bots
    python bench/bot_strength.py --report strength.jsonl                       # the Markdown table of a run
    python bench/bot_strength.py --bots heuristic,policy --games 200 --out policy.jsonl   # the policy alone
    python bench/bot_strength.py --calibrate                                   # simulations per second here
    python bench/bot_strength.py --mode main --only solo --games 2 --sims 400 --out one_second.jsonl

The rows are the balance table's (every Elder One x episode, solo and with two players) and
every Shamblers level (solo and two players). Game i of a row has the seed `cthulhu sim
--seed S` gives its game i, for both bots, so the heuristic column is exactly what
`cthulhu sim --games N --seed S --bot heuristic --elder-one E --episode P --players K` plays.
Each finished game is appended to `--out` as one JSON line, and a run given the same file
skips the games already in it, so a long run can be stopped and carried on. Games are
interleaved row by row, so a run cut short still covers every row.

Win rates come with Wilson 95% intervals; the difference per row (search - heuristic, in
points) with Agresti and Min's interval for paired games, and the average over the rows with
its own (the rows' variances summed). `--sims N` is the deterministic budget per decision; `--think SECONDS`
a time budget instead (on this machine's clock, so not reproducible).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from cthulhu.content import builtin
from cthulhu.core import Game, Setup, modes
from cthulhu.core.bots import make_bot
from cthulhu.core.search import SearchBot, Thinking
from cthulhu.core.sim import game_seed, play

Row = tuple[str, str, str, int]  # (mode, elder one or "", episode or level, players)


def rows() -> list[Row]:
    c = builtin()
    main = c.main
    episodes = sorted(main.episodes, key=lambda e: (main.episodes[e].difficulty, e))
    out: list[Row] = [("main", eo, ep, players) for players in (1, 2) for eo in sorted(main.elder_ones) for ep in episodes]
    out += [("shamblers", "", lv.id, players) for players in (1, 2) for lv in c.part("shamblers").levels]
    return out


def setup_of(row: Row, seed: int) -> Setup:
    mode, elder, where, players = row
    if mode == "main":
        return Setup(mode=mode, seed=seed, elder_one=elder, episode=where, players=players)
    return Setup(mode=mode, seed=seed, difficulty=where, players=players)


def row_name(row: Row) -> str:
    mode, elder, where, players = row
    c = builtin()
    if mode == "main":
        name = f"{c.main.elder_ones[elder].name} / {c.main.episodes[where].name} ({c.main.episodes[where].difficulty})"
    else:
        name = f"Shamblers / {next(lv.name for lv in c.part('shamblers').levels if lv.id == where)}"
    return f"{name}, {'solo' if players == 1 else f'{players} players'}"


def one_game(row: Row, index: int, base_seed: int, bot: str, sims: int | None, think: float | None) -> dict[str, Any]:
    """One game of `bot` ("heuristic", "search", or "policy": the search bot's policy alone, not searching)."""
    seed = game_seed(base_seed, index)
    started = time.process_time()
    decide = None
    if bot == "policy":
        content = builtin()
        hooks = modes.get(row[0]).search
        assert hooks is not None
        policies: dict[int, Any] = {}

        def decide(b: Any, g: Game, s: int) -> Any:
            policy = policies.get(s) or policies.setdefault(s, hooks.policy(game_seed(seed, s + 1), content))
            return policy.choose(g, s)

    elif bot == "search" and think is not None:
        from cthulhu.net.thinking import decide as timed

        thinking = Thinking(seconds=think)

        def decide(b: Any, g: Game, s: int) -> Any:
            return timed(b, g, s, thinking)

    played = play(setup_of(row, seed), bot="random" if bot == "policy" else bot, sims=sims if bot == "search" else None, decide=decide)
    return {"row": list(row), "index": index, "seed": seed, "bot": bot, "sims": sims if bot == "search" else None,
            "think": think if bot == "search" else None, "outcome": played.outcome, "turns": played.turns,
            "cause": played.cause, "cpu": round(time.process_time() - started, 2)}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def paired(pairs: list[tuple[bool, bool]]) -> tuple[float, float, float]:
    """(search - heuristic, the half-width of its 95% interval, its variance) over paired games, the
    interval by Agresti and Min's adjustment (half a game added to each cell of the 2x2 table), which
    stays honest when a handful of games all went the same way."""
    n = len(pairs)
    only_s = sum(1 for h, s in pairs if s and not h)
    only_h = sum(1 for h, s in pairs if h and not s)
    p01, p10 = (only_s + 0.5) / (n + 2), (only_h + 0.5) / (n + 2)
    var = (p01 + p10 - (p01 - p10) ** 2) / (n + 2)
    return (only_s - only_h) / n, 1.96 * math.sqrt(var), var


def report(path: Path, compare: tuple[str, str] = ("heuristic", "search"), out: Any = sys.stdout) -> None:
    """The Markdown table of a run: `compare[1]` against `compare[0]`, over the games both played."""
    base, other = compare
    games: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = defaultdict(dict)
    budget = set()
    for line in path.read_text().splitlines():
        g = json.loads(line)
        games[(tuple(g["row"]), g["index"])][g["bot"]] = g
        if g["bot"] == "search":
            budget.add(f"--sims {g['sims']}" if g["sims"] is not None else f"--think {g['think']}")
    print(f"Search bot budget: {', '.join(sorted(budget)) or '(no search games)'}; {path.name}\n", file=out)
    print(f"| row | games | {base} wins [95%] | {other} wins [95%] | {other} - {base} (points) [95%] | {other} CPU s/game |", file=out)
    print("|---|---:|---|---|---|---:|", file=out)
    diffs_by_row = []
    for row in rows():
        pairs = [v for (r, _), v in sorted(games.items()) if r == row and base in v and other in v]
        if not pairs:
            continue
        n = len(pairs)
        h = sum(p[base]["outcome"] == "won" for p in pairs)
        s = sum(p[other]["outcome"] == "won" for p in pairs)
        mean, half, var = paired([(p[base]["outcome"] == "won", p[other]["outcome"] == "won") for p in pairs])
        diffs_by_row.append((mean, var))
        hl, hh = wilson(h, n)
        sl, sh = wilson(s, n)
        cpu = sum(p[other]["cpu"] for p in pairs) / n
        print(f"| {row_name(row)} | {n} | {h / n:.0%} [{hl:.0%}-{hh:.0%}] | {s / n:.0%} [{sl:.0%}-{sh:.0%}] "
              f"| {100 * mean:+.0f} [{100 * max(-1, mean - half):+.0f} to {100 * min(1, mean + half):+.0f}] | {cpu:.{0 if cpu >= 1 else 2}f} |",
              file=out)
    if diffs_by_row:
        k = len(diffs_by_row)
        avg = sum(m for m, _ in diffs_by_row) / k
        half = 1.96 * math.sqrt(sum(v for _, v in diffs_by_row)) / k
        worse = sum(1 for m, _ in diffs_by_row if m < 0)
        print(f"\nAverage over {k} rows: {other} - {base} = {100 * avg:+.1f} points [{100 * (avg - half):+.1f} to "
              f"{100 * (avg + half):+.1f}]; rows where {other} won fewer games: {worse}", file=out)


def calibrate(seconds: float = 3.0) -> None:
    """Simulations per second of CPU on this machine, per mode, over decisions taken from real games (best of 3)."""
    content = builtin()
    for mode in ("main", "shamblers"):
        views = []
        for seed in range(8):
            game = Game.new(Setup(mode=mode, seed=seed), content)
            bot = make_bot("heuristic", mode, seed)
            while game.outcome is None and len(views) < 6 * (seed + 1):
                prompt = game.prompt
                view = game.view(prompt.seat)
                if game.step > 10 and len(prompt.options) > 1 and SearchBot(0).begin(view, content).searchable:
                    views.append(view)
                game.apply(prompt.seat, bot.choose(game, prompt.seat))
        best = 0.0
        for _ in range(3):
            sims, start = 0, time.process_time()
            while time.process_time() - start < seconds / 3:
                for view in views[:8]:
                    sims += SearchBot(1).begin(view, content).run(24).sims
            best = max(best, sims / (time.process_time() - start))
        print(f"{mode}: {best:.0f} simulations per CPU second ({len(views)} decisions sampled)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10, help="games per row and bot")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sims", type=int, default=48, help="the search bot's simulations per decision")
    p.add_argument("--think", type=float, help="a time budget per decision instead of --sims (not reproducible)")
    p.add_argument("--jobs", type=int, default=1, help="games played side by side (each on one core)")
    p.add_argument("--mode", choices=["main", "shamblers"], help="only this mode's rows")
    p.add_argument("--only", help="rows whose name contains this (e.g. 'Hastur', 'solo')")
    p.add_argument("--out", type=Path, default=Path("strength.jsonl"), help="one JSON line per game (a run carries on from it)")
    p.add_argument("--bots", default="heuristic,search", help="the bots to play: heuristic, search, policy (the search bot's policy alone)")
    p.add_argument("--compare", default=None, help="the two bots the table compares (default: the first two of --bots)")
    p.add_argument("--report", type=Path, help="print the table of an earlier run and stop")
    p.add_argument("--calibrate", action="store_true", help="print simulations per second on this machine and stop")
    args = p.parse_args()
    if args.calibrate:
        calibrate()
        return 0
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    compare = tuple((args.compare or ",".join(bots[:2])).split(","))
    if len(compare) != 2 or not set(bots) <= {"heuristic", "search", "policy"}:
        p.error("--bots takes heuristic, search and policy; --compare two of them")
    if args.report:
        report(args.report, compare)  # type: ignore[arg-type]
        return 0
    done = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            g = json.loads(line)
            done.add((tuple(g["row"]), g["index"], g["bot"]))
    chosen = [r for r in rows() if (not args.only or args.only in row_name(r)) and (not args.mode or r[0] == args.mode)]
    sims = None if args.think is not None else args.sims
    tasks = [(row, i, bot) for i in range(args.games) for row in chosen for bot in bots if (row, i, bot) not in done]
    print(f"{len(tasks)} games to play ({len(done)} already in {args.out})", file=sys.stderr)
    with args.out.open("a") as out, ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(one_game, row, i, args.seed, bot, sims, args.think) for row, i, bot in tasks]
        for n, f in enumerate(as_completed(futures), 1):
            g = f.result()
            out.write(json.dumps(g) + "\n")
            out.flush()
            if n % 10 == 0:
                print(f"{n}/{len(tasks)} games", file=sys.stderr, flush=True)
    report(args.out, compare)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
