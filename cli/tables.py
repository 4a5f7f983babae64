"""`cthulhu tables HOST[:PORT]`: a server's tables for people and scripts, and new ones.

Lists what the server's lobby lists (`--json`: one array, an object per table with `id`, `mode`,
`setup` (ids) and `about` (the same in words), `seats` as `{seat, name, status}` (status `open`,
`person`, `bot`, `away`, or `stand_in`: a stand-in bot plays that person's seat now), `step`,
`moving` (the seats that must decide), `mine` (yours), `to_move` (true: it is your move),
`finished`, `pace`, and for a turn-based table `turn_time`, `on_timeout`, `away_after`, `deadline`
and `paused` (its clock is stopped); seats numbered from 1, as `join --seat` takes them), or creates
a table from the same set-up options `play` takes and prints its id, its pace and notify address,
and the join line (`--json`: one object, `id`, `join`, `pace` (with `turn_time`, `on_timeout` and
`away_after` when turn-based), `code` for a private table, `notify`). This
machine is known to the server by the identity key its seat store keeps for that address, so
"my tables" (`--mine`) and the name follow it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from .common import (
    BOT_RANGES, SEATS_MAX, Range, add_pace_options, add_setup_options, choice_problem, default_name, given_choices, out_of_range, pace_of,
    refuse, thinking_problem,
)
from .join import add_tls_option

if TYPE_CHECKING:
    import ssl


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "tables",
        help="list a server's tables, or create one (`cthulhu server`)",
        description="List the tables of a server of many tables, or create one with --create and the set-up options play takes.",
    )
    p.add_argument("address", metavar="ADDRESS", help="where the server listens: HOST[:PORT] (port 7777 if omitted), "
                   "or tls://HOST[:PORT] for its TLS port (7778 if omitted)")
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
    p.add_argument("--notify", metavar="URL", help="with --create: POST there once when a player's move begins, and once more "
                                                    "when a quarter of their clock is left (the server's operator says which "
                                                    "addresses: server --notify-allow)")
    p.add_argument("--notify-format", choices=["json", "discord", "slack", "matrix"], default=None,
                   help="with --notify: the body the address takes: json (default), or a discord, slack or matrix message")
    add_tls_option(p)
    p.set_defaults(func=run)


RANGES: dict[str, Range] = {"seats": (1, SEATS_MAX, ""), "bots": (0, SEATS_MAX, ""), "bot_delay": (0, 60, " seconds"), **BOT_RANGES}


def run(args: argparse.Namespace) -> int:
    import trio

    from .join import reach

    try:
        host, port, tls = reach(args)
    except ValueError as exc:
        return refuse("tables", str(exc))
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
    elif any(getattr(args, name) not in (None, False) for name in ("private", "turn_time", "on_timeout", "away_after", "notify", "notify_format")) or given_choices(args):
        return refuse("tables", "the set-up options, --seats, --bots, --private, --turn-time, --on-timeout, --away-after and --notify go with --create")
    if args.notify_format is not None and args.notify is None:
        return refuse("tables", "--notify-format goes with --notify URL")
    return trio.run(_talk, host, port, tls, args)


def _pace_json(pace: Any) -> dict[str, Any]:
    if pace.turn_time is None:
        return {"pace": "live"}
    more = {"away_after": pace.away_after} if pace.on_timeout == "stand-in" else {}
    return {"pace": "turn-based", "turn_time": int(pace.turn_time), "on_timeout": pace.on_timeout, **more}


def _pace_line(pace: Any) -> str:
    """'Pace: live (no clock).' or 'Pace: turn-based, 12h a move; out of time: stand-in.'"""
    from cthulhu.net import format_duration

    if pace.turn_time is None:
        return "Pace: live (no clock)."
    kept = f" (keeps the seat after {pace.away_after} missed turns)" if pace.on_timeout == "stand-in" else ""
    return f"Pace: turn-based, {format_duration(pace.turn_time)} a move; out of time: {pace.on_timeout}{kept}."


def table_json(row: Any) -> dict[str, Any]:
    """What a script is told of a table: seats numbered from 1, as `join --seat` takes them.
    `to_move`: one of the asker's seats must decide now."""
    out = {
        "id": row.id,
        "mode": row.mode,
        "setup": row.setup,
        "about": row.about,  # the set-up in words, beside its ids
        "seats": [{"seat": s.seat + 1, "name": s.name, "status": s.status} for s in row.seats],
        "step": row.step,
        "moving": [seat + 1 for seat in row.to_move],
        "mine": [seat + 1 for seat in row.mine],
        "to_move": bool(set(row.mine) & set(row.to_move)),
        "finished": row.finished,
        "pace": row.pace,
    }
    if row.pace == "turn-based":
        out |= {"turn_time": row.turn_time, "on_timeout": row.on_timeout, "away_after": row.away_after, "deadline": row.deadline,
                "paused": row.paused}
    return out


async def _talk(host: str, port: int, tls: ssl.SSLContext | None, args: argparse.Namespace) -> int:
    from cthulhu.net import join_command
    from cthulhu.net import LobbyRefused, open_lobby
    from cthulhu.net import Rejected
    from cthulhu.net import SeatStore
    from cthulhu.net import clean_text
    from cthulhu.net import TlsFailed

    try:
        ident = SeatStore().identity(args.address)
    except OSError as exc:  # a machine that cannot keep a key is anonymous at the server
        print(f"cthulhu tables: could not keep this machine's identity key: {exc.strerror or exc}", file=sys.stderr)
        ident = None
    try:
        async with open_lobby(host, port, args.name or default_name(), ident, tls) as lobby:
            if args.create:
                pace = args.pace
                answer = await lobby.create(mode=args.mode, options=given_choices(args), seats=args.seats, bots=args.bots,
                                            bot=args.bot, bot_delay_ms=round(args.bot_delay * 1000), private=args.private,
                                            turn_time=None if pace.turn_time is None else int(pace.turn_time), on_timeout=pace.on_timeout,
                                            away_after=pace.away_after, notify=args.notify, notify_format=args.notify_format or "json")
                if isinstance(answer, Rejected):
                    return refuse("tables", f"the server refused: {answer.reason} ({answer.code})")
                join = join_command(args.address, answer.code, table=answer.id)
                if args.json:
                    out: dict[str, Any] = {"id": answer.id, "join": join, **_pace_json(pace)}
                    if answer.code is not None:
                        out["code"] = answer.code
                    if args.notify:
                        out["notify"] = args.notify
                    print(json.dumps(out, sort_keys=True))
                else:
                    print(clean_text(f"Table {answer.id} created" + (f" (private, code {answer.code})" if answer.code else "") + "."))
                    print(clean_text(_pace_line(pace)))  # what was asked for, said back
                    if args.notify:
                        print(clean_text(f"Notify: {args.notify} when a player's move begins."))
                    print(clean_text(f"Join with: {join}"))
                return 0
            rows = await lobby.everything(query=args.search, mine=args.mine)
    except LobbyRefused as exc:
        if exc.code == "not_a_server":
            return refuse("tables", f"{args.address} hosts one table, not a server of many: join it with `cthulhu join {args.address}`")
        return refuse("tables", f"the server refused: {exc.reason} ({exc.code})")
    except TlsFailed as exc:
        return refuse("tables", str(exc))
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
    from cthulhu.net import table_lines

    now = datetime.now(timezone.utc)
    for row in rows:
        first, seats = table_lines(row, modes.get(row.mode).title if row.mode in modes.names() else row.mode, now)
        print(first)
        print(f"    {seats}")
    return 0
