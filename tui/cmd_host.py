"""`cthulhu host`: serve a table on the network, from the hosting player's game interface or headless.

Prints the join command and the table code, starts play as soon as every seat
is taken, autosaves after every command, and on Ctrl+C / SIGTERM writes the
save inside a shielded, time-limited scope before closing.
"""

from __future__ import annotations

import argparse
import secrets
import signal
import socket
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("host", help="host a table that friends join with `cthulhu join`")
    p.add_argument("--port", type=int, default=7777, help="TCP port (0: any free port)")
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on (0.0.0.0 for a LAN)")
    p.add_argument("--seats", type=int, default=4, help="seats at the table (1-5)")
    p.add_argument("--mode", choices=["main", "shamblers"], default="main")
    p.add_argument("--elder-one", help="Elder One id (main game)")
    p.add_argument("--episode", help="episode id (main game)")
    p.add_argument("--seed", type=int, help="game seed (default: random, revealed at game over)")
    p.add_argument("--bots", type=int, default=0, help="seats played by bots inside the host (the last N)")
    p.add_argument("--bot", choices=["random", "heuristic"], default="heuristic", help="kind of those bots")
    p.add_argument("--bot-delay", type=float, default=0.0, help="seconds between bot moves (to watch them)")
    p.add_argument("--code", help="table code peers must give (default: a fresh random one)")
    p.add_argument("--open", action="store_true", help="no table code at all (trusted networks only)")
    p.add_argument("--load", metavar="FILE", help="carry on a saved game (seats reclaimed by their tokens)")
    p.add_argument("--save", metavar="FILE", help="autosave here (default: a new file in the saves folder)")
    p.add_argument("--no-save", action="store_true", help="keep the command log in memory only")
    p.add_argument("--headless", action="store_true", help="no interface: log to stderr, exit after the game")
    p.add_argument("--ssh", type=int, metavar="PORT", help="also serve the game over SSH: friends type `ssh -p PORT CODE@HOST`")
    p.add_argument("--web", type=int, metavar="PORT", help="also serve the game to browsers at http://HOST:PORT/")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import trio

    if not 1 <= args.seats <= 5 or not 0 <= args.bots <= args.seats:
        print("cthulhu host: --seats must be 1-5 and --bots at most --seats", file=sys.stderr)
        return 2
    if not args.headless:
        return run_app(args)
    try:
        host, log = build_host(args)
    except Exception as exc:  # a bad save or bad setup: one clear line, no traceback
        print(f"cthulhu host: {exc}", file=sys.stderr)
        return 2
    return trio.run(serve_headless, host, log, args)


def run_app(args: argparse.Namespace) -> int:
    """The hosting player's own game interface; the other human seats stay open for `cthulhu join`."""
    from pathlib import Path

    from cthulhu.net.host import new_table_code

    from .app import run as run_app_
    from .options import PlayOptions

    if args.bots >= args.seats:
        print("cthulhu host: leave at least one seat for yourself (or use --headless)", file=sys.stderr)
        return 2
    code = None if args.open else (args.code or new_table_code())
    doors = open_doors(args, code)
    if doors is False:
        return 2
    humans = args.seats - args.bots
    options = PlayOptions(
        mode=args.mode,
        seed=args.seed,
        episode=args.episode,
        elder_one=args.elder_one,
        players=humans,
        bots=args.bots,
        bot_kind=args.bot,
        load=Path(args.load) if args.load else None,
        code=code,
        host_bind=args.bind,
        host_port=args.port,
        remote_seats=humans - 1,
        skip_title=True,
        doors=tuple(doors.lines) if doors else (),
    )
    print(f"Table code: {code or '(none)'}; others join with: cthulhu join {args.bind}:{args.port}" + (f" --code {code}" if code else ""), file=sys.stderr)
    if doors is None:
        return run_app_(options)
    for line in doors.lines:
        print(line, file=sys.stderr)

    async def link_and_doors(opts: PlayOptions):
        from .app import default_link

        link = await default_link(opts)
        doors.open_table(args.bind, link.port)
        return link

    try:
        return run_app_(options, link_and_doors)
    finally:
        doors.stop()


