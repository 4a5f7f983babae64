"""`cthulhu content check [PATH]`: validate a content folder and name every problem."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cthulhu.net import clean_text


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("content", help="list the game content, or check a content folder",
                       description="List what games can be set up with, or check a content folder.")
    inner = p.add_subparsers(dest="content_command", metavar="ACTION", required=True)
    check = inner.add_parser(
        "check",
        help="validate a content folder (default: the built-in content)",
        description="Validate a content folder, naming the file, entry and field of every problem.",
    )
    check.add_argument("path", nargs="?", help="a content folder (holding main/ and shamblers/)")
    check.set_defaults(func=run_check)
    listing = inner.add_parser(
        "list",
        help="list what a game can be set up with: episodes, Elder Ones, investigators, difficulty levels",
        description="The ids each game mode accepts for its set-up options (play, host and sim take them).",
    )
    listing.set_defaults(func=run_list)


def run_list(args: argparse.Namespace) -> int:
    from cthulhu.core import modes

    from .common import mode_content

    for mode in modes.all_modes():
        print(f"{mode.title} (--mode {mode.name})")
        for option in mode.options:
            entries = option.listing(mode_content(mode))
            if not entries:
                continue
            print(f"  {option.plural} ({option.flag}):")
            width = max(len(key) for key, _ in entries)
            for key, about in entries:
                print(f"    {key.ljust(width)}  {about}")
        print(f"  bots (--bot): {', '.join(mode.bot_kinds)} (default {mode.default_bot})")
    return 0


def not_content(path: Path, mode_folders: list[str]) -> str | None:
    """Why `path` is no content folder (one line), or None: a content folder holds a folder per game
    mode (`main/`, `shamblers/`) of TOML files. Checked before anything is read (a home folder is not)."""
    if not path.is_dir():
        return f"no content folder at {path}" if not path.exists() else f"{path} is a file, not a content folder"
    if not any((path / name).is_dir() and any((path / name).rglob("*.toml")) for name in mode_folders):
        folders = " or ".join(f"{name}/" for name in mode_folders)
        return f"{path} is not a content folder: it has no {folders} folder of TOML files (see the built-in content/)"
    return None


def run_check(args: argparse.Namespace) -> int:
    from cthulhu.content import read_tree
    from cthulhu.core import ContentError
    from cthulhu.core.content import Content

    from cthulhu.core import modes

    if args.path is not None:
        problem = not_content(Path(args.path), [m.name for m in modes.all_modes() if m.content is not None])
        if problem is not None:
            print(clean_text(f"content check: {problem}"), file=sys.stderr)
            return 2
    try:
        files = read_tree(args.path)
        content = Content.from_files(files)
    except (FileNotFoundError, ValueError) as exc:  # ValueError: a file that is not UTF-8 text (named)
        print(clean_text(f"content check: {exc}"), file=sys.stderr)
        return 2
    except ContentError as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        print(f"content check: {len(exc.problems)} problem(s)", file=sys.stderr)
        return 2
    print(f"content ok: {len(files)} files, version {content.version}")
    for mode in modes.all_modes():
        part = content.modes.get(mode.name)
        if part is not None:
            print(f"  {mode.name}: {mode.describe(part) if mode.describe is not None else 'ok'}")
    return 0
