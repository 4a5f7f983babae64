"""`cthulhu play`: a game at this terminal (solo by default, hot-seat and bots on request)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play at this terminal (the default command)")
    p.add_argument("--seed", type=int, help="game seed (default: a random one, shown on screen)")
    p.add_argument("--mode", choices=["main", "shamblers"], default="main")
    p.add_argument("--episode")
    p.add_argument("--elder-one")
    p.add_argument("--investigators", help="comma-separated investigator ids, e.g. ada_whitlock,mina_castellane")
    p.add_argument("--players", type=int, default=1, help="people taking turns at this terminal (hot-seat)")
    p.add_argument("--bots", type=int, default=0, help="seats played by bots")
    p.add_argument("--bot", choices=["random", "heuristic"], default="heuristic", help="which bot plays the bot seats")
    p.add_argument("--load", metavar="FILE", help="carry on a saved game")
    p.add_argument("--saves", metavar="DIR", help="where saves go (default: the checkout's saves/ or the user data folder)")
    p.add_argument("--ascii", action="store_true", help="plain ASCII, no box drawing")
    p.add_argument("--ansi", action="store_true", help="use the terminal's own 16 colors")
    p.add_argument("--theme", default=None, help="a Textual theme name (default textual-dark)")
    p.add_argument("--start", action="store_true", help="skip the title screen")
    p.add_argument("--local", action="store_true", help="play in this process without the embedded host (no sockets)")
    p.set_defaults(func=run)


def _saves_dir(arg: str | None) -> Path | None:
    try:
        from cthulhu.net.savedir import default_saves_dir
    except ImportError:
        return Path(arg) if arg else None
    return default_saves_dir(arg)


def options_from(args: argparse.Namespace):
    from .options import PlayOptions

    if args.players < 1 or args.players > 5:
        raise SystemExit("cthulhu play: --players must be 1 to 5")
    if args.bots < 0 or args.players + args.bots > 5:
        raise SystemExit("cthulhu play: at most 5 seats in all (--players + --bots)")
    if args.seed is not None and not 0 <= args.seed < 2**63:
        raise SystemExit("cthulhu play: --seed must be between 0 and 2**63-1")
    load = None
    if args.load:
        try:
            from cthulhu.net.savedir import resolve_save

            load = resolve_save(args.load, args.saves)
        except ImportError:
            raise SystemExit("cthulhu play: --load needs the saves module, which this build lacks")
        if not load.exists():
            raise SystemExit(f"cthulhu play: no save at {load}")
    theme = args.theme or ("ansi-dark" if args.ansi else "textual-dark")
    return PlayOptions(
        mode=args.mode,
        seed=args.seed,
        episode=args.episode,
        elder_one=args.elder_one,
        investigators=tuple(i.strip() for i in args.investigators.split(",") if i.strip()) if args.investigators else (),
        players=args.players,
        bots=args.bots,
        bot_kind=args.bot,
        ascii=args.ascii,
        theme=theme,
        load=load,
        saves_dir=_saves_dir(args.saves),
        skip_title=args.start,
        local=args.local,
    )


def run(args: argparse.Namespace) -> int:
    options = options_from(args)
    if not sys.stdout.isatty() and not os.environ.get("TEXTUAL_DRIVER"):  # a driver (textual-serve) needs no terminal
        print("cthulhu play needs a terminal; try `cthulhu sim` for games without one.", file=sys.stderr)
        return 2
    from cthulhu.core import ContentError

    try:
        from cthulhu.content import builtin

        builtin()
    except ContentError as exc:
        print("cthulhu play: the built-in content does not load:", file=sys.stderr)
        for line in exc.problems:
            print(f"  {line}", file=sys.stderr)
        return 2
    from .app import run as run_app

    return run_app(options)
