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
import textwrap
from typing import Any

from cthulhu.net import output_width
from cthulhu.net import clean_text

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
    p.add_argument("--stats", action="store_true",
                   help="the luck report up to the step: each player's dice against their exact odds, harm, cards, enemies")
    p.add_argument("--cast", metavar="OUT", help="write an asciinema v2 recording of the game as the app draws it (no terminal needed)")
    p.add_argument("--size", default="100x32", metavar="COLSxROWS", help="the recording's terminal size (default 100x32)")
    p.add_argument("--speed", type=float, default=1.0, metavar="N", help="steps a second in the recording (default 1)")
    p.add_argument("--svg", metavar="DIR", help="write SVG pictures of the table to DIR (at the last step, or --at, --every)")
    p.add_argument("--at", metavar="STEPS", help="with --svg: the steps to picture, such as 10,20")
    p.add_argument("--every", type=int, metavar="N", help="with --svg: a picture every N steps (and of the last)")
    p.add_argument("--saves", metavar="DIR", help="the saves folder FILE is looked up in")
    p.add_argument("--store", metavar="WHERE", help="FILE is in a server's store: a table id (its PostgreSQL database, postgresql://...) "
                   "or a challenge try, CHALLENGE:PLACE or CHALLENGE:NAME (daily-2026-12-05:1), in that database or a SQLite server's --data folder")
    p.add_argument("--export", metavar="OUT", help="also write the save, as it is kept, to the file OUT (once it reads)")
    p.add_argument("--tui", action="store_true", help="open the replay viewer at the step (keys step forward and back)")
    add_interface_options(p)  # for --tui
    p.add_argument(
        "--any-content",
        action="store_true",
        help="replay a save made with other game content anyway (every hash is still checked)",
    )
    p.set_defaults(func=run)


def _say(line: str = "", file: Any = None) -> None:
    """Print one line, wrapped at spaces to the terminal (what runs on indents under itself); names,
    dates and summaries come from the save file, so clean it first."""
    line = "\xa0".join(clean_text(part) for part in line.split(KEEP_TOGETHER))  # textwrap breaks at ASCII spaces only
    indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
    width = output_width() if file is None else None  # errors stay one line
    wrapped = textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False) if width else []
    print(("\n".join(wrapped) if wrapped else line).replace("\xa0", " "), file=file or sys.stdout)


KEEP_TOGETHER = "\x1f"  # between words a line must not break (a date and its time); `_say` cleans around it


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


def _stats(save: Any, path: Any, step: int, args: argparse.Namespace) -> int:
    """`--stats`: the luck report of the game up to `step`, as sentences or (`--json`) as data."""
    from cthulhu.savegame import SaveError, luck_of

    try:
        report = luck_of(save, upto=step, allow_other_content=args.any_content)
    except SaveError as exc:
        return _fail(str(exc) if exc.path else f"{path}: {exc}")
    if args.json:
        print(json.dumps({"file": str(path), "step": step, "luck": None if report is None else report.wire()}, indent=2))
        return 0
    if report is None:
        _say(f"{path.name}: this game's mode keeps no luck report.")
        return 0
    _say(f"{path.name}: the luck report after {step} of {save.last_step} steps.")
    for line in report.lines():
        _say(line)
    return 0


def _steps_pictured(args: argparse.Namespace, last: int) -> set[int]:
    """The steps `--svg` pictures: `--at`'s, every `--every`th and the last, or just the last."""
    steps: set[int] = set()
    if args.at:
        try:
            steps = {int(part) for part in args.at.split(",") if part.strip()}
        except ValueError:
            raise ValueError(f"--at takes step numbers separated by commas, such as 10,20 (not {args.at!r})") from None
        wrong = sorted(n for n in steps if not 0 <= n <= last)
        if wrong:
            raise ValueError(f"--at: there is no step {wrong[0]}: the save has steps 0 to {last}")
    if args.every is not None:
        if args.every < 1:
            raise ValueError("--every takes a number of steps from 1")
        steps |= set(range(0, last + 1, args.every)) | {last}
    return steps or {last}


