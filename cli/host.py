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
    from cthulhu.net.host import Host
    from cthulhu.net.log import MemoryLog
    from cthulhu.net.saves import SaveFile, SaveWriter
    from cthulhu.serve.doors import FrontDoors
    from cthulhu.tui.app import LinkFactory
    from cthulhu.tui.netlink import NetLink
    from cthulhu.tui.options import PlayOptions

from .common import (
    PORT_MAX, SEATS_MAX, SEED_MAX, Range, add_interface_options, check_save, choice_problem, default_name, given_choices, out_of_range,
    refuse, theme_of,
)

from . import mode_names


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "host",
        help="host a table that friends join with `cthulhu join`",
        description="Serve a table on the network, from your own game interface or --headless. "
        "Prints the join command and the table code; autosaves after every move.",
    )
    p.add_argument("--port", type=int, default=7777, help="TCP port (0: any free port)")
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on (0.0.0.0 for a LAN)")
    p.add_argument("--seats", type=int, default=4, help="seats at the table (1-5)")
    p.add_argument("--mode", choices=mode_names(), default=mode_names()[0], help="the game: " + ", ".join(mode_names()) + " (default " + mode_names()[0] + ")")
    p.add_argument("--difficulty", help="a difficulty level (Shamblers): {ids:difficulty}")
    p.add_argument("--elder-one", help="an Elder One (main game): {ids:elder_one}")
    p.add_argument("--episode", help="an episode (main game): {ids:episode}")
    p.add_argument("--investigators", help="investigators (main game), one per seat, comma-separated: {ids:investigators}")
    p.add_argument("--seed", type=int, help="game seed (default: random, revealed at game over)")
    p.add_argument("--bots", type=int, default=0, help="seats played by bots inside the host (the last N)")
    p.add_argument("--bot", choices=["random", "heuristic"], default="heuristic", help="kind of those bots (and of stand-ins)")
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
    p.add_argument("--headless", action="store_true", help="no interface: log to stderr, exit after the game")
    p.add_argument("--ssh", type=int, metavar="PORT", help="also serve the game over SSH: friends type `ssh -p PORT CODE@HOST` (0: any free port)")
    p.add_argument("--web", type=int, metavar="PORT", help="also serve the game to browsers at http://HOST:PORT/ (0: any free port)")
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
}


def run(args: argparse.Namespace) -> int:
    import trio

    problem = out_of_range(args, RANGES)
    if problem is not None:
        return refuse("host", problem)
    if args.bots > args.seats:
        return refuse("host", "--seats must be 1-5 and --bots at most --seats")
    problem = choice_problem(args.mode, given_choices(args))
    if problem is not None:
        return refuse("host", problem)
    if args.code is not None and (not args.code or args.code.startswith("-") or len(args.code) > 64):
        return refuse("host", "--code must be 1-64 characters and not begin with '-'")
    try:
        load, held = _hold_saves(args)
    except Exception as exc:  # no such save, or another process has it: one line, file untouched
        return refuse("host", str(exc))
    args.load = load
    if not args.headless:
        return run_app(args, held)
    log_warnings_to_stderr()
    try:
        host, log = build_host(args)
    except Exception as exc:  # a bad save or bad setup: one clear line, no traceback
        from .play import one_line

        return refuse("host", one_line(exc))  # it may quote the save file: `refuse` cleans it
    return trio.run(serve_headless, host, log, args)


def log_warnings_to_stderr() -> None:
    """A headless host says what it refused, evicted or could not save, and who sat down or left
    (the seat news): one cleaned line each."""
    import logging

    from cthulhu.net.textclean import CleanFormatter

    class ToStderr(logging.StreamHandler[TextIO]):
        """Writes to `sys.stderr` as it is when a line is logged (not when the handler was made)."""

        @property
        def stream(self) -> TextIO:
            return sys.stderr

        @stream.setter
        def stream(self, value: TextIO) -> None:
            pass

    handler = ToStderr()
    handler.setFormatter(CleanFormatter("cthulhu host: %(message)s"))
    for name in ("cthulhu.net", "cthulhu.serve"):  # the table, and its front doors (`--ssh`, `--web`)
        logger = logging.getLogger(name)
        logger.handlers[:] = [h for h in logger.handlers if type(h).__name__ != "ToStderr"]
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
    logging.getLogger("cthulhu.net.host").setLevel(logging.INFO)  # and the seat news: who sat down, who left


