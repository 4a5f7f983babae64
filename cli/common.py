"""Options shared by the commands that open the game interface (`play`, `host`, `join`)."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cthulhu.core import Mode, Setup
    from cthulhu.core.choices import SetupOption
    from cthulhu.core.search import Thinking
    from cthulhu.table import Pace

NAME_LIMIT = 24
THEME_NAMES = ("dark", "ansi")  # the themes of cthulhu.tui.themes (named here: headless commands import no Textual)


def add_interface_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ascii", action="store_true", help="plain ASCII only, no box drawing (the default when the locale is not UTF-8)")
    p.add_argument("--ansi", action="store_true", help="the terminal's own 16 colors (the same as --theme ansi)")
    p.add_argument("--theme", choices=THEME_NAMES, default=None, help=f"color theme: {', '.join(THEME_NAMES)} (default {THEME_NAMES[0]})")
    p.add_argument("--no-hints", action="store_true", help="no first-game hints in the prompt bar")


def theme_of(args: argparse.Namespace) -> str:
    return args.theme or ("ansi" if args.ansi else "dark")


def default_name() -> str:
    """The login name (what others see at the table and in chat), else "player"."""
    try:
        name = getpass.getuser()
    except Exception:  # no login name (e.g. a container without a passwd entry)
        return "player"
    name = "".join(c for c in name if c.isprintable()).strip()[:NAME_LIMIT]
    return name or "player"


def check_save(path: object) -> None:
    """Read and replay a save to carry on, every hash checked: a damaged or edited one is a `SaveError`
    here, so `play --load` and `host --load` say so in one line before any screen opens."""
    from pathlib import Path

    from cthulhu.savegame import load, resume

    resume(load(Path(str(path))))


SEED_MAX = 2**63 - 1  # a seed is 63 bits (`Setup.seed`)
PORT_MAX = 65535
SEATS_MAX = 5  # `Setup.players`
Range = tuple[float, float, str]  # low, high, and the unit the message names ("" for none)


def out_of_range(args: argparse.Namespace, ranges: dict[str, Range]) -> str | None:
    """One line naming the first numeric option given outside its range (NaN and infinity included),
    or None when every one is in range. `ranges` maps an option's `dest` to (low, high, unit)."""
    import math

    for dest, (low, high, unit) in ranges.items():
        value = getattr(args, dest, None)
        if value is None:
            continue
        if not math.isfinite(value) or not low <= value <= high:
            shown = [f"{int(x)}" if float(x).is_integer() else f"{x:g}" for x in (low, high)]
            return f"--{dest.replace('_', '-')} must be {shown[0]} to {shown[1]}{unit}, not {value:g}"
    return None


def refuse(command: str, message: str) -> int:
    """One cleaned line on stderr (it may quote a file or a peer) and the exit status for a refusal (2)."""
    from cthulhu.net import clean_text

    print(clean_text(f"cthulhu {command}: {message}"), file=sys.stderr)
    return 2


