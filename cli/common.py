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


def refuse(command: str, message: str) -> int:
    """One cleaned line on stderr (it may quote a file or a peer) and the exit status for a refusal (2)."""
    from cthulhu.net.textclean import clean_text

    print(clean_text(f"cthulhu {command}: {message}"), file=sys.stderr)
    return 2
