"""What a notification says, in the body each kind of receiver takes (`--notify-format`).

`json` is the server's own object (`move_notice`); `discord`, `slack` and `matrix` are those
chats' incoming-webhook bodies around its `text`, so "your move" lands in the chat the group
already uses. Seats count from 1 here, as every screen counts them. A player's name reaches a
receiver only stripped of anything a chat could read as markup, a mention or a link.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Literal, get_args

from cthulhu.net import NotifyFormat
from cthulhu.net import clean_name

FORMATS: tuple[str, ...] = get_args(NotifyFormat)
Kind = Literal["move", "reminder"]


def plain_name(name: str | None) -> str:
    """A player's name for a chat: cleaned, and nothing a chat could read as markup, a mention
    or a link (`<`, `@`, `*`, `[` ...)."""
    kept = "".join(ch for ch in clean_name(name or "") if ch.isalnum() or ch in " .'-")
    return " ".join(kept.split()) or "a player"


def move_notice(table: str, seat: int, player: str | None, turn: int | None, deadline: datetime | None,
                kind: Kind = "move") -> dict[str, object]:
    """The JSON told when `seat`'s move begins (`kind` "move"), or when a quarter of its clock is
    left ("reminder"). `seat` counts from 0 here (the protocol's), from 1 in what is sent."""
    when = deadline.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if deadline is not None else None
    who = plain_name(player)
    text = ("Reminder: it is still " if kind == "reminder" else "It is ") + f"{who}'s move (seat {seat + 1}) at table {table}"
    text += f", turn {turn}" if turn is not None else ""
    text += f"; their clock runs out at {deadline.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC." if deadline is not None else "."
    named = who if clean_name(player or "") else None
    return {"kind": kind, "table": table, "seat": seat + 1, "player": named, "turn": turn, "deadline": when, "text": text}


def body(notice: dict[str, object], format: str) -> bytes:
    """The POST's body for a receiver of `format` (one of `FORMATS`)."""
    text = str(notice["text"])
    if format == "discord":
        shaped: dict[str, object] = {"content": text, "allowed_mentions": {"parse": []}}  # no @everyone, no pings
    elif format == "slack":
        shaped = {"text": text}
    elif format == "matrix":
        # An m.text message's content; `text` too, which a hookshot generic webhook posts as the message.
        shaped = {"msgtype": "m.text", "body": text, "text": text}
    elif format == "json":
        shaped = notice
    else:
        raise ValueError(f"no notification format {format!r} (choose from {', '.join(FORMATS)})")
    return json.dumps(shaped, sort_keys=True).encode()
