"""`cthulhu host`: serve a table on the network, from the hosting player's game interface or headless.

Prints the join command and the table code, starts play as soon as every seat
is taken, autosaves after every command, and on Ctrl+C / SIGTERM writes the
save inside a shielded, time-limited scope before closing. A loaded game is
the same table as before (its id is in the save): its seats wait for their
players' tokens, and on this machine the same table code is served again.
"""

from __future__ import annotations

import argparse
import secrets
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from cthulhu.savegame import SaveFile
    from cthulhu.table import Host, TableSpec
    from cthulhu.serve.doors import FrontDoors
    from cthulhu.tui.app import LinkFactory
    from cthulhu.tui.netlink import NetLink
    from cthulhu.tui.options import PlayOptions

from .common import (
    BOT_RANGES, PORT_MAX, SEATS_MAX, SEED_MAX, Range, SetUpFlag, add_interface_options, add_pace_options, add_setup_options, check_save,
    choice_problem, default_name, given_choices, ignored_with_load, out_of_range, pace_of, refuse, theme_of, thinking_of, thinking_problem,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "host",
        help="host a table that friends join with `cthulhu join`",
        description="Serve a table on the network, from your own game interface or --headless. "
        "Prints the join command and the table code; autosaves after every move.",
    )
    p.add_argument("--port", type=int, default=7777, help="TCP port (0: any free port)")
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on (0.0.0.0 for a LAN)")
    p.add_argument("--seats", type=int, default=4, action=SetUpFlag, help="seats at the table (1-5)")
    add_setup_options(p, bot_help="the kind of the bots (and of stand-ins)")
    p.add_argument("--seed", type=int, action=SetUpFlag, help="game seed (default: random, revealed at game over)")
    p.add_argument("--bots", type=int, default=0, action=SetUpFlag, help="seats played by bots inside the host (the last N)")
    p.add_argument("--bot-delay", type=float, default=0.5, metavar="SECONDS",
                   help="a pause before each bot move, so people can follow it (default 0.5; 0: at once)")
    p.add_argument("--name", default=None, help="your name at the table (default: your login name)")
    p.add_argument("--code", help="table code peers must give (default: the table's code on this machine, else a fresh one)")
    p.add_argument("--open", action="store_true", help="no table code at all (trusted networks only)")
    p.add_argument("--load", metavar="FILE", help="carry on a saved game: a path, or a name from `cthulhu saves`")
    p.add_argument("--save", metavar="FILE", help="autosave here (default: the loaded file, or a new file in the saves folder)")
    p.add_argument("--no-save", action="store_true", help="keep the command log in memory only")
    p.add_argument("--saves", metavar="DIR", help="the saves folder (default: the checkout's saves/ or the user data folder)")
    p.add_argument(
        "--away-bot",
        type=float,
        metavar="SECONDS",
        help="a player away this long has a bot play their seat until they come back (a headless host has no table dialog)",
    )
    add_pace_options(p)
    p.add_argument("--headless", action="store_true", help="no interface: log to stderr, exit after the game")
    p.add_argument("--ssh", type=int, metavar="PORT", help="also serve the game over SSH: friends type `ssh -p PORT CODE@HOST` (0: any free port)")
    p.add_argument("--web", type=int, metavar="PORT", help="also serve the game to browsers at http://HOST:PORT/ (0: any free port)")
    p.add_argument("--reader-door", action="store_true",
                   help="the --ssh and --web doors give every visitor the reader mode (plain lines, for screen readers "
                   "and phones) rather than the interface")
    add_interface_options(p)
    p.set_defaults(func=run)


RANGES: dict[str, Range] = {
    "port": (0, PORT_MAX, ""),
    "seats": (1, SEATS_MAX, ""),
    "seed": (0, SEED_MAX, ""),
    "bots": (0, SEATS_MAX, ""),
    "bot_delay": (0, 60, " seconds"),
    "away_bot": (0, 7 * 24 * 3600, " seconds"),
    "ssh": (0, PORT_MAX, ""),
    "web": (0, PORT_MAX, ""),
    **BOT_RANGES,
}


