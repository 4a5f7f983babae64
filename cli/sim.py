"""`cthulhu sim`: many seeded bot games, summarised; the same seed gives the same output.

With `--jobs N` the games are shared out among N processes; their results are
taken back in game order, so everything printed (and every event written) is
the same as with one process, apart from the timings.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from cthulhu.core import Command, Event, Game, Setup
    from cthulhu.core.bots import Bot
    from cthulhu.core.sim import Played

from .common import BOT_RANGES, SEATS_MAX, SEED_MAX, Range, add_setup_options


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sim",
        help="play many seeded games with bots and summarise them",
        description="Seeded bot games, summarised: the same seed gives the same output (apart from timings).",
    )
    p.add_argument("--games", type=int, default=100, help="how many games (default 100)")
    p.add_argument("--seed", type=int, default=1, help="the seed every game's own seed is drawn from (default 1)")
    add_setup_options(p, bot_default="heuristic", bot_help="the bot that plays every seat (heuristic plays to win; random: any legal choice; "
                      "search: thinks, and gives the same games only with --sims)")
    p.add_argument("--players", type=int, default=1, help="players at each table, 1 to 5 (default 1)")
    p.add_argument("--turn-limit", type=int, default=200, help="turns after which a game counts as unfinished (default 200)")
    p.add_argument("--json", action="store_true", help="print one JSON summary object")
    p.add_argument("--events", metavar="FILE", help="write every event as JSON lines")
    p.add_argument("--jobs", type=int, default=None, help="processes playing games at once (default: one per core); the output is the same")
    p.set_defaults(func=run)


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def setup_for(args: argparse.Namespace, seed: int) -> Setup:
    from cthulhu.core import Setup

    from .common import given_choices

    return Setup(mode=args.mode, seed=seed, players=args.players, options=given_choices(args))


# One game's result: its number, what happened (or the error line), its events as JSON lines.
Result = tuple[int, "Played | str", list[str]]

_ARGS: argparse.Namespace | None = None  # a worker's copy of the command line (`_start_worker`)


def _start_worker(args: argparse.Namespace) -> None:
    global _ARGS
    _ARGS = args


def play_one(args: argparse.Namespace, n: int, coverage: bool) -> Result:
    """Game `n` of the batch; a crash is its error line, never hidden."""
    from cthulhu.core.sim import game_seed, play

    seed = game_seed(args.seed, n)
    lines: list[str] = []

    def write(step: int, evs: list[Event]) -> None:
        lines.extend(json.dumps({"game": n, "step": step, **e.wire()}, sort_keys=True) for e in evs)

    try:
        played = play(setup_for(args, seed), bot=args.bot, turn_limit=args.turn_limit, on_events=write if args.events else None,
                      coverage=coverage, sims=args.sims, decide=_timed(args))
    except Exception as exc:  # counted and reported by the caller
        return n, f"game {n} (seed {seed}): {type(exc).__name__}: {exc}", lines
    return n, played, lines


def _timed(args: argparse.Namespace) -> Callable[[Bot, Game, int], Command] | None:
    """A search bot's choice on a time budget (`--think`, default 1 s), the clock kept here, outside the
    rules core; None for `--sims` (the core counts those itself) and for bots that do not search."""
    if args.bot != "search" or args.sims is not None:
        return None
    from cthulhu.net import decide

    from .common import thinking_of

    thinking = thinking_of(args)
    return lambda bot, game, seat: decide(bot, game, seat, thinking)


def _in_worker(job: tuple[int, bool]) -> Result:
    assert _ARGS is not None, "worker started without its arguments"
    return play_one(_ARGS, *job)


def results(args: argparse.Namespace, jobs: int, coverage: bool) -> Iterator[Result]:
    """Every game's result, in game order, played by `jobs` processes (1: this one)."""
    if jobs == 1 or args.games == 1:
        for n in range(args.games):
            yield play_one(args, n, coverage)
        return
    import multiprocessing

    # Forked workers start at once with the content already loaded; spawned ones where there is no fork.
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    chunk = max(1, min(64, args.games // (jobs * 8)))
    with context.Pool(min(jobs, args.games), _start_worker, (args,)) as pool:
        yield from pool.imap(_in_worker, ((n, coverage) for n in range(args.games)), chunk)


RANGES: dict[str, Range] = {
    "games": (1, 10**7, ""),
    "seed": (0, SEED_MAX, ""),
    "players": (1, SEATS_MAX, ""),
    "turn_limit": (1, 10**6, " turns"),
    "jobs": (1, 1024, " processes"),
    **BOT_RANGES,
}


def run(args: argparse.Namespace) -> int:
    from cthulhu.core import modes
    from cthulhu.core.sim import coverage_report, game_seed

    from .common import choice_problem, given_choices, out_of_range, refuse, thinking_of, thinking_problem

    problem = out_of_range(args, RANGES) or thinking_problem(args) or choice_problem(args.mode, given_choices(args), args.bot)
    if problem is not None:
        return refuse("sim", problem)
    jobs = cores() if args.jobs is None else args.jobs

    # Choices that no game can be played with are one line and exit 2, not an error per game.
    from .play import one_line

    try:
        from cthulhu.core import Game

        first = Game.new(setup_for(args, game_seed(args.seed, 0)))
    except ValueError as exc:
        print(f"cthulhu sim: {one_line(exc)}", file=sys.stderr)
        return 2
    # The level played, for modes with difficulty levels (the content's default when none was named).
    level = first.view(None)["difficulty"]["id"] if modes.get(args.mode).option("difficulty") is not None else None
    events_out = open(args.events, "w", encoding="utf-8") if args.events else None
    outcomes: Counter[str] = Counter()
    causes: Counter[str] = Counter()
    errors: list[str] = []
    commands = turns = finished = summoned = 0
    digest = hashlib.blake2b(digest_size=16)
    used: Counter[str] = Counter()
    entries = _coverage_entries(args)
    started = time.perf_counter()
    for _, played, lines in results(args, jobs, entries is not None):
        if events_out is not None:
            events_out.writelines(line + "\n" for line in lines)
        if isinstance(played, str):
            errors.append(played)
            continue
        outcomes[played.outcome] += 1
        if played.outcome != "turn_limit":
            finished += 1
        if played.cause and played.outcome == "lost":
            causes[played.cause] += 1
        commands += played.commands
        turns += played.turns
        summoned += played.summoned
        used.update(played.coverage)
        digest.update(played.final_hash.encode())
    seconds = time.perf_counter() - started
    if events_out:
        events_out.close()
    played_games = args.games - len(errors)
    summary = {
        "mode": args.mode,
        **({"difficulty": level} if level is not None else {}),
        "bot": args.bot,
        **({"sims": args.sims} if args.bot == "search" and args.sims is not None else {}),
        **({"think": thinking_of(args).seconds} if args.bot == "search" and args.sims is None else {}),
        "games": args.games,
        "finished": finished,
        "errors": len(errors),
        "outcomes": dict(sorted(outcomes.items())),
        "win_rate": round(outcomes["won"] / played_games, 4) if played_games else 0.0,
        "mean_turns": round(turns / played_games, 2) if played_games else 0.0,
        "summoned_share": round(summoned / played_games, 4) if played_games else 0.0,
        "loss_causes": dict(causes.most_common()),
        "commands": commands,
        "seconds": round(seconds, 3),
        "games_per_second": round(args.games / seconds, 1) if seconds else None,
        "digest": digest.hexdigest(),
    }
    if entries is not None:
        summary["content_coverage"] = coverage_report(used, entries)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print("\n".join(readable(summary, args)))
    for line in errors[:10]:
        print(line, file=sys.stderr)
    return 1 if errors else 0


def _share(n: int, games: int) -> str:
    return f"{n} ({n / games:.1%})" if games else str(n)


def readable(summary: dict[str, Any], args: argparse.Namespace) -> list[str]:
    """The summary in sentences (`--json` has every field as it is)."""
    from cthulhu.core import modes

    games, played = summary["games"], summary["games"] - summary["errors"]
    outcomes = summary["outcomes"]
    level = f" ({summary['difficulty']} level)" if "difficulty" in summary else ""
    people = f"{args.players} player{'s' if args.players != 1 else ''} a table"
    thinks = (f" ({summary['sims']} simulations a decision)" if "sims" in summary
              else f" ({summary['think']:g} s a decision: not reproducible, --sims is)" if "think" in summary else "")
    lines = [f"{modes.get(summary['mode']).title}{level}: {games} game{'s' if games != 1 else ''}, the {summary['bot']} bot{thinks} "
             f"in every seat, {people}, from seed {args.seed}."]
    unfinished = outcomes.get("turn_limit", 0)
    lines.append(f"Won {_share(outcomes.get('won', 0), played)}, lost {_share(outcomes.get('lost', 0), played)}"
                 + (f", {unfinished} unfinished after {args.turn_limit} turns" if unfinished else "")
                 + f"; a game lasts {summary['mean_turns']:g} turns on average.")
    if summary["summoned_share"]:
        lines.append(f"The Elder One took the board in {summary['summoned_share']:.1%} of the games.")
    endings = modes.get(summary["mode"]).endings
    for cause, n in summary["loss_causes"].items():  # in the mode's words, as the game-over summary says it
        ending = endings.get(cause, cause.replace("_", " ")).format(elder="the Elder One")
        lines.append(f"Lost {_share(n, played)}: {ending[:1].upper()}{ending[1:]}{'' if ending.endswith('.') else '.'}")
    if summary["errors"]:
        lines.append(f"{summary['errors']} game{'s' if summary['errors'] != 1 else ''} failed with an error (listed on stderr).")
    coverage = summary.get("content_coverage")
    if coverage is not None:
        total = sum(len(v) for k, v in coverage.items() if k != "unused")
        # "mythos:Chalk on the Door" -> its name; "enemy_ability:fire_vampire:ignite" -> "fire vampire ignite"
        unused = ", ".join(name.split(":", 1)[1].replace("_", " ").replace(":", " ") for name in coverage["unused"]) or "none"
        lines.append(f"Content used: {total - len(coverage['unused'])} of {total} cards, actions and abilities (never used: {unused}).")
    speed = f", {summary['games_per_second']:g} games a second" if summary["games_per_second"] else ""
    lines.append(f"{summary['commands']:,} commands in {summary['seconds']:g} s{speed}.")
    lines.append(f"Digest {summary['digest']}: the same options and seed always give the same digest.")
    return lines


def _coverage_entries(args: argparse.Namespace) -> dict[str, list[str]] | None:
    """The entries a game of the chosen (or default) setup can use, when the mode lists them."""
    from cthulhu.content import builtin
    from cthulhu.core import Setup, modes

    hook = modes.get(args.mode).coverage
    if hook is None:
        return None
    from .common import given_choices

    return hook(builtin(), Setup(mode=args.mode, players=args.players, options=given_choices(args)))
