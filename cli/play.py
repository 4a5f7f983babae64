"""`cthulhu play`: a game at this terminal (solo by default, hot-seat and bots on request)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cthulhu.tui.options import PlayOptions

from .common import (
    BOT_RANGES, SEATS_MAX, SEED_MAX, Range, SetUpFlag, add_interface_options, add_setup_options, check_save, choice_problem,
    given_choices, ignored_with_load, out_of_range, refuse, theme_of, thinking_of, thinking_problem,
)
from .reader import add_reader_option


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "play",
        help="play at this terminal (the default command)",
        description="A game at this terminal: alone (two investigators), hot-seat, or with bots. "
        "`cthulhu content list` shows the ids the set-up options take.",
    )
    p.add_argument("--seed", type=int, action=SetUpFlag, help="game seed (default: a random one, shown on screen)")
    add_setup_options(p, bot_help="which bot plays the bot seats")
    p.add_argument("--players", type=int, default=1, action=SetUpFlag, help="people taking turns at this terminal (hot-seat)")
    p.add_argument("--bots", type=int, default=0, action=SetUpFlag, help="seats played by bots")
    p.add_argument("--bot-delay", type=float, default=0.5, metavar="SECONDS",
                   help="a pause before each bot move, so you can follow it (default 0.5; 0: at once)")
    p.add_argument("--load", metavar="FILE", help="carry on a saved game: a path, or a name from `cthulhu saves`")
    p.add_argument("--saves", metavar="DIR", help="where saves go (default: the checkout's saves/ or the user data folder)")
    add_interface_options(p)
    add_reader_option(p)
    p.add_argument("--start", action="store_true", help="skip the title screen")
    p.set_defaults(func=run)


RANGES: dict[str, Range] = {
    "seed": (0, SEED_MAX, ""),
    "players": (1, SEATS_MAX, ""),
    "bots": (0, SEATS_MAX - 1, ""),
    "bot_delay": (0, 60, " seconds"),
    **BOT_RANGES,
}


def _saves_dir(arg: str | None) -> Path | None:
    from cthulhu.savegame.folder import default_saves_dir

    return default_saves_dir(arg)


def options_from(args: argparse.Namespace) -> PlayOptions:
    from cthulhu.tui.options import PlayOptions

    problem = out_of_range(args, RANGES)
    if problem is None and args.players + args.bots > SEATS_MAX:
        problem = f"at most {SEATS_MAX} seats in all (--players + --bots)"
    if problem is not None:
        raise SystemExit(refuse("play", problem))  # one line, status 2
    load = None
    if args.load:
        from cthulhu.savegame import SaveError, find_save, hold

        try:
            load = find_save(args.load, args.saves)
            hold(load)  # before the terminal check: a second process is told who has the save
            check_save(load)  # damaged or edited: one line, before any screen
        except SaveError as exc:
            raise SystemExit(refuse("play", str(exc))) from None
    theme = theme_of(args)
    return PlayOptions(
        mode=args.mode,
        seed=args.seed,
        choices=given_choices(args),
        players=args.players,
        bots=args.bots,
        bot_kind=args.bot,
        bot_delay=args.bot_delay,
        thinking=thinking_of(args),
        hints=not args.no_hints,
        ascii=args.ascii,
        theme=theme,
        load=load,
        saves_dir=_saves_dir(args.saves),
        skip_title=args.start,
    )


def setup_problem(options: PlayOptions, content: Any) -> str | None:
    """Why a new game cannot start with these choices (one line), or None when it can."""
    from cthulhu.core import Game

    try:
        Game.new(options.setup(), content)
    except ValueError as exc:
        return one_line(exc)
    return None


def one_line(exc: Exception) -> str:
    """An error for a person: pydantic's first message without its preamble, anything else as it reads."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        error = exc.errors(include_url=False)[0]
        message = error["msg"].removeprefix("Value error, ")
        field = ".".join(str(part) for part in error["loc"])  # empty for a check of the whole setup
        return f"--{field.replace('_', '-')}: {message[:1].lower()}{message[1:]}" if field else message
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def run(args: argparse.Namespace) -> int:
    problem = ignored_with_load(args) or thinking_problem(args) or choice_problem(args.mode, given_choices(args), args.bot)
    if problem is not None:
        return refuse("play", problem)
    options = options_from(args)
    from cthulhu.core import ContentError

    try:
        from cthulhu.content import builtin

        content = builtin()
    except ContentError as exc:
        print("cthulhu play: the built-in content does not load:", file=sys.stderr)
        for line in exc.problems:
            print(f"  {line}", file=sys.stderr)
        return 2
    problem = None if options.load is not None else setup_problem(options, content)
    if problem is not None:
        print(f"cthulhu play: {problem}", file=sys.stderr)
        return 2
    if args.reader:  # plain lines: a pipe will do
        from .reader import play

        return play(options, content)
    if not sys.stdout.isatty() and not os.environ.get("TEXTUAL_DRIVER"):  # a driver (textual-serve) needs no terminal
        print("cthulhu play needs a terminal; try `cthulhu play --reader` (plain lines) or `cthulhu sim` for games without one.", file=sys.stderr)
        return 2
    from cthulhu.tui.app import run as run_app

    from .embedded import table_link

    return run_app(options, table_link)
