"""`cthulhu tables HOST[:PORT]`: a server's tables for people and scripts, and new ones.

Lists what the server's lobby lists (`--json`: one object per table with `id`, `mode`, `setup`,
`seats` as `{seat, name, status}`, `step`, `moving` (the seats that must decide), `mine` (yours),
`to_move` (true: it is your move), `finished`, `pace`, and for a turn-based table `turn_time`,
`on_timeout` and `deadline`; seats numbered from 1, as `join --seat` takes them), or creates a table from the same set-up options `play` takes and
prints its id and the join line (`--json`: `id`, `code` for a private table, `join`). This
machine is known to the server by the identity key its seat store keeps for that address, so
"my tables" (`--mine`) and the name follow it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .common import (
    BOT_RANGES, SEATS_MAX, Range, add_pace_options, add_setup_options, choice_problem, default_name, given_choices, out_of_range, pace_of,
    refuse, thinking_problem,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "tables",
        help="list a server's tables, or create one (`cthulhu server`)",
        description="List the tables of a server of many tables, or create one with --create and the set-up options play takes.",
    )
    p.add_argument("address", metavar="HOST[:PORT]", help="where the server listens (port 7777 if omitted)")
    p.add_argument("--json", action="store_true", help="JSON for scripts")
    p.add_argument("--mine", action="store_true", help="only the tables where you hold a seat (those at your move first)")
    p.add_argument("--search", metavar="WORDS", default="", help="only tables whose mode, set-up, players or id have every word")
    p.add_argument("--name", default=None, help="your name at this server, the first time (default: your login name)")
    p.add_argument("--create", action="store_true", help="create a table and print its id and join line")
    add_setup_options(p, bot_help="with --create: the kind of the bots (and of stand-ins)")
    p.add_argument("--seats", type=int, default=4, help="with --create: seats at the table (1-5)")
    p.add_argument("--bots", type=int, default=0, help="with --create: seats played by bots (the last N)")
    p.add_argument("--bot-delay", type=float, default=0.5, metavar="SECONDS", help="with --create: a pause before each bot move (default 0.5)")
    p.add_argument("--private", action="store_true", help="with --create: listed only to its players; joiners need the code printed")
    add_pace_options(p, "with --create: ")
    p.add_argument("--notify", metavar="URL", help="with --create: POST a small JSON there when a player's move begins "
                                                    "(the server's operator says which addresses: server --notify-allow)")
    p.set_defaults(func=run)


RANGES: dict[str, Range] = {"seats": (1, SEATS_MAX, ""), "bots": (0, SEATS_MAX, ""), "bot_delay": (0, 60, " seconds"), **BOT_RANGES}


def run(args: argparse.Namespace) -> int:
    import trio

    from .join import parse_address

    try:
        host, port = parse_address(args.address)
    except ValueError:
        return refuse("tables", f"bad address {args.address!r} (HOST[:PORT])")
    if not 1 <= port <= 65535:
        return refuse("tables", f"bad address {args.address!r}: the port must be 1 to 65535")
    if args.create:
        problem = out_of_range(args, RANGES) or thinking_problem(args) or choice_problem(args.mode, given_choices(args), args.bot)
        if problem is None and args.bots > args.seats:
            problem = "--bots must be at most --seats"
        if problem is not None:
            return refuse("tables", problem)
        try:
            args.pace = pace_of(args)
        except ValueError as exc:
            return refuse("tables", str(exc))
    elif any(getattr(args, name) not in (None, False) for name in ("private", "turn_time", "on_timeout", "notify")) or given_choices(args):
        return refuse("tables", "the set-up options, --seats, --bots, --private, --turn-time, --on-timeout and --notify go with --create")
    return trio.run(_talk, host, port, args)


def _seat_word(seat: Any) -> str:
    from cthulhu.net.textclean import clean_text

    n = seat.seat + 1
    if seat.status == "open":
        return f"{n} open"
    name = clean_text(seat.name or "?")
    return f"{n} {name}" + (" (away)" if seat.status == "away" else "")


def table_json(row: Any) -> dict[str, Any]:
    """What a script is told of a table: seats numbered from 1, as `join --seat` takes them.
    `to_move`: one of the asker's seats must decide now."""
    out = {
        "id": row.id,
        "mode": row.mode,
        "setup": row.setup,
        "seats": [{"seat": s.seat + 1, "name": s.name, "status": s.status} for s in row.seats],
        "step": row.step,
        "moving": [seat + 1 for seat in row.to_move],
        "mine": [seat + 1 for seat in row.mine],
        "to_move": bool(set(row.mine) & set(row.to_move)),
        "finished": row.finished,
        "pace": row.pace,
    }
    if row.pace == "turn-based":
        out |= {"turn_time": row.turn_time, "on_timeout": row.on_timeout, "deadline": row.deadline}
    return out