def _hold_saves(args: argparse.Namespace) -> tuple[Path | None, list[Path]]:
    """Find the save to load and lock it (and the one to write), before anything else happens."""
    from cthulhu.net.saves import find_save, hold

    load = find_save(args.load, args.saves) if args.load else None
    held = []
    targets = [] if args.no_save else [Path(args.save) if args.save else load]
    for path in [load, *targets]:
        if path is not None and path not in held:
            hold(path)  # SaveLocked names the holder
            held.append(path)
    return load, held


def _table(args: argparse.Namespace) -> tuple[str, str | None, SaveFile | None]:
    """The table id (a loaded game keeps its own), the table code, and the loaded save."""
    from cthulhu.net.invite import new_table_code, new_table_id
    from cthulhu.net.saves import load
    from cthulhu.net.seatstore import SeatStore

    save = load(args.load) if args.load else None
    table_id = (save.header.table if save is not None else None) or new_table_id()
    if args.open:
        return table_id, None, save
    store = SeatStore()
    code = args.code or store.code_for(table_id) or new_table_code()
    try:
        store.remember_code(table_id, code)  # `host --load` serves the same code again
    except OSError:
        pass
    return table_id, code, save


def run_app(args: argparse.Namespace, held: list[Path]) -> int:
    """The hosting player's own game interface; the other human seats stay open for `cthulhu join`."""
    from cthulhu.net.invite import join_address, join_command
    from cthulhu.net.saves import default_saves_dir

    from cthulhu.tui.app import run as run_app_
    from cthulhu.tui.options import PlayOptions

    if args.bots >= args.seats and not args.load:
        return refuse("host", "leave at least one seat for yourself (or use --headless)")
    try:
        table_id, code, save = _table(args)
        if args.load:
            check_save(args.load)  # damaged or edited: one line, before any screen (as headless)
    except Exception as exc:
        return refuse("host", str(exc))
    humans = args.seats - args.bots
    options = PlayOptions(
        mode=args.mode,
        difficulty=args.difficulty,
        seed=args.seed,
        episode=args.episode,
        elder_one=args.elder_one,
        investigators=tuple(given_choices(args).get("investigators", ())),
        players=humans,
        bots=0 if args.load else args.bots,
        bot_kind=args.bot,
        bot_delay=args.bot_delay,
        hints=not args.no_hints,
        ascii=args.ascii,
        theme=theme_of(args),
        load=args.load,
        save_to=Path(args.save) if args.save else None,
        no_save=args.no_save,
        saves_dir=default_saves_dir(args.saves),
        name=host_name(args, save, table_id),
        code=code,
        host_table=True,
        host_bind=args.bind,
        host_port=args.port,
        remote_seats=humans - 1,
        table_id=table_id,
        away_bot=args.away_bot,
        skip_title=True,
    )
    if options.load is None:
        from cthulhu.content import builtin

        from .play import setup_problem

        problem = setup_problem(options, builtin())
        if problem is not None:
            return refuse("host", problem)
    try:
        doors = open_doors(args, code, table_id)
    except DoorsClosed as exc:
        return refuse("host", str(exc))
    if args.port:
        print(f"Table code: {code or '(none)'}; others join with: {join_command(join_address(args.bind, args.port), code)}", file=sys.stderr)
    if doors is not None:
        options = options.with_(doors=tuple(doors.lines), door_visitors=doors.visitors)
        for line in doors.lines:
            print(line, file=sys.stderr)
    try:
        return run_app_(options, None if doors is None else _opening(doors, args.bind))
    finally:
        if doors is not None:
            doors.stop()
        from cthulhu.net.saves import release

        for path in held:
            release(path)


