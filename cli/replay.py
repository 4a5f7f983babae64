"""`cthulhu replay FILE`: tell a saved game's story, check it against the rules, show a step.

The text is a narrated summary: the table, who won or lost (or who is to decide),
then what happened, turn by turn, in the mode's own sentences (its narrator,
imported without Textual); `--json` is the header and the spectator view as data.
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


def _names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def story(save: Any, upto: int, allow_other_content: bool) -> list[str]:
    """What happened, in the mode's own sentences (its narrator, as the Log tells it), one line per
    event that changed the game (`TuiMode.story_events`), each under its turn. Text only: no Textual."""
    from cthulhu.savegame import steps_told
    from cthulhu.tui.modes import tui_mode
    from cthulhu.tui.narrate import tell

    wanted = tui_mode(save.setup.mode).story_events
    lines: list[str] = []
    for game, events in steps_told(save, upto=upto, allow_other_content=allow_other_content):
        if not events:
            continue
        view = game.view(None)
        turn = view.get("turn")
        for event in events:
            kind, sentence = tell(event.wire(), view)
            if (event.type in wanted) if wanted else kind == "end":
                lines.append(f"  Turn {turn}: {sentence}" if turn is not None else f"  {sentence}")
    return lines


def _where_it_stands(save: Any, view: dict[str, Any], step: int) -> list[str]:
    """Who won or lost and how the table ended (the mode's game-over summary), or who is to decide."""
    from cthulhu.tui.modes import tui_mode

    seats = {p.seat: p.name for p in save.header.players}
    outcome = view.get("outcome")
    turn = view.get("turn")
    when = f" on turn {turn}" if turn is not None else ""
    if outcome:
        out = [f"{'Won' if outcome == 'won' else 'Lost' if outcome == 'lost' else str(outcome).title()}{when}, after {step} steps."]
        out += [f"  {line}" for line in tui_mode(view["mode"]).summary(view).plain.splitlines() if line]
        return out
    out = [f"In play{when}, after {step} steps."]
    prompt = view.get("prompt")
    if prompt:  # seats count from 1, as the table shows them
        who = f"seat {prompt['seat'] + 1}" + (f" ({seats[prompt['seat']]})" if prompt["seat"] in seats else "")
        out.append(f"  waiting for {who}: {prompt['text']}")
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
    from cthulhu.core import modes

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
    mode = modes.get(h.mode).title if h.mode in modes.names() else h.mode
    from cthulhu.tui.modes import tui_mode

    table = tui_mode(h.mode).title(view)
    _say(f"{path.name}: {table}{f' ({mode})' if mode not in table else ''}, {save.last_step} steps; saved "
         f"{h.updated.replace('T', ' ').removesuffix('+00:00')} UTC.")
    elder = h.summary.get("elder_one") or save.setup.one("elder_one")
    if elder:
        _say(f"  Against {elder}.")
    investigators = [str(i["name"]) for i in view.get("investigators", []) if isinstance(i, dict) and "name" in i]
    if investigators:
        _say(f"  Investigators: {_names(investigators)}.")
    if h.players:
        _say(f"  Players: {_names([f'{p.name} (seat {p.seat + 1})' for p in h.players])}.")  # seats count from 1, as the table shows
    for line in _where_it_stands(save, view, game.step):
        _say(line)
    try:
        told = story(save, game.step, args.any_content)
    except SaveError as exc:
        return _fail(str(exc) if exc.path else f"{path}: {exc}")
    if told:
        _say("What happened:")
        for line in told:
            _say(line)
    if args.verify:
        _say(f"Verified: all {save.last_step} steps replay to their recorded hashes.")
        if committed and save.dice is not None:  # True only for a save that keeps a commitment
            _say(f"Dice verified: the seed opens the commitment {save.dice.commit[:16]}... sent to every player at the start.")
        else:
            _say("Dice: this save keeps no commitment to its seed (written before format 2), so only the hashes were checked.")
    _say(f"State at step {game.step} of {save.last_step} (hash {game.state_hash()[:12]}).")
    if game.outcome is not None:  # the seed is no secret once the game is over
        from cthulhu.net.playagain import play_again_command

        again = play_again_command(save.setup, h.bot_seats())
        if again is not None:
            _say(f"Play it again: {again}")
    return 0