def run(args: argparse.Namespace) -> int:
    import trio

    problem = ignored_with_load(args) or out_of_range(args, RANGES)
    if problem is not None:
        return refuse("host", problem)
    if args.bots > args.seats:
        return refuse("host", "--seats must be 1-5 and --bots at most --seats")
    problem = thinking_problem(args) or choice_problem(args.mode, given_choices(args), args.bot)
    if problem is None and args.reader_door and args.ssh is None and args.web is None:
        problem = "--reader-door goes with --ssh or --web (it is what their visitors get)"
    if problem is not None:
        return refuse("host", problem)
    if args.code is not None and (not args.code or args.code.startswith("-") or len(args.code) > 64):
        return refuse("host", "--code must be 1-64 characters and not begin with '-'")
    try:
        pace_of(args)
    except ValueError as exc:
        return refuse("host", str(exc))
    try:
        load, held = _hold_saves(args)
    except Exception as exc:  # no such save, or another process has it: one line, file untouched
        return refuse("host", str(exc))
    args.load = load
    if load is not None and (over := _game_over(load)) is not None:
        print(over, flush=True)
        return 0
    if not args.headless:
        return run_app(args, held)
    log_warnings_to_stderr()
    from cthulhu.table import open_table

    try:
        host = open_table(table_spec(args))
    except Exception as exc:  # a bad save or bad setup: one clear line, no traceback
        from .play import one_line

        return refuse("host", one_line(exc))  # it may quote the save file: `refuse` cleans it
    problem = unsaved(host, args)
    if problem is not None:
        host.saves.release()
        return refuse("host", problem)
    if host.warning:  # the saves folder: one cleaned line, and the game goes on in the fallback folder
        from cthulhu.net import clean_text

        print(f"cthulhu host: {clean_text(host.warning)}", file=sys.stderr, flush=True)
    return trio.run(serve_headless, host, args)


def unsaved(host: Host, args: argparse.Namespace) -> str | None:
    """Why this table could not be saved (None: it can, or `--no-save`): a host that cannot save
    refuses to start rather than play a game nobody can carry on. A saves folder that cannot be
    written has fallen back already (`autosave_folder`); a file the host was given is probed here."""
    from cthulhu.savegame.folder import default_saves_dir, fallback_saves_dir, unwritable

    if args.no_save:
        return None
    path = host.saves.path
    if path is not None:
        problem = unwritable(path.parent)
        where = f"cannot save to {path} ({problem})"
    else:
        folder = default_saves_dir(args.saves)
        problem = unwritable(folder)
        where = f"cannot save in {folder} ({problem}) nor in {fallback_saves_dir()}"
    if problem is None:
        return None
    return f"{where}; give --save FILE or --saves DIR where it can be written, or --no-save to play without a save"


def _game_over(path: Path) -> str | None:
    """What to say instead of opening a table for a game that has ended (None: it goes on)."""
    import shlex

    from cthulhu.net import play_again_command
    from cthulhu.savegame import SaveError, load

    try:
        save = load(path)
    except SaveError:
        return None  # said in one line when the table is built from it
    header = save.header
    if header.outcome is None:
        return None
    lines = [f"This game is over ({header.outcome} at step {header.step}): there is nothing left to play at this table.",
             f"See it again with:  cthulhu replay {shlex.quote(str(path))} --tui"]
    again = play_again_command(save.setup, header.bot_seats())
    if again is not None:
        lines.append(f"Play it again: {again}")
    return "\n".join(lines)


def log_warnings_to_stderr(command: str = "host") -> None:
    """A headless host (or server) says what it refused, evicted or could not save, and who sat
    down or left (the seat news; a server also the tables made and archived): one cleaned line each."""
    import logging

    from cthulhu.net import CleanFormatter

    class ToStderr(logging.StreamHandler[TextIO]):
        """Writes to `sys.stderr` as it is when a line is logged (not when the handler was made)."""

        @property
        def stream(self) -> TextIO:
            return sys.stderr

        @stream.setter
        def stream(self, value: TextIO) -> None:
            pass

    handler = ToStderr()
    handler.setFormatter(CleanFormatter(f"cthulhu {command}: %(message)s"))
    for name in ("cthulhu.net", "cthulhu.table", "cthulhu.serve", "cthulhu.server"):  # the wire, the table(s), their front doors
        logger = logging.getLogger(name)
        logger.handlers[:] = [h for h in logger.handlers if type(h).__name__ != "ToStderr"]
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
    logging.getLogger("cthulhu.table.host").setLevel(logging.INFO)  # and the seat news: who sat down, who left
    logging.getLogger("cthulhu.server").setLevel(logging.INFO)  # and a server's tables: made, archived


def _hold_saves(args: argparse.Namespace) -> tuple[Path | None, list[Path]]:
    """Find the save to load and lock it (and the one to write), before anything else happens."""
    from cthulhu.savegame import find_save, hold

    load = find_save(args.load, args.saves) if args.load else None
    held = []
    targets = [] if args.no_save else [Path(args.save) if args.save else load]
    for path in [load, *targets]:
        if path is not None and path not in held:
            hold(path)  # SaveLocked names the holder
            held.append(path)
    return load, held


