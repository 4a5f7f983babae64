"""`cthulhu join HOST[:PORT]`: take a seat at a hosted table in the game interface, or let a
headless bot play it (`--headless --bot ...`). At a server of many tables (`cthulhu server`),
`--table ID` names the table; without it the interface opens the server's lobby.

The seat token the host gives is kept on this machine (the user data folder), so
the same command run again (after a dropped connection, a closed terminal or a
host restart) takes the same seat back. A lost connection is retried with
back-off for 15 minutes, by the interface and by a headless bot alike.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from .common import (
    BOT_RANGES, PORT_MAX, SEATS_MAX, SEED_MAX, add_bot_options, add_interface_options, default_name, out_of_range, refuse, theme_of,
    thinking_of, thinking_problem,
)
from .reader import add_reader_option

if TYPE_CHECKING:
    import ssl


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "join",
        help="join a table hosted with `cthulhu host`, or a server's lobby or table",
        description="Take a seat at a hosted table (or watch it), in the game interface or with a headless bot. "
        "At a server of many tables (`cthulhu server`), --table names the table; without it, the interface opens the lobby. "
        "Seats count from 1, as the table shows them.",
    )
    p.add_argument("address", metavar="ADDRESS", help="where the host listens (port 7777 if omitted; "
                   "tls://HOST[:PORT] for a server's TLS port, 7778 if omitted)")
    p.add_argument("--table", metavar="ID", help="at a server of many tables: the table to sit at (`cthulhu tables HOST` lists them)")
    p.add_argument("--name", default=None, help="your name at the table (default: your login name)")
    p.add_argument("--code", default=os.environ.get("CTHULHU_CODE") or None,
                   help="the table code the host printed (or set CTHULHU_CODE: the environment, unlike the command line, is not shown by ps)")
    p.add_argument("--seat", type=int, help="the seat to ask for, numbered as the table shows it (1 is the first)")
    p.add_argument("--token", help="a seat token, to take a seat back from another machine")
    p.add_argument("--watch", action="store_true", help="spectate, even if a seat is free")
    p.add_argument("--link", action="store_true", help="at a server: print a one-time code that links its SSH or web lobby "
                   "(the l key there) to this machine's identity: one name, one \"my tables\"")
    add_bot_options(p, default=None, about="let a bot play the seat (with --headless)")
    p.add_argument("--seed", type=int, default=0, help="the bot's own seed")
    p.add_argument("--headless", action="store_true", help="no interface: play to the end and print the final hash")
    p.add_argument("--json", action="store_true", help="with --headless: print a JSON summary object")
    p.add_argument("--kiosk", action="store_true", help="this table only: no title screen, no new games, no files written "
                   "but the seat store (what `cthulhu host --ssh/--web` runs for each visitor)")
    p.add_argument("--lobby-idle", type=float, default=None, metavar="SECONDS",
                   help="in a server's lobby: leave after this long without a key (the doors set it for their visitors; default never)")
    add_tls_option(p)
    add_interface_options(p)
    add_reader_option(p)
    p.set_defaults(func=run)


def parse_address(text: str, default_port: int = 7777) -> tuple[str, int]:
    """`host`, `host:port`, `[v6]:port` -> (host, port)."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else default_port
    if text.count(":") == 1:
        host, port = text.split(":")
        return host or "127.0.0.1", int(port)
    return text, default_port


def add_tls_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tls-ca", metavar="FILE", help="with a tls:// address: trust the server's certificate in FILE "
                   "(a self-signed server's own; default: the system's trusted authorities)")


