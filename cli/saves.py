"""`cthulhu saves`: list the saves in a folder, damaged ones with the reason."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cthulhu.net.textclean import clean_text


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("saves", help="list saved games", description="List the saved games in the saves folder.")
    p.add_argument("--saves", metavar="DIR", help="the saves folder (default: saves/ in a checkout, else the user data dir)")
    p.add_argument("--json", action="store_true", help="print one JSON object per save instead of a table")
    p.set_defaults(func=run)


def _who(save: Any) -> str:
    """'Hastur / The Wexley Mill Fire': the game's one-id set-up choices (its mode's own, by name
    where the save's summary names them), else the mode's title."""
    from .common import setup_facts

    facts = [shown for option, shown in setup_facts(save.setup, save.header.summary) if not option.many]
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
        "setup": {option.name: shown for option, shown in setup_facts(save.setup, h.summary)},
        "players": [p.name for p in h.players],
        "step": h.step,
        "turn": h.summary.get("turn"),
        "summary": dict(h.summary),  # the mode's own public facts (`Mode.summary`)
        "outcome": h.outcome,
        "updated": h.updated,
    }


def run(args: argparse.Namespace) -> int:
    from cthulhu.savegame import default_saves_dir, list_saves

    folder = default_saves_dir(args.saves)
    entries = list_saves(folder)
    rows = [_row(e) for e in entries]
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    if not rows:
        print(clean_text(f"No saves in {folder}"))
        return 0
    print(clean_text(f"Saves in {folder}"))
    table: list[tuple[str, ...]] = [("FILE", "MODE", "SET-UP", "STEP", "TURN", "OUTCOME", "UPDATED")]
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
                str(row["step"]),
                "-" if turn is None else str(turn),
                row["outcome"] or "playing",
                row["updated"].replace("T", " ").removesuffix("+00:00"),
            )
        )
    table = [tuple(clean_text(cell) for cell in r) for r in table]  # every cell was read from a file
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for r in table:
        print("  ".join(cell.ljust(w) if i < 3 or i > 4 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths))).rstrip())
    for row in damaged:
        print(clean_text(f"{row['file']}: cannot be read: {row['error']}"), file=sys.stdout)
    return 0