def table_spec(args: argparse.Namespace) -> TableSpec:
    """The table the command line describes; the same for the hosting player's interface and a
    headless host (`open_table` builds it either way)."""
    from cthulhu.core import Setup, modes
    from cthulhu.net import Limits
    from cthulhu.table import SaveTo, StandIns, TableSpec
    from cthulhu.savegame import load
    from cthulhu.savegame.folder import default_saves_dir

    start: Setup | Path
    if args.load:
        start, setup = args.load, load(args.load).setup
    else:
        seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
        start = setup = Setup(mode=args.mode, seed=seed, players=args.seats, options=given_choices(args))
    n = setup.players
    kind = args.bot or modes.get(setup.mode).default_bot
    limits = Limits()
    if args.ssh is not None or args.web is not None:
        from cthulhu.serve.admission import MAX_SESSIONS

        limits = limits.but(door_visitors=MAX_SESSIONS)  # every visitor of the doors connects from loopback
    return TableSpec(
        start=start,
        bots={} if args.load else {seat: kind for seat in range(n - args.bots, n)},
        stand_ins=StandIns(kind=kind, after=args.away_bot),
        save=None if args.no_save else SaveTo(file=Path(args.save) if args.save else None, folder=default_saves_dir(args.saves), stem="net-"),
        code=None if args.open else args.code,
        remember_code=not args.open,
        limits=limits,
        bot_delay=args.bot_delay,
        thinking=thinking_of(args),
        pace=pace_of(args),
    )


def run_app(args: argparse.Namespace, held: list[Path]) -> int:
    """The hosting player's own game interface; the other human seats stay open for `cthulhu join`.
    The table is opened (and its code and doors printed) before the interface takes the terminal."""
    from cthulhu.net import join_address, join_command
    from cthulhu.table import open_table
    from cthulhu.tui.app import run as run_app_
    from cthulhu.tui.options import PlayOptions

    if args.bots >= args.seats and not args.load:
        return refuse("host", "leave at least one seat for yourself (or use --headless)")
    try:
        if args.load:
            check_save(args.load)  # damaged or edited: one line, before any screen (as headless)
        host = open_table(table_spec(args))
    except Exception as exc:  # a bad save or bad setup: one clear line, no traceback
        from .play import one_line

        return refuse("host", one_line(exc))  # it may quote the save file: `refuse` cleans it
    problem = unsaved(host, args)
    if problem is not None:
        host.saves.release()
        return refuse("host", problem)
    try:
        doors = open_doors(args, host.code, host.table_id)
    except DoorsClosed as exc:
        host.saves.release()
        return refuse("host", str(exc))
    if args.port:
        print(f"Table code: {host.code or '(none)'}; others join with: {join_command(join_address(args.bind, args.port), host.code)}", file=sys.stderr)
    for line in doors.lines if doors is not None else ():
        print(line, file=sys.stderr)
    humans = args.seats - args.bots
    options = PlayOptions(
        mode=host.game.setup.mode,
        players=humans,
        bots=0 if args.load else args.bots,
        bot_kind=args.bot,
        bot_delay=args.bot_delay,
        thinking=thinking_of(args),
        hints=not args.no_hints,
        ascii=args.ascii,
        theme=theme_of(args),
        load=args.load,
        name=host_name(args, _loaded(args), host.table_id),
        code=host.code,
        host_table=True,
        host_bind=args.bind,
        host_port=args.port,
        remote_seats=humans - 1,
        skip_title=True,
        doors=tuple(doors.lines) if doors is not None else (),
    )
    try:
        return run_app_(options, _opening(host, doors, args.bind))
    finally:
        if doors is not None:
            doors.stop()
        from cthulhu.savegame import release

        for path in held:
            release(path)


def _loaded(args: argparse.Namespace) -> SaveFile | None:
    """The save `--load` names, read again (its header: who sat where), or None."""
    from cthulhu.savegame import load

    return load(args.load) if args.load and not args.name else None


def host_name(args: argparse.Namespace, save: SaveFile | None, table_id: str) -> str:
    """The hosting player's name: `--name`; else, carrying a table on, the name their seat has in the
    save (found by the seat token this machine keeps for the table); else the login name."""
    if args.name:
        return str(args.name)
    if save is not None:
        from cthulhu.net import SeatStore
        from cthulhu.net import clean_name

        mine = SeatStore().find(name=None, table=table_id, hosting=True)
        if mine is not None:
            saved = {r.seat: r.name for r in save.header.players}
            return clean_name(saved.get(mine.seat) or mine.name) or default_name()
    return default_name()