def reach(args: argparse.Namespace) -> tuple[str, int, ssl.SSLContext | None]:
    """Where `args.address` (HOST[:PORT], or tls://HOST[:PORT] for a server's TLS port) is and how
    to connect: the host's certificate checked against `--tls-ca` or the system's store.
    `ValueError`: the line to refuse with."""
    import ssl

    from cthulhu.net import tls

    secure, rest = tls.split_scheme(args.address)
    try:
        host, port = parse_address(rest, tls.DEFAULT_PORT if secure else 7777)
    except ValueError:
        raise ValueError(f"bad address {args.address!r} (HOST[:PORT] or tls://HOST[:PORT])") from None
    if not 1 <= port <= PORT_MAX:
        raise ValueError(f"bad address {args.address!r}: the port must be 1 to {PORT_MAX}")
    if not secure:
        if args.tls_ca is not None:
            raise ValueError("--tls-ca goes with a tls:// address")
        return host, port, None
    try:
        return host, port, tls.client_context(args.tls_ca)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"--tls-ca: cannot load {args.tls_ca}: {getattr(exc, 'strerror', None) or exc}") from None


def run(args: argparse.Namespace) -> int:
    import trio

    try:
        host, port, tls = reach(args)
    except ValueError as exc:
        return refuse("join", str(exc))
    if args.seat is not None and args.seat < 1:
        return refuse("join", "--seat counts from 1, as the table shows the seats")
    problem = out_of_range(args, {"seat": (1, SEATS_MAX, ""), "seed": (0, SEED_MAX, ""), "lobby_idle": (1, 86_400, " seconds"), **BOT_RANGES})
    if problem is not None:
        return refuse("join", problem)
    if args.seat is not None:
        args.seat -= 1  # the protocol counts from 0
    if args.link:
        from .linkcode import print_link_code

        return trio.run(print_link_code, host, port, args.address, args.name or default_name())
    if args.reader:
        if args.headless or args.bot is not None or args.json:
            return refuse("join", "--reader is a way to play yourself: not with --headless, --bot or --json")
        if table_problem(args):
            return refuse("join", TABLE_ID)
        from .reader import join

        return join(args, host, port, tls)
    if not args.headless:
        if args.bot is not None:
            return refuse("join", "--bot plays without an interface; add --headless")
        if args.think is not None or args.sims is not None:
            return refuse("join", "--think and --sims are for a bot (--headless --bot search)")
        from cthulhu.tui.app import run as run_app
        from cthulhu.tui.app import run_visitor
        from cthulhu.tui.options import PlayOptions

        options = PlayOptions(
            join=(host, port),
            tls=tls,
            join_address=args.address,
            code=args.code,
            name=args.name or default_name(),
            join_seat=args.seat,
            join_table=args.table,
            token=args.token,
            watch=args.watch,
            ascii=args.ascii,
            hints=not args.no_hints,
            theme=theme_of(args),
            skip_title=True,
            kiosk=args.kiosk,
            kiosk_comeback=os.environ.get("CTHULHU_COMEBACK") if args.kiosk else None,
            lobby_idle=args.lobby_idle,
        )
        from .embedded import table_link

        return run_visitor(options) if args.kiosk else run_app(options, table_link)
    if args.bot is None and not args.watch:
        from cthulhu.core import modes

        return refuse("join", f"--headless needs --bot {'|'.join(modes.bot_kinds())} (or --watch)")
    problem = thinking_problem(args)
    if problem is not None:
        return refuse("join", problem)
    if table_problem(args):
        return refuse("join", TABLE_ID)
    return trio.run(_headless, host, port, tls, args)


TABLE_ID = "--table takes a table's id, as `cthulhu tables HOST` lists it"


def table_problem(args: argparse.Namespace) -> bool:
    """`--table` given, but nothing a table's id could be."""
    return args.table is not None and (not args.table or len(args.table) > 32 or args.table.startswith("-"))


