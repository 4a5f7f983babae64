"""`cthulhu join HOST[:PORT]`: take a seat at a hosted table in the game interface, or let a
headless bot play it (`--headless --bot ...`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("join", help="join a table hosted with `cthulhu host`")
    p.add_argument("address", metavar="HOST[:PORT]", help="where the host listens (port 7777 if omitted)")
    p.add_argument("--name", default=None, help="your name at the table")
    p.add_argument("--code", help="the table code the host printed")
    p.add_argument("--seat", type=int, help="the seat to take back (with --token) or to ask for")
    p.add_argument("--token", help="seat token, to reclaim your seat after a disconnect")
    p.add_argument("--watch", action="store_true", help="spectate, even if a seat is free")
    p.add_argument("--bot", choices=["random", "heuristic"], help="let a bot play the seat")
    p.add_argument("--seed", type=int, default=0, help="the bot's own seed")
    p.add_argument("--headless", action="store_true", help="no interface: play to the end and print the final hash")
    p.add_argument("--json", action="store_true", help="with --headless: print a JSON summary object")
    p.add_argument("--ascii", action="store_true", help="plain ASCII, no box drawing")
    p.add_argument("--token-file", metavar="FILE", help="keep the seat token in FILE (0600) and take the seat back with it")
    p.add_argument("--kiosk", action="store_true", help="this table only: no title screen, no new games, no files "
                   "(what `cthulhu host --ssh/--web` runs for each visitor)")
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


def run(args: argparse.Namespace) -> int:
    import trio

    try:
        host, port = parse_address(args.address)
    except ValueError:
        print(f"cthulhu join: bad address {args.address!r} (HOST[:PORT])", file=sys.stderr)
        return 2
    if not args.headless:
        if args.bot is not None:
            print("cthulhu join: --bot plays without an interface; add --headless", file=sys.stderr)
            return 2
        from .app import run as run_app
        from .options import PlayOptions

        options = PlayOptions(
            join=(host, port),
            code=args.code,
            name=args.name or "you",
            join_seat=args.seat,
            watch=args.watch,
            ascii=args.ascii,
            skip_title=True,
            token_file=Path(args.token_file) if args.token_file else None,
            kiosk=args.kiosk,
        )
        return run_app(options)
    if args.bot is None and not args.watch:
        print("cthulhu join: --headless needs --bot random|heuristic (or --watch)", file=sys.stderr)
        return 2
    return trio.run(_headless, host, port, args)


async def _headless(host: str, port: int, args: argparse.Namespace) -> int:
    from cthulhu.net.client import PeerSession, play_bot

    name = args.name or (f"{args.bot} bot" if args.bot else "watcher")
    session = PeerSession(name, code=args.code, seat=args.seat, token=args.token, watch=args.watch)
    try:
        session = await play_bot(host, port, bot=args.bot or "random", seed=args.seed, session=session)
    except OSError as exc:
        print(f"cthulhu join: cannot reach {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if session.closed is not None:
        print(f"cthulhu join: refused: {session.closed.reason} ({session.closed.code})", file=sys.stderr)
        return 1
    summary = session.summary()
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        if session.token and session.game_over is None:
            print(f"Seat {session.seat}; reconnect with --seat {session.seat} --token {session.token}", file=sys.stderr)
        print(summary["final_hash"] or "(no final hash: the game did not end)")
    return 0 if session.game_over is not None else 1