def _opening(host: Host, doors: FrontDoors | None, bind: str) -> LinkFactory:
    """The app's first table link is to the table opened here (its doors told where its port is,
    so their visitors join it); a new game from the title screen opens one as `cthulhu play` does."""
    from .embedded import embedded_link

    opened: list[Host] = [host]

    async def link_factory(options: PlayOptions) -> NetLink:
        link = await embedded_link(options, opened.pop() if opened else None)
        if doors is not None:
            doors.open_table(bind, link.port)
        return link

    return link_factory


class DoorsClosed(Exception):
    """`--ssh`/`--web` could not open; the message says why in one line."""


def open_doors(args: argparse.Namespace, code: str | None, table_id: str) -> FrontDoors | None:
    """The SSH and web doors when asked for (None when not). A saved table keeps its visitors'
    seat tokens with it (by table id), so they take their seats back after `host --load`."""
    if args.ssh is None and args.web is None:
        return None
    from cthulhu.serve.doors import DoorError, FrontDoors

    doors = FrontDoors(bind=args.bind, code=code, ssh_port=args.ssh, web_port=args.web, table=table_id, keep=not args.no_save,
                       caps={"reader": True} if args.reader_door else None)
    try:
        doors.start()
    except DoorError as exc:
        raise DoorsClosed(str(exc)) from None
    return doors


async def serve_headless(host: Host, args: argparse.Namespace) -> int:
    import trio

    from cthulhu.net import join_address, join_command

    stopped_by: int | None = None  # the signal that stopped us, if one did
    # Catch the signals before printing anything: whoever reads "Autosave:" may
    # stop us at once, and an early Ctrl+C must still save and exit cleanly.
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def on_signals() -> None:
                nonlocal stopped_by
                async for signum in signals:
                    stopped_by = signum
                    await host.close_table()  # joiners hear that it closed on purpose (not a lost connection)
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(on_signals)
            try:
                port = await nursery.start(host.serve, args.port, args.bind)
            except OSError as exc:
                print(f"cthulhu host: cannot listen on {args.bind}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
                nursery.cancel_scope.cancel()
                return 2
            try:
                doors = await trio.to_thread.run_sync(open_doors, args, host.code, host.table_id)
            except DoorsClosed as exc:
                nursery.cancel_scope.cancel()
                return refuse("host", str(exc))
            try:
                print(f"Table code: {host.code or '(none: open table)'}", flush=True)
                print(f"Join with:  {join_command(join_address(args.bind, port), host.code)}", flush=True)
                if doors is not None:
                    doors.open_table(args.bind, port)
                    for line in doors.lines:
                        print(line, flush=True)
                path = host.saves.path
                if path is not None:
                    print(f"Autosave:   {path}", flush=True)
                print(f"Dice:       committed to the seed as {host.dice.commit} (opened at the end)", flush=True)
                await host.finished.wait()
                with trio.move_on_after(5):  # let peers read the ending, then close
                    while host.peers:
                        await trio.sleep(0.05)
            finally:
                if doors is not None:  # the visitors' interfaces leave first, then the table closes
                    with trio.CancelScope(shield=True):
                        await trio.to_thread.run_sync(doors.stop)
                # A full or read-only disk is reported (once) by the host; the final line still follows.
                with trio.CancelScope(shield=True), trio.move_on_after(10) as saving:
                    await trio.to_thread.run_sync(host.flush_log, abandon_on_cancel=True)
                if saving.cancelled_caught:
                    print("cthulhu host: the final save did not finish in time", file=sys.stderr)
                nursery.cancel_scope.cancel()
    g = host.game
    print(f"{'Interrupted' if stopped_by else 'Game over'} at step {g.step}: outcome={g.outcome} state_hash={g.state_hash()}"
          + (f" seed={g.setup.seed}" if g.outcome else ""), flush=True)
    if g.outcome:
        from cthulhu.net import play_again_command

        say_luck(host)

        again = play_again_command(g.setup, {s.index: s.bot_kind for s in host.seats if s.kind == "bot"})
        if again is not None:
            print(f"Play it again: {again}", flush=True)
    return 128 + stopped_by if stopped_by else 0  # 130 after Ctrl+C, 143 after SIGTERM, as shells expect


def say_luck(host: Host) -> None:
    """The luck report at a headless host's game over, as a peer's game-over dialog shows it: from
    the host's own log, replayed from the set-up (the save needs no reading back)."""
    from cthulhu.core import Game
    from cthulhu.core.luck import luck_of_line

    report = luck_of_line(Game.new(host.game.setup, host.game.content), host.log.commands())
    if report is not None:
        print("How the dice fell:", flush=True)
        for line in report.lines():
            print(f"  {line}", flush=True)
