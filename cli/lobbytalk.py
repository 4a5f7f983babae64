"""A short talk with a server's lobby for the commands that only ask (`records`, `challenge HOST`):
this machine's identity key for that address (as `tables` uses it), the lobby opened, and every
way it can fail said in one line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .common import default_name, refuse

if TYPE_CHECKING:
    from cthulhu.net import TrioLobby


def talk(command: str, args: argparse.Namespace, what: Callable[[TrioLobby], Awaitable[int]]) -> int:
    """`what(lobby)` at the server `args.address`; its exit status, or a refusal's (2) or 1 when nothing answers."""
    import trio

    from .join import reach

    try:
        host, port, tls = reach(args)
    except ValueError as exc:
        return refuse(command, str(exc))

    async def run() -> int:
        from cthulhu.net import LobbyRefused, open_lobby
        from cthulhu.net import SeatStore
        from cthulhu.net import TlsFailed

        try:
            ident = SeatStore().identity(args.address)
        except OSError as exc:  # a machine that cannot keep a key is anonymous at the server
            print(f"cthulhu {command}: could not keep this machine's identity key: {exc.strerror or exc}", file=sys.stderr)
            ident = None
        try:
            async with open_lobby(host, port, args.name or default_name(), ident, tls) as lobby:
                return await what(lobby)
        except LobbyRefused as exc:
            if exc.code == "not_a_server":
                return refuse(command, f"{args.address} hosts one table, not a server of many")
            return refuse(command, f"the server refused: {exc.reason} ({exc.code})")
        except TlsFailed as exc:
            return refuse(command, str(exc))
        except OSError as exc:
            print(f"cthulhu {command}: cannot reach {args.address}: {exc.strerror or exc}", file=sys.stderr)
            return 1

    return trio.run(run)


def add_address(p: argparse.ArgumentParser, *, optional: bool = False) -> None:
    """ADDRESS (HOST[:PORT] or tls://HOST[:PORT]), `--name` and `--tls-ca`, as `tables` takes them."""
    from .join import add_tls_option

    p.add_argument("address", metavar="ADDRESS", nargs="?" if optional else None,
                   help="a server of many tables: HOST[:PORT] (port 7777 if omitted), or tls://HOST[:PORT] (7778)")
    p.add_argument("--name", default=None, help="your name at this server, the first time (default: your login name)")
    add_tls_option(p)
