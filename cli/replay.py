"""`cthulhu replay FILE`: check a save against the rules and show the state at a step.

A damaged or mismatching save prints one line naming the problem (and the
step) and exits with status 2; the file is only ever read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cthulhu.net.textclean import clean_text

from .common import add_interface_options, theme_of


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "replay",
        help="replay a save, verify its hashes, show a step",
        description="Replay a saved game. --verify checks the state hash after every step.",
    )
    p.add_argument("file", metavar="FILE", help="a save file (or its name in the saves folder)")
    p.add_argument("--verify", action="store_true", help="replay every step from the start and check every hash")
    p.add_argument("--seek", type=int, metavar="STEP", help="show the state after STEP commands (default: the last)")
    p.add_argument("--json", action="store_true", help="print the header and the spectator view as JSON")
    p.add_argument("--saves", metavar="DIR", help="the saves folder FILE is looked up in")
    p.add_argument("--tui", action="store_true", help="open the replay viewer at the step (keys step forward and back)")
    add_interface_options(p)  # for --tui
    p.add_argument(
        "--any-content",
        action="store_true",
        help="replay a save made with other game content anyway (every hash is still checked)",
    )
    p.set_defaults(func=run)


def _say(line: str = "", file: Any = None) -> None:
    """Print one line; names, dates and summaries come from the save file, so clean it first."""
    print(clean_text(line), file=file or sys.stdout)


def _fail(message: str) -> int:
    _say(f"cthulhu replay: error: {message}", file=sys.stderr)
    return 2


def _flat(value: Any, width: int = 150) -> str:
    """One line for a value: scalars as they are, maps as k=v pairs, nested parts counted."""
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                parts.append(f"{k}=[{len(v)}]" if v else f"{k}=-")
            else:
                parts.append(f"{k}={v}")
        text = ", ".join(parts)
    elif isinstance(value, list):
        text = ", ".join(_flat(v) if not isinstance(v, (dict, list)) else f"[{len(v)}]" for v in value)
    else:
        text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _lines(view: dict[str, Any]) -> list[str]:
    """A short, readable rendering of a view: one line per field, one per list item."""
    out: list[str] = []
    for key, v in view.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            out.append(f"  {key}:")
            out.extend(f"    - {_flat(x)}" for x in v)
        else:
            out.append(f"  {key}: {_flat(v)}")
    return out


def run(args: argparse.Namespace) -> int:
    from cthulhu.savegame import SaveError, check_dice, find_save, load, replay

    path = args.file
    try:
        path = find_save(args.file, args.saves)
        save = load(path)
        step = save.last_step if args.seek is None else args.seek
        if not 0 <= step <= save.last_step:
            raise SaveError(f"there is no step {step}: the save has steps 0 to {save.last_step}", path=path, step=step)
        game = replay(save, verify=args.verify, seek=step, allow_other_content=args.any_content)
        committed = check_dice(save) if args.verify else None
    except SaveError as exc:
        return _fail(str(exc) if exc.path else f"{path}: {exc}")
    if args.tui:
        from cthulhu.tui.options import PlayOptions
        from cthulhu.tui.screens.replay import run_replay

        options = PlayOptions(ascii=args.ascii, theme=theme_of(args))
        return run_replay(save, path, step=step, allow_other_content=args.any_content, options=options)
    view = game.view(None)
    if args.json:
        doc = {
            "file": str(path),
            "header": save.header.model_dump(mode="json"),
            "setup": {k: v for k, v in save.setup.model_dump(mode="json").items() if k != "seed"},
            "steps": save.last_step,
            "step": game.step,
            "verified": bool(args.verify),
            # "verified": the seed opens the commitment peers were sent; "uncommitted": a format 1 save.
            "dice": None if committed is None else "verified" if committed else "uncommitted",
            "hash": game.state_hash(),
            "view": view,
        }
        print(json.dumps(doc, indent=2))
        return 0
    h = save.header
    setup = save.setup
    _say(f"{path.name}: {h.mode}, {save.last_step} steps, {h.outcome or 'in play'}; saved {h.updated}")
    from .common import setup_facts

    for option, shown in setup_facts(setup, h.summary):  # the mode's own set-up choices
        _say(f"  {option.plural[:1].upper() + option.plural[1:] if option.many else option.label}: {shown}")
    if h.players:
        _say(f"  Players: {', '.join(f'{p.name} (seat {p.seat + 1})' for p in h.players)}")  # seats count from 1, as the table shows
    if args.verify:
        _say(f"Verified: all {save.last_step} steps replay to their recorded hashes.")
        if committed and save.dice is not None:  # True only for a save that keeps a commitment
            _say(f"Dice verified: the seed opens the commitment {save.dice.commit[:16]}... sent to every player at the start.")
        else:
            _say("Dice: this save keeps no commitment to its seed (written before format 2), so only the hashes were checked.")
    _say(f"State at step {game.step} of {save.last_step} (hash {game.state_hash()[:12]}):")
    prompt = view.get("prompt")
    if prompt:
        _say(f"  waiting for seat {prompt['seat'] + 1}: {prompt['text']}")
    elif view.get("outcome"):
        _say(f"  the game is over: {view['outcome']}")
    body = {k: v for k, v in view.items() if k not in ("prompt", "step", "outcome")}
    for line in _lines(body):
        _say(line)
    return 0