def _record(save: Any, path: Any, args: argparse.Namespace) -> int:
    """`--cast` and `--svg`: the replay viewer run without a terminal, its frames and pictures written."""
    import asyncio
    from pathlib import Path

    from cthulhu.savegame import SaveError
    from cthulhu.tui.options import PlayOptions
    from cthulhu.tui.record import Recorder, parse_size

    try:
        size = parse_size(args.size)
        if not 0.01 <= args.speed <= 1000:
            raise ValueError("--speed must be from 0.01 to 1000 steps a second")
        pictured = _steps_pictured(args, save.last_step) if args.svg else set()
    except ValueError as exc:
        return _fail(str(exc))
    folder = Path(args.svg) if args.svg else None
    written: list[str] = []

    def picture(step: int, svg: str) -> None:
        assert folder is not None
        target = folder / f"{path.stem}-step-{step:04}.svg"
        target.write_text(svg, encoding="utf-8")
        written.append(str(target))

    try:
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
        recorder = Recorder(save, size=size, speed=args.speed, cast=bool(args.cast), pictures=pictured, on_picture=picture,
                            name=path.name, options=PlayOptions(ascii=args.ascii, theme=theme_of(args)),
                            allow_other_content=args.any_content)
        recording = asyncio.run(recorder.run())
        if args.cast and recording is not None:
            from cthulhu.savegame import write_atomic

            write_atomic(Path(args.cast), "".join(line + "\n" for line in recording.lines()).encode("utf-8"), what="the recording")
    except SaveError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{exc.filename or path}: {exc.strerror or exc}")
    if args.cast:
        _say(f"Recorded {save.last_step} steps to {args.cast} ({size[0]}x{size[1]}, {args.speed:g} step{'' if args.speed == 1 else 's'} a second): "
             f"play it with `asciinema play {args.cast}`.")
    if written:
        _say(f"Pictures: {', '.join(written)}.")
    return 0


def _from_store(where: str, name: str) -> bytes:
    """The save `name` names in the server's store `where`: a challenge try, or a table's (PostgreSQL)."""
    from cthulhu.savegame import SaveError
    from cthulhu.server.postgres import is_url, read_save
    from cthulhu.server.tries import is_try, read_try

    if is_try(name):
        return read_try(where, name)
    if not is_url(where):
        raise SaveError(f"a SQLite server keeps its tables' saves as files: cthulhu replay {where}/tables/{name}.save", path=name)
    return read_save(where, name.removesuffix(".save"))


def run(args: argparse.Namespace) -> int:
    from cthulhu.savegame import SaveError, check_dice, find_save, load, luck_of, replay

    from pathlib import Path

    if not 0.01 <= args.speed <= 1000:  # (a bad number is refused whatever else is asked)
        return _fail("--speed must be from 0.01 to 1000 steps a second")
    if args.every is not None and not 1 <= args.every <= 1_000_000:
        return _fail("--every takes a number of steps from 1 to 1000000")
    path = Path(args.file)
    try:
        if args.store is not None:
            data = _from_store(args.store, args.file)
            path = Path(f"{args.file.removesuffix('.save')}.save")  # (its save's name, for what is printed)
            from cthulhu.savegame import decode

            save = decode(data)
        else:
            path = find_save(args.file, args.saves)
            save = load(path)
            data = path.read_bytes() if args.export is not None else b""
        step = save.last_step if args.seek is None else args.seek
        if not 0 <= step <= save.last_step:
            raise SaveError(f"there is no step {step}: the save has steps 0 to {save.last_step}", path=path, step=step)
        game = replay(save, verify=args.verify, seek=step, allow_other_content=args.any_content)
        committed = check_dice(save) if args.verify else None
        if args.export is not None:
            from cthulhu.savegame import write_atomic

            write_atomic(args.export, data, what="the exported save")
    except SaveError as exc:
        return _fail(str(exc) if exc.path else f"{path}: {exc}")
    if args.stats:
        return _stats(save, path, step, args)
    if args.cast or args.svg:
        return _record(save, path, args)
    if args.tui:
        from cthulhu.tui.options import PlayOptions
        from cthulhu.tui.replayapp import run_replay

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
         f"{h.updated.replace('T', KEEP_TOGETHER).removesuffix('+00:00')}{KEEP_TOGETHER}UTC.")
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
        luck = luck_of(save, upto=game.step, allow_other_content=args.any_content) if game.outcome is not None else None
        told = story(save, game.step, args.any_content)
    except SaveError as exc:
        return _fail(str(exc) if exc.path else f"{path}: {exc}")
    if luck is not None:  # a game's end: the luck report, as the game-over dialog ends with it
        _say("How the dice fell:")
        for line in luck.lines():
            _say(f"  {line}")
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
        from cthulhu.net import play_again_command

        again = play_again_command(save.setup, h.bot_seats())
        if again is not None:
            _say(f"Play it again: {again}")
    return 0
