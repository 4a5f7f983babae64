"""A turn clock's words, for both ends of the wire: the timeout policies, a duration as it is
typed (`12h`, `1h30m`) and as it is read (`4h 05m`), and a lobby row's pace.

The clock itself (who must decide, by when, what happens when time runs out) is the table's:
`cthulhu.table.turnclock`.
"""

from __future__ import annotations

import re
from datetime import datetime

from .lobbymessages import TableRow
from .wirebase import OnTimeout

ON_TIMEOUT: tuple[OnTimeout, ...] = ("stand-in", "skip", "pause")
AWAY_AFTER = 3  # missed turns in a row before a stand-in keeps the seat until its player is back
MAX_AWAY_AFTER = 100

_UNITS = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}
_DURATION = re.compile(r"(\d+)([dhms])")
MAX_TURN_TIME = 60 * 86_400  # 60 days


def parse_duration(text: str) -> int:
    """`90s`, `12h`, `3d`, `1h30m` (units d, h, m, s, largest first) in whole seconds; ValueError
    with one line otherwise."""
    raw = text.strip().lower()
    parts = _DURATION.findall(raw)
    if not raw or "".join(f"{n}{u}" for n, u in parts) != raw:
        raise ValueError(f"{text!r} is not a duration (say e.g. 90s, 12h, 3d or 1h30m)")
    units = [u for _, u in parts]
    if len(set(units)) != len(units) or units != sorted(units, key=lambda u: -_UNITS[u]):
        raise ValueError(f"{text!r}: give each unit once, the largest first (e.g. 1h30m)")
    seconds = sum(int(n) * _UNITS[u] for n, u in parts)
    if not 1 <= seconds <= MAX_TURN_TIME:
        raise ValueError(f"{text!r}: a turn time is from 1s to 60d")
    return seconds


def format_duration(seconds: float) -> str:
    """The time left as a person reads it: `2d 3h`, `4h 05m`, `12m 30s`, `45s`."""
    s = max(0, int(seconds + 0.999))  # a clock shows the second it is in, not the one it has passed
    days, s = divmod(s, 86_400)
    hours, s = divmod(s, 3_600)
    minutes, s = divmod(s, 60)
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes:02d}m" if minutes else f"{hours}h"
    if minutes:
        return f"{minutes}m {s:02d}s" if s else f"{minutes}m"
    return f"{s}s"


def pace_words(row: TableRow, now: datetime) -> str:
    """A lobby row's pace and time left as a listing says it: `, 12h a move, 3h 05m left` (a
    live table: nothing; a paused clock: `, paused`)."""
    if row.pace != "turn-based" or row.turn_time is None:
        return ""
    words = f", {format_duration(row.turn_time)} a move"
    if row.finished:
        return words
    if row.paused:
        return words + ", paused"
    if row.deadline is not None:
        try:
            left = (datetime.fromisoformat(row.deadline) - now).total_seconds()
        except ValueError:
            return words
        return words + f", {format_duration(left)} left"
    return words
