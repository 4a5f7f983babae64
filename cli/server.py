"""`cthulhu server`: a server of many tables, headless, in one process, with a lobby.

Prints where it listens (the lobby's join line, the `tables` line) and, with `--ssh`/`--web`, how
visitors come in, then logs what happens (tables made, seat news, archived tables) on stderr until
Ctrl+C or SIGTERM, when every open table's save is written and the store gets its last batch.
Everything it knows is in `--data` (the tables' saves and an SQLite database), or with `--store
postgresql://...` (or `CTHULHU_STORE`) in that PostgreSQL database, saves included; a damaged
database, one a newer cthulhu wrote or another program's, or an empty or missing one beside table
saves, is one line and exit 2, and the folder is left as it is. `--rebuild` lists the tables again
from their saves into a database that lists none (`server.rebuild`); `--migrate-to` copies a
SQLite server into PostgreSQL (`server.migrate`).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from cthulhu.serve.admission import VISITOR_MB, visitors_for_memory

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
    p.add_argument("--tls-cert", metavar="FILE", help="also listen for TLS (see --tls-port) with this certificate (PEM, its chain after it)")
    p.add_argument("--tls-key", metavar="FILE", help="the TLS certificate's private key (PEM)")
    p.add_argument("--tls-port", type=int, default=None, metavar="PORT",
                   help="with --tls-cert: the TLS port, where identity keys, seat tokens and codes cross encrypted (default 7778; 0: any free port)")
    p.add_argument("--ssh", type=int, metavar="PORT", help="also open the lobby over SSH: `ssh -p PORT HOST` (0: any free port)")
    p.add_argument("--web", type=int, metavar="PORT", help="also open the lobby to browsers at http://HOST:PORT/ (0: any free port)")
    p.add_argument("--reader-door", action="store_true",
                   help="the --ssh and --web doors give every visitor the reader mode (the lobby and the tables in plain lines, "
                        "for screen readers and phones) rather than the interface")
    p.add_argument("--max-per-address", type=int, default=16, metavar="N",
                   help="connections from one address, across all tables (default 16; more for players behind one NAT)")
    p.add_argument("--max-visitors", type=int, default=None, metavar="N",
                   help="visitors through the --ssh and --web doors at once, lobby and tables together "
                        f"(default: what half this machine's memory holds at ~{VISITOR_MB // 2} MB a visitor, here {visitors_for_memory()})")
    p.add_argument("--lobby-idle", default="10m", metavar="TIME",
                   help="a door's visitor in the lobby without a key this long is let go (e.g. 90s, 10m, 1h; default 10m)")
    p.add_argument("--max-tables", type=int, default=10_000, metavar="N", help="live tables in all (default 10000)")
    p.add_argument("--notify-allow", action="append", default=[], metavar="PATTERN",
                   help="a URL glob tables may send notifications to (e.g. https://hooks.example.org/*; repeatable; none: off)")
    p.add_argument("--archive-after", type=float, default=30, metavar="DAYS",
                   help="a table without a move for this long is archived: no longer listed, its save kept (default 30)")
    p.add_argument("--store", metavar="URL", default=os.environ.get("CTHULHU_STORE") or None,
                   help="keep the records and every table's save in this PostgreSQL database (postgresql://USER@HOST/DB; "
                        "also CTHULHU_STORE; needs cthulhu[postgres]) instead of --data's SQLite file and tables/")
    p.add_argument("--advertise", metavar="HOST:PORT",
                   help="with --store: where the other processes sharing the database send this one's joiners "
                        "(default: --bind's address, the machine's name for 0.0.0.0, and the port it listens on)")
    p.add_argument("--lease", type=float, default=15.0, metavar="SECONDS",
                   help="with --store: how long a process that died keeps its tables from the others (default 15)")
    p.add_argument("--migrate-to", metavar="URL",
                   help="copy the SQLite server in --data (records and saves) into this new PostgreSQL database, "
                        "check every table replays to its hashes there, then exit")
    p.add_argument("--rebuild", action="store_true",
                   help="list the tables again from their saves in --data's tables/, into a database that lists none "
                        "(after server.db was lost), then exit")
    p.set_defaults(func=run)


RANGES: dict[str, Range] = {
    "port": (0, PORT_MAX, ""),
    "ssh": (0, PORT_MAX, ""),
    "tls_port": (0, PORT_MAX, ""),
    "web": (0, PORT_MAX, ""),
    "max_per_address": (1, 100_000, ""),
    "max_tables": (1, 1_000_000, ""),
    "max_visitors": (1, 100_000, ""),
    "archive_after": (0.001, 36_500, " days"),
    "lease": (0.5, 3600, " seconds"),
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

    from cthulhu.net import clean_name
    from cthulhu.savegame import SaveLocked
    from cthulhu.server import Notifier, ServerLimits, StoreError, open_server
    from cthulhu.server.hookurl import allowed

    problem = out_of_range(args, RANGES)
    if problem is not None:
        return refuse("server", problem)
    from cthulhu.server.postgres import is_url

    for option, url in (("--store", args.store), ("--migrate-to", args.migrate_to)):
        if url is not None and not is_url(url):
            return refuse("server", f"{option} takes a postgresql:// URL (postgresql://USER@HOST/DATABASE)")
    if args.reader_door and args.ssh is None and args.web is None:
        return refuse("server", "--reader-door goes with --ssh or --web (it is what their visitors get)")
    if args.migrate_to is not None:
        from .migrate import migrate

        return migrate(data_folder(args.data), args.migrate_to)
    if args.rebuild:
        if args.store is not None:
            return refuse("server", "--rebuild lists tables from the save files of --data; a PostgreSQL store keeps its saves itself")
        return rebuild(data_folder(args.data))
    if args.name is not None and not clean_name(args.name):
        return refuse("server", "--name needs at least one printable character")
    try:
        notifier = Notifier(allowed(args.notify_allow))
    except ValueError as exc:
        return refuse("server", str(exc))
    from cthulhu.net import Limits

    from .host import log_warnings_to_stderr

    from cthulhu.net import parse_duration

    try:
        args.lobby_idle = parse_duration(args.lobby_idle)
    except ValueError as exc:
        return refuse("server", f"--lobby-idle: {exc}")
    args.tls = None
    if (args.tls_cert is None) != (args.tls_key is None):
        return refuse("server", "--tls-cert and --tls-key go together")
    if args.tls_cert is None and args.tls_port is not None:
        return refuse("server", "--tls-port needs --tls-cert and --tls-key")
    if args.tls_cert is not None:
        import ssl

        from cthulhu.net import tls

        try:
            args.tls = tls.server_context(args.tls_cert, args.tls_key)
        except (OSError, ssl.SSLError) as exc:
            return refuse("server", f"cannot load the TLS certificate and key: {getattr(exc, 'strerror', None) or exc}")
        if args.tls_port is None:
            args.tls_port = tls.DEFAULT_PORT
    if args.max_visitors is None:
        args.max_visitors = visitors_for_memory()
    _more_files()
    doors = args.ssh is not None or args.web is not None
    table_limits = Limits(max_connections=4096, max_per_address=args.max_per_address)
    if doors:
        # Every visitor of the doors connects from loopback (a lobby or a table connection each).
        table_limits = table_limits.but(door_visitors=args.max_visitors)
    limits = ServerLimits(table=table_limits, max_tables=args.max_tables, archive_after=timedelta(days=args.archive_after))
    data = data_folder(args.data)
    try:
        server = open_server(data, name=clean_name(args.name) if args.name else None, limits=limits, notifier=notifier,
                             store_url=args.store)
    except SaveLocked as exc:
        return refuse("server", f"{data} is served already: {exc.message}")
    except (StoreError, OSError) as exc:
        return refuse("server", str(exc))
    if args.store is not None:
        from .fleet import join_fleet

        problem = join_fleet(server, args)
        if problem is not None:
            server.store.close()
            return refuse("server", problem)
    log_warnings_to_stderr("server")
    try:
        return trio.run(serve, server, args)
    finally:
        server.store.close()


def rebuild(data: Path) -> int:
    """`--rebuild`: one line per save in `tables/` (listed, or skipped and why), then a summary."""
    from cthulhu.savegame import SaveLocked, hold, release
    from cthulhu.server import DATABASE, SqliteStore, StoreError
    from cthulhu.server.rebuild import rebuild as rebuild_records

    if not (data / "tables").is_dir():
        return refuse("server", f"{data} has no tables/ folder: there is nothing to rebuild from")
    try:
        hold(data / DATABASE)
    except SaveLocked as exc:
        return refuse("server", f"{data} is served already: {exc.message}")
    try:
        store = SqliteStore(data / DATABASE)
        try:
            listed = skipped = 0
            for found in rebuild_records(store, data / "tables"):
                print(found.line(), flush=True)
                listed += found.record is not None
                skipped += found.record is None
        finally:
            store.close()
    except (StoreError, OSError) as exc:
        return refuse("server", str(exc))
    finally:
        release(data / DATABASE)
    print(f"Rebuilt {data / DATABASE}: {listed} table{'s' if listed != 1 else ''} listed, {skipped} skipped. "
          "Each is private with the new code shown (a table's code is not in its save); its players take their "
          "seats back with their seat tokens. Lost with the database: identities, creators, turn-based paces.", flush=True)
    return 0


def open_lobby_doors(args: argparse.Namespace, port: int, data: Path) -> FrontDoors:
    """The SSH and web doors, opening on the lobby: each visitor's interface joins the server with
    no table named. Their identities (an SSH key, a return ticket, a browser) keep their folders in
    the data folder, so visitors are the same players after a restart."""
    from cthulhu.serve.doors import DoorError, FrontDoors

    from .host import DoorsClosed

    caps = {"server": True, "max_sessions": args.max_visitors, "max_per_address": args.max_per_address, "lobby_idle": args.lobby_idle,
            "reader": args.reader_door}
    doors = FrontDoors(bind=args.bind, code=None, ssh_port=args.ssh, web_port=args.web, data_dir=data, table="lobby", keep=True,
                       caps=caps)
    try:
        doors.start()
    except DoorError as exc:
        raise DoorsClosed(str(exc)) from None
    doors.open_table(args.bind, port)
    return doors


def _kept_in(server: object, args: argparse.Namespace) -> str:
    """Where the records and saves are: the data folder, or the PostgreSQL database (no password)."""
    from cthulhu.server import TableServer
    from cthulhu.server.postgres import describe

    assert isinstance(server, TableServer)
    return describe(args.store) if args.store is not None else str(server.data)


async def serve(server: object, args: argparse.Namespace) -> int:
    import trio

    from cthulhu.net import join_address, join_command
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
            tls_port = None
            if args.tls is not None:
                from cthulhu.net import serve_tls

                try:
                    tls_port = await nursery.start(serve_tls, args.tls_port, args.bind, args.tls, server.limits.table, server.gate, server.handle)
                except OSError as exc:
                    print(f"cthulhu server: cannot listen on {args.bind}:{args.tls_port}: {exc.strerror or exc}", file=sys.stderr)
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
            print(f"Server:     {server.name}, {live} table{'s' if live != 1 else ''} ({_kept_in(server, args)})", flush=True)
            print(f"Lobby:      {join_command(address)}", flush=True)
            print(f"Tables:     cthulhu tables {address}", flush=True)
            if server.fleet is not None:
                me = server.fleet.me
                print(f"Fleet:      one of the processes on {_kept_in(server, args)}; joiners of its tables are sent to {me.host}:{me.port} "
                      f"(lease {args.lease:g} s)", flush=True)
            if tls_port is not None:
                secure = f"tls://{join_address(args.bind, tls_port)}"
                print(f"TLS:        {join_command(secure)} (and cthulhu tables {secure}): identity keys cross encrypted", flush=True)
            for line in doors.lines if doors is not None else ():
                print(line, flush=True)
            try:
                async for signum in signals:
                    stopped_by = signum
                    break
                if server.fleet is not None:  # its tables to the other processes, its peers with them
                    await server.fleet.hand_off()
            finally:
                if doors is not None:
                    with trio.CancelScope(shield=True):
                        await trio.to_thread.run_sync(doors.stop)
                nursery.cancel_scope.cancel()
    saved = server.saved_at_stop
    print(f"Stopped: {saved} open table{'s' if saved != 1 else ''} saved; every table's save is in {_kept_in(server, args)}", flush=True)
    return 0 if stopped_by in (signal.SIGINT, signal.SIGTERM, None) else 1
