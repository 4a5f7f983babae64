"""`cthulhu challenge`: the day's (or the week's) challenge, alone at this terminal or at a server.

Without an address it plays the challenge in the game interface, as `cthulhu play` with the
challenge's set-up and seed (the same on every machine, offline too: `savegame.challenge`), saved as
`challenge-<name>.save` in the saves folder; `--show` prints the challenge instead (`--json`:
`{id, kind, first, last, mode, setup, about, seed}`). With a server's address it lists the
challenges taking tries there and your own try; `--submit FILE` sends a finished game's save as
your one try (the server replays it before it enters the board, and says in one line why when it
will not); `--board` prints the board (`--json`: `{challenge, total, rows: [{rank, name, outcome,
turns, rerolls, bots, at}]}`, `rank` null for a bot's game, listed apart).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import add_interface_options, refuse, theme_of
from .lobbytalk import add_address, talk

if TYPE_CHECKING:
    from cthulhu.savegame.challenge import Challenge
    from cthulhu.net import TrioLobby


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("challenge", help="the daily (or weekly) challenge: play it, or send your try to a server",
                       description="The day's challenge: a set-up and seed from the date, the same everywhere. Alone: play it "
                                   "(or --show it). With a server's ADDRESS: its challenges, --board, or --submit FILE as your one try.")
    add_address(p, optional=True)
    p.add_argument("--weekly", action="store_true", help="the week's challenge (weeks from Monday) instead of the day's")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="the challenge of that day (default: today, UTC)")
    p.add_argument("--show", action="store_true", help="print the challenge instead of playing it")
    p.add_argument("--board", action="store_true", help="with ADDRESS: the challenge's board")
    p.add_argument("--submit", metavar="FILE", help="with ADDRESS: send this finished game's save as your try")
    p.add_argument("--json", action="store_true", help="JSON for scripts (with --show, --board, or ADDRESS)")
    p.add_argument("--saves", metavar="DIR", help="where the game is saved (default: the checkout's saves/ or the user data folder)")
    add_interface_options(p)
    p.set_defaults(func=run)


def _day(args: argparse.Namespace) -> date:
    if args.date is None:
        return datetime.now(timezone.utc).date()
    return date.fromisoformat(args.date)  # (ValueError: refused by `run`)


def wanted(args: argparse.Namespace) -> Challenge:
    from cthulhu.savegame.challenge import challenge

    return challenge("weekly" if args.weekly else "daily", _day(args))


def challenge_json(c: Challenge) -> dict[str, Any]:
    from cthulhu.savegame.challenge import about
    from cthulhu.server.table import setup_words

    return {"id": c.id, "kind": c.kind, "first": c.first.isoformat(), "last": c.last.isoformat(), "mode": c.setup.mode,
            "setup": setup_words(c.setup)[0], "about": about(c.setup), "seed": c.setup.seed}


def challenge_line(c: Challenge) -> str:
    from cthulhu.core import modes

    facts = challenge_json(c)
    return f"{c.id} ({c.title}): {modes.get(c.setup.mode).title}, {facts['about']}, seed {c.setup.seed}"


def run(args: argparse.Namespace) -> int:
    try:
        chosen = wanted(args)
    except ValueError:
        return refuse("challenge", f"--date must be a day as YYYY-MM-DD, not {args.date!r}")
    if args.address is None:
        if args.board or args.submit:
            return refuse("challenge", "--board and --submit go with a server's ADDRESS")
        if args.show:
            print(json.dumps(challenge_json(chosen), sort_keys=True) if args.json else challenge_line(chosen))
            return 0
        return _play(args, chosen)
    if args.show or (args.board and args.submit):
        return refuse("challenge", "with ADDRESS: give --board, --submit FILE, or neither (the server's challenges)")
    if args.submit:
        return _submit(args)
    return talk("challenge", args, lambda lobby: (_board(args, lobby, chosen) if args.board else _listing(args, lobby)))


def _play(args: argparse.Namespace, chosen: Challenge) -> int:
    import os

    if not sys.stdout.isatty() and not os.environ.get("TEXTUAL_DRIVER"):  # (a driver, textual-serve, needs no terminal)
        return refuse("challenge", "playing needs a terminal; --show prints the challenge")
    from cthulhu.savegame.folder import default_saves_dir, new_save_path
    from cthulhu.tui.options import PlayOptions
    saves = default_saves_dir(args.saves)
    save_to = new_save_path(saves, f"challenge-{chosen.id}")
    setup = chosen.setup
    options = PlayOptions(mode=setup.mode, seed=setup.seed, choices=dict(setup.options), players=setup.players, ascii=args.ascii,
                          theme=theme_of(args), hints=not args.no_hints, saves_dir=saves, save_to=save_to, skip_title=True)
    from cthulhu.tui.app import run as run_app

    from .embedded import table_link

    status = run_app(options, table_link)
    if save_to.exists():
        print(f"Your game of {chosen.id} is saved in {save_to}; send it as your try with: "
              f"cthulhu challenge HOST --submit {save_to}")
    return status


def _matching(save_setup: Any) -> Challenge | None:
    """The challenge taking tries now that this set-up is the game of (today's or yesterday's, UTC)."""
    from cthulhu.savegame.challenge import challenge

    today = datetime.now(timezone.utc).date()
    for day in (today, today - timedelta(days=1)):
        for one in (challenge("daily", day), challenge("weekly", day)):
            if one.setup == save_setup:
                return one
    return None


def _submit(args: argparse.Namespace) -> int:
    from cthulhu.savegame import SaveError, decode

    path = Path(args.submit)
    try:
        data = path.read_bytes()
        game = decode(data)
    except OSError as exc:
        return refuse("challenge", f"{path}: cannot read it: {exc.strerror or exc}")
    except SaveError as exc:
        return refuse("challenge", f"{path}: {exc.message}")
    target = _matching(game.setup)
    if target is None:
        return refuse("challenge", f"{path} is not a game of a challenge taking tries now")

    async def send(lobby: TrioLobby) -> int:
        from cthulhu.net import Rejected
        from cthulhu.net import clean_text

        answer = await lobby.submit(target.id, data)
        if isinstance(answer, Rejected):
            return refuse("challenge", f"the server refused your try: {answer.reason} ({answer.code})")
        if args.json:
            print(json.dumps(answer.model_dump(exclude={"t", "seq"}), sort_keys=True))
        else:
            place = "listed apart (a bot played it)" if answer.bots else f"ranked {answer.rank}" if answer.rank else "entered"
            print(clean_text(f"Your try at {target.id} is verified and {place}: {answer.outcome} in {answer.turns} turns, "
                             f"{answer.rerolls} reroll{'s' if answer.rerolls != 1 else ''}."))
        return 0

    return talk("challenge", args, send)


async def _listing(args: argparse.Namespace, lobby: TrioLobby) -> int:
    from cthulhu.core import modes
    from cthulhu.net import Rejected, challenge_words

    answer = await lobby.challenges()
    if isinstance(answer, Rejected):
        return refuse("challenge", f"the server refused: {answer.reason} ({answer.code})")
    if args.json:
        print(json.dumps([row.model_dump() for row in answer.rows], sort_keys=True))
        return 0
    for row in answer.rows:
        print(challenge_words(row, modes.get(row.mode).title if row.mode in modes.names() else row.mode))
    return 0


async def _board(args: argparse.Namespace, lobby: TrioLobby, chosen: Challenge) -> int:
    from cthulhu.net import Rejected, board_words, clean_text

    answer = await lobby.board(chosen.id)
    if isinstance(answer, Rejected):
        return refuse("challenge", f"the server refused: {answer.reason} ({answer.code})")
    if args.json:
        print(json.dumps({"challenge": answer.challenge, "total": answer.total, "rows": [r.model_dump() for r in answer.rows]}, sort_keys=True))
        return 0
    print(clean_text(f"{answer.challenge}: {answer.total} tr{'ies' if answer.total != 1 else 'y'}"))
    for row in answer.rows:
        print(board_words(row))
    return 0
