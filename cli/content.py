"""`cthulhu content check [PATH]`: validate a content folder and name every problem."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("content", help="check content folders")
    inner = p.add_subparsers(dest="content_command", metavar="ACTION", required=True)
    check = inner.add_parser("check", help="validate a content folder (default: the built-in content)")
    check.add_argument("path", nargs="?", help="a content folder (holding main/ and shamblers/)")
    check.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    from cthulhu.content import read_tree
    from cthulhu.core import ContentError
    from cthulhu.core.content import Content

    try:
        files = read_tree(args.path)
        content = Content.from_files(files)
    except FileNotFoundError as exc:
        print(f"content check: {exc}", file=sys.stderr)
        return 2
    except ContentError as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        print(f"content check: {len(exc.problems)} problem(s)", file=sys.stderr)
        return 2
    from cthulhu.core import modes

    print(f"content ok: {len(files)} files, version {content.version}")
    for mode in modes.all_modes():
        part = content.modes.get(mode.name)
        if part is not None:
            print(f"  {mode.name}: {mode.describe(part) if mode.describe is not None else 'ok'}")
    return 0
