"""`cthulhu server`: a server of many tables, headless, in one process, with a lobby.

Prints where it listens (the lobby's join line, the `tables` line) and, with `--ssh`/`--web`, how
visitors come in, then logs what happens (tables made, seat news, archived tables) on stderr until
Ctrl+C or SIGTERM, when every open table's save is written and the store gets its last batch.
Everything it knows is in `--data` (the tables' saves and an SQLite database); a damaged database,
or one a newer cthulhu wrote, is one line and exit 2, and the folder is left as it is.
"""

from __future__ import annotations

import argparse
import signal
import sys
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from .common import PORT_MAX, Range, out_of_range, refuse

if TYPE_CHECKING:
    from cthulhu.serve.doors import FrontDoors


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "server",
        help="serve many tables in one process, with a lobby (headless)",
        description="Serve any number of tables, listed in a lobby where players make new ones, sit and watch. "
        "Tables and players survive restarts; everything is kept in --data.",
    )
    p.add_argument("--port", type=int, default=7777, help="TCP port (0: any free port)")
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on (0.0.0.0 for a LAN or the internet)")
    p.add_argument("--data", metavar="DIR", help="where the server keeps everything (default: the user data folder's server/)")
    p.add_argument("--name", help="the server's name, shown in the lobby (kept for the next start)")
    p.add_argument("--ssh", type=int, metavar="PORT", help="also open the lobby over SSH: `ssh -p PORT HOST` (0: any free port)")
    p.add_argument("--web", type=int, metavar="PORT", help="also open the lobby to browsers at http://HOST:PORT/ (0: any free port)")
    p.add_argument("--max-per-address", type=int, default=16, metavar="N",
                   help="connections from one address, across all tables (default 16; more for players behind one NAT)")
    p.add_argument("--max-tables", type=int, default=10_000, metavar="N", help="live tables in all (default 10000)")
    p.add_argument("--notify-allow", action="append", default=[], metavar="PATTERN",
                   help="a URL glob tables may send notifications to (e.g. https://hooks.example.org/*; repeatable; none: off)")
    p.add_argument("--archive-after", type=float, default=30, metavar="DAYS",
                   help="a table without a move for this long is archived: no longer listed, its save kept (default 30)")
    p.set_defaults(func=run)


RANGES: dict[str, Range] = {
    "port": (0, PORT_MAX, ""),
    "ssh": (0, PORT_MAX, ""),
    "web": (0, PORT_MAX, ""),
    "max_per_address": (1, 100_000, ""),
    "max_tables": (1, 1_000_000, ""),
    "archive_after": (0.001, 36_500, " days"),
}


def data_folder(given: str | None) -> Path:
    if given:
        return Path(given).expanduser()
    from cthulhu.savegame.folder import user_data_dir

    return user_data_dir() / "server"


def _more_files() -> None:
    """As many open files as the system lets this process have: every connection is one."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (OSError, ValueError):
            pass


def run(args: argparse.Namespace) -> int:
    import trio

    from cthulhu.net.textclean import clean_name
    from cthulhu.savegame import SaveLocked
    from cthulhu.server import Notifier, ServerLimits, StoreError, open_server
    from cthulhu.server.notify import allowed

    problem = out_of_range(args, RANGES)
    if problem is not None:
        return refuse("server", problem)
    if args.name is not None and not clean_name(args.name):
        return refuse("server", "--name needs at least one printable character")
    try:
        notifier = Notifier(allowed(args.notify_allow))
    except ValueError as exc:
        return refuse("server", str(exc))
    from cthulhu.net.limits import Limits

    from .host import log_warnings_to_stderr

    _more_files()
    doors = args.ssh is not None or args.web is not None
    table_limits = Limits(max_connections=4096, max_per_address=args.max_per_address)
    if doors:
        from cthulhu.serve.admission import MAX_SESSIONS

        table_limits = table_limits.but(door_visitors=MAX_SESSIONS)  # every visitor of the doors connects from loopback
    limits = ServerLimits(table=table_limits, max_tables=args.max_tables, archive_after=timedelta(days=args.archive_after))
    data = data_folder(args.data)
    try:
        server = open_server(data, name=clean_name(args.name) if args.name else None, limits=limits, notifier=notifier)
    except SaveLocked as exc:
        return refuse("server", f"{data} is served already: {exc.message}")
    except (StoreError, OSError) as exc:
        return refuse("server", str(exc))
    log_warnings_to_stderr("server")
    try:
        return trio.run(serve, server, args)
    finally:
        server.store.close()


def open_lobby_doors(args: argparse.Namespace, port: int, data: Path) -> FrontDoors:
    """The SSH and web doors, opening on the lobby: each visitor's interface joins the server with
    no table named. Their identities (an SSH key, a return ticket, a browser) keep their folders in
    the data folder, so visitors are the same players after a restart."""
    from cthulhu.serve.doors import DoorError, FrontDoors

    from .host import DoorsClosed

    doors = FrontDoors(bind=args.bind, code=None, ssh_port=args.ssh, web_port=args.web, data_dir=data, table="lobby", keep=True)
    try:
        doors.start()
    except DoorError as exc:
        raise DoorsClosed(str(exc)) from None
    doors.open_table(args.bind, port)
    return doors


async def serve(server: object, args: argparse.Namespace) -> int:
    import trio

    from cthulhu.net.invite import join_address, join_command
    from cthulhu.server import TableServer

    assert isinstance(server, TableServer)
    stopped_by: int | None = None
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            try:
                port = await nursery.start(server.serve, args.port, args.bind)
            except OSError as exc:
                print(f"cthulhu server: cannot listen on {args.bind}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
                nursery.cancel_scope.cancel()
                return 2
            doors = None
            if args.ssh is not None or args.web is not None:
                from .host import DoorsClosed

                try:
                    doors = await trio.to_thread.run_sync(open_lobby_doors, args, port, server.data)
                except DoorsClosed as exc:
                    nursery.cancel_scope.cancel()
                    return refuse("server", str(exc))
            address = join_address(args.bind, port)
            live = sum(1 for t in server.tables.values() if t.live)
            print(f"Server:     {server.name}, {live} table{'s' if live != 1 else ''} ({server.data})", flush=True)
            print(f"Lobby:      {join_command(address)}", flush=True)
            print(f"Tables:     cthulhu tables {address}", flush=True)
            for line in doors.lines if doors is not None else ():
                print(line, flush=True)
            try:
                async for signum in signals:
                    stopped_by = signum
                    break
            finally:
                if doors is not None:
                    with trio.CancelScope(shield=True):
                        await trio.to_thread.run_sync(doors.stop)
                nursery.cancel_scope.cancel()
    print(f"Stopped: every table is saved in {server.data}", flush=True)
    return 0 if stopped_by in (signal.SIGINT, signal.SIGTERM, None) else 1