async def _talk(host: str, port: int, args: argparse.Namespace) -> int:
    from cthulhu.net.invite import join_command
    from cthulhu.net.lobbyclient import LobbyRefused, open_lobby
    from cthulhu.net.messages import Rejected
    from cthulhu.net.seatstore import SeatStore
    from cthulhu.net.textclean import clean_text

    try:
        ident = SeatStore().identity(args.address)
    except OSError as exc:  # a machine that cannot keep a key is anonymous at the server
        print(f"cthulhu tables: could not keep this machine's identity key: {exc.strerror or exc}", file=sys.stderr)
        ident = None
    try:
        async with open_lobby(host, port, args.name or default_name(), ident) as lobby:
            if args.create:
                pace = args.pace
                answer = await lobby.create(mode=args.mode, options=given_choices(args), seats=args.seats, bots=args.bots,
                                            bot=args.bot, bot_delay_ms=round(args.bot_delay * 1000), private=args.private,
                                            turn_time=None if pace.turn_time is None else int(pace.turn_time), on_timeout=pace.on_timeout,
                                            notify=args.notify)
                if isinstance(answer, Rejected):
                    return refuse("tables", f"the server refused: {answer.reason} ({answer.code})")
                join = join_command(args.address, answer.code, table=answer.id)
                if args.json:
                    out: dict[str, Any] = {"id": answer.id, "join": join}
                    if answer.code is not None:
                        out["code"] = answer.code
                    print(json.dumps(out, sort_keys=True))
                else:
                    print(clean_text(f"Table {answer.id} created" + (f" (private, code {answer.code})" if answer.code else "") + "."))
                    print(clean_text(f"Join with: {join}"))
                return 0
            rows = await lobby.everything(query=args.search, mine=args.mine)
    except LobbyRefused as exc:
        if exc.code == "not_a_server":
            return refuse("tables", f"{args.address} hosts one table, not a server of many: join it with `cthulhu join {args.address}`")
        return refuse("tables", f"the server refused: {exc.reason} ({exc.code})")
    except OSError as exc:
        print(f"cthulhu tables: cannot reach {args.address}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([table_json(row) for row in rows], sort_keys=True))
        return 0
    if not rows:
        print("No tables" + (" of yours" if args.mine else "") + (" match" if args.search else "") + " here yet. "
              f"Make one: cthulhu tables {args.address} --create")
        return 0
    from datetime import datetime, timezone

    from cthulhu.core import modes
    from cthulhu.net.clock import pace_words

    for row in rows:
        title = modes.get(row.mode).title if row.mode in modes.names() else row.mode
        about = f"{title}: {row.about}" if row.about else title
        state = f"{row.outcome} at step {row.step}" if row.finished else f"step {row.step}" if row.step else "not started"
        moving = f", seat {' and '.join(str(s + 1) for s in row.to_move)} to move" if row.to_move else ""
        if set(row.mine) & set(row.to_move):
            moving += " (your move)"
        moving += pace_words(row, datetime.now(timezone.utc))
        flags = "".join([" private" if row.private else "", f" (you: seat {', '.join(str(s + 1) for s in row.mine)})" if row.mine else ""])
        print(clean_text(f"{row.id}  {about}{flags}"))
        print(clean_text(f"    seats: {'; '.join(_seat_word(s) for s in row.seats)} - {state}{moving}"
                         + (f", last move {row.last_move}" if row.last_move else "")))
    return 0
