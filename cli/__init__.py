"""The `cthulhu` command line: one module per subcommand, each with `register(sub)` and `run(args)`.

Headless commands (`sim`, `content check`, `saves`, `replay`, `host --headless`, `server`, `tables`,
`records`, `challenge --show` and `challenge HOST`, `join --headless`) never import Textual: only the commands that open the game
interface import the app (`cthulhu.tui.app`), inside their `run`; `replay` tells a
save's story with the modes' narrators, which are Rich text (a test holds this).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from typing import Any, NoReturn

SUBCOMMANDS = ("play", "sim", "odds", "content", "saves", "replay", "host", "join", "server", "tables", "records", "challenge")


class HelpFormatter(argparse.HelpFormatter):
    """Help that names the valid ids: `{ids:CHOICE}` in an option's help becomes the ids the built-in
    content has for that set-up choice (the content is read only when help is shown); and every
    option's default, where its own help does not already say it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = super()._get_help_string(action) or ""
        text = re.sub(r"\{ids:(\w+)\}", lambda m: ", ".join(setup_ids(m.group(1))), text)
        default = action.default
        if action.option_strings and default is not None and default is not False and default not in ("", [], argparse.SUPPRESS) \
                and "default" not in text:
            text += f" (default {action.default})"  # every option says what it is when not given
        return text


def setup_ids(choice: str) -> list[str]:
    """Every id a registered mode offers for a set-up choice ("episode", "difficulty"...)."""
    from cthulhu.core import modes

    from .common import mode_content

    ids: list[str] = []
    for mode in modes.all_modes():
        option = mode.option(choice)
        if option is not None:
            ids += [c.id for c in option.values(mode_content(mode)) if c.id not in ids]
    return ids


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """One line naming the problem (argparse's names the bad value and the choices), and status 2."""
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


class VersionAction(argparse.Action):
    """`--version`: the installed package's version, the one saves record (read only when asked)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        from cthulhu.savegame.writer import rules_version

        print(f"cthulhu {rules_version()}")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="cthulhu", description="A cooperative Lovecraftian board game for the terminal.")
    parser.add_argument("--version", action=VersionAction, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
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
