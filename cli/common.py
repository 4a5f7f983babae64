"""Options shared by the commands that open the game interface (`play`, `host`, `join`)."""

from __future__ import annotations

import argparse
import getpass
import sys

NAME_LIMIT = 24


def add_interface_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ascii", action="store_true", help="plain ASCII, no box drawing")
    p.add_argument("--ansi", action="store_true", help="use the terminal's own 16 colors")
    p.add_argument("--theme", default=None, help="a Textual theme name (default textual-dark)")


def theme_of(args: argparse.Namespace) -> str:
    return args.theme or ("ansi-dark" if args.ansi else "textual-dark")


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