async def _headless(host: str, port: int, tls: ssl.SSLContext | None, args: argparse.Namespace) -> int:
    """Play the seat with a bot to the end; print the seat token as soon as the host gives it.

    With `--name` the token is also kept in the seat store (a second run with the same
    name takes the seat back); without, each run is a new player, so the same bot
    command started three times fills three seats."""
    from cthulhu.core import modes
    from cthulhu.net import RECONNECT_FOR, PeerSession, play_bot
    from cthulhu.net import join_command
    from cthulhu.net import SeatStore
    from cthulhu.net import clean_text  # what the host sends is printed: clean it
    from cthulhu.net import TlsFailed

    name = args.name or (f"{args.bot} bot" if args.bot else "watcher")
    store = SeatStore() if args.name and not args.watch else None
    token = args.token
    stored = None
    if token is None and store is not None:
        entry = store.find(name=name, address=args.address, table=args.table)
        token = stored = entry.token if entry is not None else None
    shown: list[str] = []

    def seat(session: PeerSession, word: str = "Seat") -> str:
        """'Seat 2 (Mina Castellane)': the number `--seat` takes, and who people know that seat as."""
        view, n = session.mirror.view or {}, session.seat or 0
        try:  # what the host sent: its declared shape first
            mode = modes.get(str(view.get("mode")))
            return f"{word} {n + 1} ({mode.playing(mode.check_view(view), n)})"
        except ValueError:
            return f"{word} {n + 1}"

    def on_welcome(session: PeerSession) -> None:
        if session.token and session.seat is not None and session.token not in shown:  # a token without a seat is no seat
            shown.append(session.token)
            print(clean_text(f"{seat(session)}; seat token {session.token}; come back with: "
                             f"{join_command(args.address, args.code, token=session.token, table=args.table)}"), file=sys.stderr, flush=True)
            if store is not None:
                try:
                    store.remember(address=args.address, table=session.table.id if session.table else None,
                                   name=name, seat=session.seat, token=session.token)
                except OSError as exc:
                    print(f"cthulhu join: could not keep the seat token: {exc.strerror or exc}", file=sys.stderr)
        elif len(shown) and session.seat is not None:
            print(clean_text(f"Back at {seat(session, 'seat')}."), file=sys.stderr, flush=True)

    def on_retry(attempt: int, error: Exception | None) -> None:
        if error is not None:
            print(f"cthulhu join: gave up reconnecting to {args.address} after {attempt} attempts", file=sys.stderr, flush=True)
        elif attempt == 1 or attempt % 30 == 0:
            print(f"Lost the connection to {args.address}; reconnecting (attempt {attempt})...", file=sys.stderr, flush=True)

    ident = store.identity(args.address) if store is not None and args.table else None  # a server knows its players by it

    async def attempt(token: str | None) -> PeerSession:
        session = PeerSession(name, code=args.code, seat=args.seat, token=token, watch=args.watch, table_id=args.table, ident=ident)
        return await play_bot(host, port, bot=args.bot or "random", seed=args.seed, thinking=thinking_of(args), session=session,
                              reconnect_for=RECONNECT_FOR, on_welcome=on_welcome, on_retry=on_retry, tls=tls)

    try:
        session = await attempt(token)
        if store is not None and stored is not None and session.closed is not None and session.closed.code == "bad_token":
            store.forget(stored)  # a seat from another game at this address, or one since freed
            session = await attempt(None)
    except TlsFailed as exc:
        return refuse("join", str(exc))
    except OSError as exc:
        print(f"cthulhu join: cannot reach {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if session.closed is not None and session.closed.code == "server_lobby":
        return refuse("join", f"{args.address} is a server of many tables: name one with --table ID (`cthulhu tables {args.address}` lists them)")
    if session.closed is not None and session.closed.code == "host_closed":
        print(clean_text(f"cthulhu join: {session.closed.reason}"), file=sys.stderr)  # on purpose: not a refusal
        return 1
    if session.closed is not None:
        print(clean_text(f"cthulhu join: refused: {session.closed.reason} ({session.closed.code})"), file=sys.stderr)
        return 1
    summary = session.summary()
    if summary["seat"] is not None:
        summary["seat"] += 1  # as the table shows it, and as --seat takes it
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(clean_text(summary["final_hash"] or "(no final hash: the game did not end)"))  # the host said so
        if session.dice is not None:
            print(clean_text(f"Dice: {session.dice.message}"), file=sys.stderr)
        if session.dice is not None and session.dice.luck is not None:  # as the game-over dialog says it
            print("How the dice fell:", file=sys.stderr)
            for line in session.dice.luck.lines():
                print(clean_text(f"  {line}"), file=sys.stderr)
    return 0 if session.game_over is not None else 1
