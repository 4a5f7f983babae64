"""Options shared by the commands that open the game interface (`play`, `host`, `join`)."""

from __future__ import annotations

import argparse
import getpass
import sys

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

    from cthulhu.net.saves import load, resume

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
    from cthulhu.net.textclean import clean_text

    print(clean_text(f"cthulhu {command}: {message}"), file=sys.stderr)
    return 2


# The set-up choices a mode may read (`Mode.choices`): the option that names each, and what it picks.
CHOICE_OPTIONS = {
    "episode": ("--episode", "episode"),
    "elder_one": ("--elder-one", "Elder One"),
    "investigators": ("--investigators", "investigator"),
    "difficulty": ("--difficulty", "difficulty"),
}


def given_choices(args: argparse.Namespace) -> dict[str, list[str]]:
    """The set-up choices named on the command line, as lists of ids (investigators are comma-separated)."""
    out: dict[str, list[str]] = {}
    for name in CHOICE_OPTIONS:
        value = getattr(args, name, None)
        if value:
            out[name] = [v.strip() for v in value.split(",") if v.strip()] if name == "investigators" else [value]
    return out


def choice_problem(mode_name: str, chosen: dict[str, list[str]]) -> str | None:
    """One line naming a set-up id the content does not have (and the ones it has), or a choice the
    mode does not read; None when every choice is good. Loads the built-in content."""
    from cthulhu.content import builtin
    from cthulhu.core import modes
    from cthulhu.core.setup import CHOICES

    mode = modes.get(mode_name)
    listing = mode.listing(builtin().modes[mode.name]) if mode.listing is not None else {}
    for name, values in chosen.items():
        option, what = CHOICE_OPTIONS[name]
        if name not in mode.choices:
            takers = [m for m in modes.all_modes() if name in m.choices]
            where = " or ".join(f"{m.title} mode (--mode {m.name})" for m in takers) or "no mode"
            return f"{option}: {CHOICES[name]} for {where}"
        known = [key for key, _ in listing.get(name, [])]
        for value in values:
            if known and value not in known:
                return f"{option}: unknown {what} {value!r}; choose from {', '.join(known)}"
    return None