def open_doors(args: argparse.Namespace, code: str | None, save=None):
    """The SSH and web doors when asked for (None when not, False after saying why they cannot open)."""
    if args.ssh is None and args.web is None:
        return None
    try:
        from cthulhu.serve.doors import DoorError, FrontDoors
    except ImportError as exc:
        print(f"cthulhu host: --ssh and --web need the serve extra (pip install 'cthulhu[serve]'): {exc}", file=sys.stderr)
        return False
    doors = FrontDoors(bind=args.bind, code=code, ssh_port=args.ssh, web_port=args.web, save=save)
    try:
        doors.start()
    except DoorError as exc:
        print(f"cthulhu host: {exc}", file=sys.stderr)
        return False
    return doors


def build_host(args: argparse.Namespace):
    from cthulhu.core import Game, Setup
    from cthulhu.net.host import Host, new_table_code
    from cthulhu.net.log import MemoryLog

    players = None
    if args.load:
        from cthulhu.net.saves import SaveWriter, load, resolve_save, resume

        path = resolve_save(args.load)
        save = load(path)
        game = resume(save)
        log = SaveWriter.resume(args.save or path, save, game) if not args.no_save else MemoryLog()
        players = list(save.header.players)
    else:
        seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
        setup = Setup(mode=args.mode, seed=seed, players=args.seats, elder_one=args.elder_one, episode=args.episode)
        game = Game.new(setup)
        if args.no_save:
            log = MemoryLog()
        else:
            from cthulhu.net.saves import SaveWriter, default_saves_dir, new_save_path

            path = args.save or new_save_path(default_saves_dir(), f"net-{args.mode}")
            log = SaveWriter(path, game)
    n = game.setup.players
    bots = {seat: args.bot for seat in range(n - args.bots, n)}
    code = None if args.open else (args.code or new_table_code())
    host = Host(game, code=code, bots=bots, log=log, bot_delay=args.bot_delay, players=players)
    return host, log


def _join_address(bind: str, port: int) -> str:
    if bind in ("0.0.0.0", "::", ""):
        bind = socket.gethostname()
    return f"[{bind}]:{port}" if ":" in bind else f"{bind}:{port}"


async def serve_headless(host, log, args: argparse.Namespace) -> int:
    import trio

    stopped_by: int | None = None  # the signal that stopped us, if one did
    # Catch the signals before printing anything: whoever reads "Autosave:" may
    # stop us at once, and an early Ctrl+C must still save and exit cleanly.
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def on_signals() -> None:
                nonlocal stopped_by
                async for signum in signals:
                    stopped_by = signum
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(on_signals)
            try:
                port = await nursery.start(host.serve, args.port, args.bind)
            except OSError as exc:
                print(f"cthulhu host: cannot listen on {args.bind}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
                nursery.cancel_scope.cancel()
                return 2
            doors = await trio.to_thread.run_sync(open_doors, args, host.code, getattr(log, "path", None))
            if doors is False:
                nursery.cancel_scope.cancel()
                return 2
            try:
                code_part = f" --code {host.code}" if host.code else ""
                print(f"Table code: {host.code or '(none: open table)'}", flush=True)
                print(f"Join with:  cthulhu join {_join_address(args.bind, port)}{code_part}", flush=True)
                if doors is not None:
                    doors.open_table(args.bind, port)
                    for line in doors.lines:
                        print(line, flush=True)
                path = getattr(log, "path", None)
                if path is not None:
                    print(f"Autosave:   {path}", flush=True)
                await host.finished.wait()
                with trio.move_on_after(5):  # let peers read the ending, then close
                    while host.peers:
                        await trio.sleep(0.05)
            finally:
                if doors is not None:
                    with trio.CancelScope(shield=True):
                        await trio.to_thread.run_sync(doors.stop)
                with trio.CancelScope(shield=True), trio.move_on_after(10) as saving:
                    await trio.to_thread.run_sync(host.flush_log, abandon_on_cancel=True)
                if saving.cancelled_caught:
                    print("cthulhu host: the final save did not finish in time", file=sys.stderr)
                nursery.cancel_scope.cancel()
    g = host.game
    print(f"{'Interrupted' if stopped_by else 'Game over'} at step {g.step}: outcome={g.outcome} state_hash={g.state_hash()}"
          + (f" seed={g.setup.seed}" if g.outcome else ""), flush=True)
    return 128 + stopped_by if stopped_by else 0  # 130 after Ctrl+C, 143 after SIGTERM, as shells expect
