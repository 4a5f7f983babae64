"""`cthulhu odds`: the exact chances of a main-game roll, from the built-in dice faces."""

from __future__ import annotations

import argparse
import json

from .common import Range


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "odds",
        help="the exact chances of a roll: each number of successes, and of reaching what it needs",
        description="The exact chance of each number of successes on a roll of the game's dice (content/main/dice.toml), "
        "and of reaching --need, with up to --rerolls rerolls played as well as possible "
        "(a failed die rerolled while the roll is short, one at a time).",
    )
    p.add_argument("--dice", type=int, default=3, help="standard (black) dice (default 3, an investigator's roll)")
    p.add_argument("--bonus", type=int, default=0, help="bonus (green) dice on top (default 0)")
    p.add_argument("--need", type=int, default=1, help="the successes the roll needs (default 1)")
    p.add_argument("--rerolls", type=int, default=0, help="rerolls that may be made, one die at a time (free ones and stress; default 0)")
    p.add_argument("--elder-hits", action="store_true", help="elder signs count as successes (an attack with that skill)")
    p.add_argument("--json", action="store_true", help="print {distribution, p_need, ...} as one JSON object")
    p.set_defaults(func=run)


RANGES: dict[str, Range] = {"dice": (0, 12, ""), "bonus": (0, 12, ""), "need": (0, 30, ""), "rerolls": (0, 12, "")}


def run(args: argparse.Namespace) -> int:
    from cthulhu.content import builtin
    from cthulhu.core.main.odds import die_of
    from cthulhu.core.odds import at_least, best_chance, policy_distribution

    from .common import out_of_range, refuse

    problem = out_of_range(args, RANGES)
    if problem is None and args.dice + args.bonus < 1:
        problem = "--dice and --bonus: at least one die in all"
    if problem is not None:
        return refuse("odds", problem)
    faces = builtin().main.dice
    purpose = "attack" if args.elder_hits else "check"
    mods = {"elder_hits": args.elder_hits}
    dice = [die_of(faces.standard, purpose, mods)] * args.dice + [die_of(faces.bonus, purpose, mods)] * args.bonus
    dist = policy_distribution(dice, args.need, args.rerolls)  # exact, over counts of values: 12 + 12 dice, 12 rerolls in ~0.3 s
    p_need = at_least(dist, args.need)  # the policy's chance of the goal is best_chance's
    if args.json:
        print(json.dumps({
            "dice": args.dice, "bonus": args.bonus, "need": args.need, "rerolls": args.rerolls, "elder_hits": args.elder_hits,
            "distribution": [float(p) for p in dist], "p_need": float(p_need),
            "p_need_exact": f"{p_need.numerator}/{p_need.denominator}",
        }))
        return 0
    what = f"{args.dice} standard + {args.bonus} bonus dice" + (", elder signs count" if args.elder_hits else "")
    print(what + (f", up to {args.rerolls} reroll(s) played to reach {args.need}" if args.rerolls else ""))
    for k, p in enumerate(dist):
        print(f"  {k} success{'es' if k != 1 else ''}: {100 * float(p):5.1f}%")
    print(f"{args.need} success{'es' if args.need != 1 else ''} needed: {100 * float(p_need):.1f}%")
    if args.rerolls:
        without = best_chance(dice, args.need, 0)
        print(f"  (without rerolls: {100 * float(without):.1f}%)")
    return 0