class SetUpFlag(argparse.Action):
    """Stores the value and notes the flag as given: a loaded game keeps its own set-up, so a
    set-up flag given with `--load` is refused by name (`ignored_with_load`), never silently dropped."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        given = getattr(namespace, "setup_flags_given", [])
        namespace.setup_flags_given = [*given, option_string or self.dest]


def ignored_with_load(args: argparse.Namespace) -> str | None:
    """One line naming a set-up flag given with `--load` (the save's own set-up wins), or None."""
    given = getattr(args, "setup_flags_given", [])
    if not args.load or not given:
        return None
    return f"{given[0]} cannot be used with --load: a loaded game keeps the set-up it was saved with"


def add_setup_options(p: argparse.ArgumentParser, *, bot_default: str | None = None, bot_help: str = "the kind of the bots") -> None:
    """`--mode`, a flag for every set-up choice a registered mode declares (`Mode.options`: its help
    names the modes that read it and, when help is shown, the ids the content has; the house rule
    `--advice` is one of them) and the bot options (`add_bot_options`)."""
    from cthulhu.core import modes

    names = modes.names()
    p.add_argument("--mode", choices=names, default=names[0], action=SetUpFlag, help="the game: " + ", ".join(names) + f" (default {names[0]})")
    declared: dict[str, tuple[SetupOption, list[str]]] = {}
    for mode in modes.all_modes():
        for option in mode.options:
            declared.setdefault(option.name, (option, []))[1].append(mode.title)
    for name, (option, titles) in declared.items():
        listed = ", comma-separated" if option.many else ""
        p.add_argument(option.flag, dest=name, action=SetUpFlag, help=f"{option.help} ({' or '.join(titles)}){listed}: {{ids:{name}}}")
    add_bot_options(p, default=bot_default, about=bot_help)


def add_pace_options(p: argparse.ArgumentParser, prefix: str = "") -> None:
    """`--turn-time` and `--on-timeout`: a turn-based table (`table.spec.Pace`)."""
    p.add_argument("--turn-time", metavar="DURATION", default=None,
                   help=f"{prefix}a turn-based table: each decision has this long (90s, 12h, 3d, 1h30m); default: live, no clock")
    p.add_argument("--on-timeout", choices=["stand-in", "skip", "pause"], default=None,
                   help=f"{prefix}when a clock runs out: the stand-in bot plays the rest of that turn (stand-in, the default), "
                        "the decision is passed over where the rules allow (skip), or the table waits (pause); a table where "
                        "no person decides for a whole round pauses until one is back")
    p.add_argument("--away-after", metavar="N", type=int, default=None,
                   help=f"{prefix}with --on-timeout stand-in: after N missed turns in a row the stand-in keeps the seat until "
                        "its player is back (b, or joining again); default 3")


def pace_of(args: argparse.Namespace) -> Pace:
    """The pace the flags ask for; ValueError with one line (a bad duration, a policy without a clock)."""
    from cthulhu.net import AWAY_AFTER, parse_duration
    from cthulhu.table import Pace

    if args.turn_time is None:
        for given in ("on_timeout", "away_after"):
            if getattr(args, given) is not None:
                raise ValueError(f"--{given.replace('_', '-')} goes with --turn-time (a live table has no clock to run out)")
        return Pace()
    try:
        seconds = parse_duration(args.turn_time)
    except ValueError as exc:
        raise ValueError(f"--turn-time: {exc}") from None
    if args.away_after is not None and args.on_timeout not in (None, "stand-in"):
        raise ValueError(f"--away-after goes with --on-timeout stand-in ({args.on_timeout} never hands a seat to a stand-in)")
    return Pace(turn_time=seconds, on_timeout=args.on_timeout or "stand-in", away_after=AWAY_AFTER if args.away_after is None else args.away_after)


def given_choices(args: argparse.Namespace) -> dict[str, str | list[str]]:
    """The set-up choices named on the command line, by option (a list option's ids are comma-separated)."""
    from cthulhu.core import modes

    out: dict[str, str | list[str]] = {}
    for mode in modes.all_modes():
        for option in mode.options:
            value = getattr(args, option.name, None)
            if value and option.name not in out:
                out[option.name] = option.parse(value)
    return out


def mode_content(mode: Mode) -> Any:
    """The part of the built-in content a mode's option values are read from (None: it has none)."""
    from cthulhu.content import builtin

    return builtin().modes.get(mode.name)


def setup_facts(setup: Setup, summary: Mapping[str, object]) -> list[tuple[SetupOption, str]]:
    """Each set-up choice the setup's mode declares, with what this game has for it: by name where
    the save's summary names it (the mode's `summary` hook), else the ids chosen, else "default"."""
    from cthulhu.core import modes

    if setup.mode not in modes.names():
        return []
    out = []
    for option in modes.get(setup.mode).options:
        value = setup.options.get(option.name)
        named = summary.get(option.name)
        shown = str(named) if named else ", ".join(value) if isinstance(value, list) else value or "default"
        out.append((option, shown))
    return out


def choice_problem(mode_name: str, chosen: dict[str, str | list[str]], bot: str | None = None) -> str | None:
    """One line naming a set-up id the content does not have (and the ones it has), a choice the
    mode does not read, or a bot it does not have; None when every choice is good."""
    from cthulhu.core import modes

    mode = modes.get(mode_name)
    for name, value in chosen.items():
        option = mode.option(name)
        if option is None:
            takers = [(m, o) for m in modes.all_modes() for o in m.options if o.name == name]
            where = " or ".join(f"{m.title} mode (--mode {m.name})" for m, _ in takers) or "no mode"
            plural = takers[0][1].plural if takers else name
            return f"--{name.replace('_', '-')}: {plural} are for {where}"
        known = [choice.id for choice in option.values(mode_content(mode))]
        for one in value if isinstance(value, list) else [value]:
            if known and one not in known:
                return f"{option.flag}: unknown {option.noun} {one!r}; choose from {', '.join(known)}"
    if bot is not None and bot not in mode.bot_kinds:
        return f"--bot: {mode.title} mode has no {bot!r} bot; choose from {', '.join(mode.bot_kinds)}"
    return None


def add_bot_options(p: argparse.ArgumentParser, *, default: str | None, about: str) -> None:
    """`--bot KIND` (every kind some mode declares in `Mode.bots`; a mode's own is checked when the
    command runs) and a search bot's budget, `--think SECONDS` or `--sims N`. Every command that takes a bot."""
    from cthulhu.core import modes
    from cthulhu.core.search import DEFAULT_SECONDS

    kinds = modes.bot_kinds()
    shown = f" (default {default})" if default else " (default: the mode's own)"
    p.add_argument("--bot", choices=kinds, default=default, help=f"{about}: {', '.join(kinds)}{shown}")
    p.add_argument("--think", type=float, metavar="SECONDS",
                   help=f"how long a search bot thinks per decision (default {DEFAULT_SECONDS:g}; it thinks off the host's loop)")
    p.add_argument("--sims", type=int, metavar="N",
                   help="a search bot's simulations per decision instead of a time: the same game on any machine")


BOT_RANGES: dict[str, Range] = {"think": (0.01, 600, " seconds"), "sims": (1, 10**6, "")}  # every command's RANGES takes these


def thinking_problem(args: argparse.Namespace) -> str | None:
    """One line when both budgets are given (their ranges are `BOT_RANGES`), or None."""
    if args.think is not None and args.sims is not None:
        return "--think and --sims: give one of them (a time, or a number of simulations)"
    return None


def thinking_of(args: argparse.Namespace) -> Thinking:
    from cthulhu.core.search import DEFAULT_SECONDS, Thinking

    return Thinking(sims=args.sims, seconds=args.think if args.think is not None else DEFAULT_SECONDS)
