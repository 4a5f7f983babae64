"""`cthulhu server --store postgresql://...`: this process as one of several sharing the database
(`server.fleet`): the address the others send its joiners to, and how long its leases run."""

from __future__ import annotations

import argparse
import socket

from .join import parse_address


def advertised(args: argparse.Namespace) -> tuple[str, int]:
    """`--advertise`, else `--bind` (the machine's name for a wildcard) and `--port` (0: the port
    it gets, filled in once it listens)."""
    if args.advertise is not None:
        return parse_address(args.advertise, args.port or 7777)
    host = args.bind if args.bind not in ("0.0.0.0", "::", "") else socket.getfqdn()
    return host, args.port


def join_fleet(server: object, args: argparse.Namespace) -> str | None:
    """Make `server` one process of the fleet on its PostgreSQL store; a problem's line, or None."""
    from cthulhu.server import TableServer
    from cthulhu.server.fleet import Fleet
    from cthulhu.server.lease import Me
    from cthulhu.server.postgres import PostgresStore

    assert isinstance(server, TableServer) and isinstance(server.store, PostgresStore)
    try:
        host, port = advertised(args)
    except ValueError as exc:
        return f"--advertise: {exc}"
    tls_port = args.tls_port if args.tls is not None and args.tls_port else None
    server.fleet = Fleet(server.store, Me.new(host, port, tls_port), args.lease)
    return None
