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
    main = content.main
    print(f"content ok: {len(files)} files, version {content.version}")
    if main is not None:
        print(
            f"  main: {len(main.episodes)} episode(s), {len(main.investigators)} investigator(s), "
            f"{len(main.enemies)} enemy kind(s), {len(main.skills)} skill(s)"
        )
    if content.shamblers is not None:
        sh = content.shamblers
        levels = ", ".join(f"{lv.id} (default)" if lv.id == sh.default_difficulty else lv.id for lv in sh.levels)
        print(f"  shamblers: {len(sh.towns)} Town Cards, difficulty levels {levels}")
    return 0