def host_name(args: argparse.Namespace, save: SaveFile | None, table_id: str) -> str:
    """The hosting player's name: `--name`; else, carrying a table on, the name their seat has in the
    save (found by the seat token this machine keeps for the table); else the login name."""
    if args.name:
        return str(args.name)
    if save is not None:
        from cthulhu.net.seatstore import SeatStore
        from cthulhu.net.textclean import clean_name

        mine = SeatStore().find(name=None, table=table_id, hosting=True)
        if mine is not None:
            saved = {r.seat: r.name for r in save.header.players}
            return clean_name(saved.get(mine.seat) or mine.name) or default_name()
    return default_name()


def _opening(doors: FrontDoors, bind: str) -> LinkFactory:
    """The app's table link, and the doors told where its port is (their visitors join it)."""
    from cthulhu.tui.netlink import embedded_link

    async def link_factory(options: PlayOptions) -> NetLink:
        link = await embedded_link(options)  # what `default_link` opens for a hosted table (no --join, no --local)
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

    doors = FrontDoors(bind=args.bind, code=code, ssh_port=args.ssh, web_port=args.web, table=table_id, keep=not args.no_save)
    try:
        doors.start()
    except DoorError as exc:
        raise DoorsClosed(str(exc)) from None
    return doors


def build_host(args: argparse.Namespace) -> tuple[Host, MemoryLog | SaveWriter]:
    from cthulhu.core import Game, Setup
    from cthulhu.net.host import Host
    from cthulhu.net.log import MemoryLog
    from cthulhu.net.saves import SaveWriter

    table_id, code, save = _table(args)
    players = None
    log: MemoryLog | SaveWriter
    if save is not None:
        from cthulhu.net.saves import resume

        game = resume(save)
        if args.no_save:  # the log so far stays in memory, so joiners can still verify every roll
            log = MemoryLog()
            for entry in save.steps:
                log.append(entry.seat, entry.command, entry.hash)
        else:
            log = SaveWriter.resume(args.save or args.load, save, game)
        players = list(save.header.players)
    else:
        seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
        setup = Setup(mode=args.mode, seed=seed, players=args.seats, elder_one=args.elder_one, episode=args.episode,
                      investigators=given_choices(args).get("investigators", []), difficulty=args.difficulty)
        game = Game.new(setup)
        if args.no_save:
            log = MemoryLog()
        else:
            from cthulhu.net.saves import default_saves_dir, new_save_path
            from cthulhu.net.savedir import autosave_folder
            from cthulhu.net.textclean import clean_text

            folder, warning = (None, None) if args.save else autosave_folder(default_saves_dir(args.saves))
            if warning:
                print(f"cthulhu host: {clean_text(warning)}", file=sys.stderr, flush=True)
            if args.save:
                log = SaveWriter(args.save, game)
            elif folder is not None:
                log = SaveWriter(new_save_path(folder, f"net-{args.mode}"), game)
            else:
                log = MemoryLog()
    if isinstance(log, SaveWriter):  # a MemoryLog keeps no table id
        log.table = table_id
        if save is not None and save.header.table is None:
            log.write()  # the table keeps this id (and so its code) even if we are killed before anyone joins
    n = game.setup.players
    bots = {seat: args.bot for seat in range(n - args.bots, n)}
    limits = None
    if args.ssh is not None or args.web is not None:
        from cthulhu.net.limits import Limits
        from cthulhu.serve.admission import MAX_SESSIONS

        limits = Limits().but(door_visitors=MAX_SESSIONS)  # every visitor of the doors connects from loopback
    host = Host(
        game,
        code=code,
        bots=bots,
        log=log,
        bot_delay=args.bot_delay,
        players=players,
        table_id=table_id,
        away_bot=args.away_bot,
        stand_in_kind=args.bot,
        limits=limits,
    )
    return host, log


async def serve_headless(host: Host, log: MemoryLog | SaveWriter, args: argparse.Namespace) -> int:
    import trio

    from cthulhu.net.invite import join_address, join_command

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
                path = getattr(log, "path", None)
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
        from cthulhu.net.playagain import play_again_command

        again = play_again_command(g.setup, {s.index: s.bot_kind for s in host.seats if s.kind == "bot"})
        if again is not None:
            print(f"Play it again: {again}", flush=True)
    return 128 + stopped_by if stopped_by else 0  # 130 after Ctrl+C, 143 after SIGTERM, as shells expect
