"""The `cthulhu` command line: one module per subcommand, each with `register(sub)` and `run(args)`.

Headless commands (`sim`, `content check`, `saves`, `replay`, `host --headless`,
`join --headless`) never import Textual: only the commands that open the game
interface import `cthulhu.tui`, inside their `run` (a test holds this).
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = ("play", "sim", "content", "saves", "replay", "host", "join")


def mode_names() -> list[str]:
    """Every registered game mode (for `--mode`), the default first."""
    from cthulhu.core import modes

    return modes.names()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cthulhu", description="A cooperative Lovecraftian board game for the terminal.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv = ["play", *argv]  # `cthulhu --seed 3` means `cthulhu play --seed 3`
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["play"])
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`cthulhu replay ... | head`): not an error worth a traceback.
        sys.stderr.close()
        return 0
