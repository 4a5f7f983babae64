"""`cthulhu saves`: list the saves in a folder (damaged ones with the reason), delete one (`--delete`)
or the finished and empty ones (`--prune`). A save a running game holds (net/savelock.py) is never touched."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from cthulhu.net import output_width, when_words
from cthulhu.net import clean_text


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("saves", help="list saved games (and delete them)",
                       description="List the saved games in the saves folder; delete one, or the finished and empty ones. "
                       "A save a running game holds is never deleted.")
    p.add_argument("--saves", metavar="DIR", help="the saves folder (default: saves/ in a checkout, else the user data dir)")
    p.add_argument("--json", action="store_true", help="print the saves as one JSON array (an object per save) instead of a table")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--delete", metavar="NAME", action="append",
                      help="delete this save (a name as listed, or a path); may be given more than once")
    what.add_argument("--prune", action="store_true", help="delete every finished save, and every one nobody played a move in")
    p.set_defaults(func=run)


def _who(save: Any) -> str:
    """'Hastur / The Wexley Mill Fire / advice off': the game's one-id set-up choices (its mode's own,
    by name where the save's summary names them, else as the option and its id), else the mode's title."""
    from .common import setup_facts

    summary = save.header.summary
    facts = [shown if summary.get(option.name) else f"{option.label.lower()} {shown}"
             for option, shown in setup_facts(save.setup, summary)
             if not option.many and (summary.get(option.name) or save.setup.options.get(option.name))]  # a default is no fact
    if facts:
        return " / ".join(facts)
    from cthulhu.core import modes

    return modes.get(save.setup.mode).title if save.setup.mode in modes.names() else save.setup.mode


def _row(entry: Any) -> dict[str, Any]:
    from .common import setup_facts

    if entry.save is None:
        return {"file": entry.path.name, "error": entry.error.message, "problem": entry.error.problem}
    save = entry.save
    h = save.header
    return {
        "file": entry.path.name,
        "mode": h.mode,
        "setup": {option.name: shown for option, shown in setup_facts(save.setup, h.summary)},  # in words where it has them
        "setup_ids": {name: list(value) if isinstance(value, list) else value for name, value in save.setup.options.items()},
        "players": [p.name for p in h.players],
        "step": h.step,
        "turn": h.summary.get("turn"),
        "summary": dict(h.summary),  # the mode's own public facts (`Mode.summary`)
        "outcome": h.outcome,
        "updated": h.updated,
    }


def _about(save: Any) -> str:
    """'won at turn 9', 'playing, turn 4', 'not started'."""
    h = save.header
    turn = h.summary.get("turn")
    if h.step == 0:
        return "not started"
    at = f"turn {turn}" if turn is not None else f"step {h.step}"
    return f"{h.outcome} at {at}" if h.outcome else f"playing, {at}"


def _delete(names: list[str], saves_dir: str | None) -> int:
    """Delete each named save; one line each. A missing one, or one a running game holds, is refused (exit 2)."""
    from cthulhu.savegame import SUFFIX, SaveError, delete_save, find_save, load

    status = 0
    for name in names:
        try:
            path = find_save(name, saves_dir)
            if path.suffix != SUFFIX:
                raise SaveError(f"not a save file (saves end in {SUFFIX}); not deleted", path=path)
            try:
                about = f" ({_about(load(path))})"
            except SaveError as exc:
                about = f" (it could not be read: {exc.message})"
            delete_save(path)
        except SaveError as exc:
            print(clean_text(f"cthulhu saves: {exc}"), file=sys.stderr)
            status = 2
            continue
        print(clean_text(f"Deleted {path}{about}"))
    return status


def _prune(folder: Path) -> int:
    """Delete the finished saves and the ones nobody played a move in; keep damaged and held ones."""
    from cthulhu.savegame import SaveLocked, delete_save, list_saves

    deleted = 0
    for entry in list_saves(folder):
        save = entry.save
        if save is None or (save.header.outcome is None and save.header.step > 0):
            continue
        try:
            delete_save(entry.path)
        except SaveLocked as exc:
            print(clean_text(f"Kept {entry.path.name}: {exc.message}"))
            continue
        deleted += 1
        print(clean_text(f"Deleted {entry.path.name} ({_about(save)})"))
    if not deleted:
        print(clean_text(f"Nothing to prune in {folder}: no finished or empty saves."))
    return 0


def run(args: argparse.Namespace) -> int:
    from cthulhu.savegame import default_saves_dir, list_saves

    if args.delete:
        return _delete(args.delete, args.saves)
    folder = default_saves_dir(args.saves)
    if args.prune:
        return _prune(folder)
    entries = list_saves(folder)
    rows = [_row(e) for e in entries]
    if args.json:
        print(json.dumps(rows))  # one document, as every --json prints
        return 0
    if not rows:
        print(clean_text(f"No saves in {folder}"))
        return 0
    print(clean_text(f"Saves in {folder}"))
    width = output_width() or 10_000  # to a pipe: the table, whole
    table: list[tuple[str, ...]] = [("FILE", "MODE", "SET-UP", "TURN", "STEP", "OUTCOME", "UPDATED")]
    damaged = []
    for entry, row in zip(entries, rows):
        if entry.save is None:
            damaged.append(row)
            continue
        turn = row["turn"]
        table.append(
            (
                row["file"],
                row["mode"],
                _who(entry.save),
                "-" if turn is None else str(turn),
                str(row["step"]),
                row["outcome"] or ("not started" if row["step"] == 0 else "playing"),
                when_words(row["updated"]),
            )
        )
    table = [tuple(clean_text(cell) for cell in r) for r in table]  # every cell was read from a file
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    if sum(widths) + 2 * (len(widths) - 1) <= width:
        numbers = {3, 4}  # TURN and STEP are right-aligned
        for r in table:
            print("  ".join(cell.rjust(w) if i in numbers else cell.ljust(w) for i, (cell, w) in enumerate(zip(r, widths))).rstrip())
    else:  # too narrow for the table: each save its own few lines, wrapped at spaces
        for file, mode, setup, turn, step, outcome, updated in table[1:]:
            print(file)
            for line in (mode if setup.lower() == mode.lower() else f"{mode}: {setup}", f"turn {turn}, step {step}, {outcome}, updated {updated}"):
                print("\n".join(textwrap.wrap(line, max(width, 20), initial_indent="    ", subsequent_indent="      ", break_on_hyphens=False)))
    for row in damaged:
        print(clean_text(f"{row['file']}: cannot be read: {row['error']}"), file=sys.stdout)
    return 0
