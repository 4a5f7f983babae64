"""How a listing says a moment and who is to move: the same words in the lobby screen, `cthulhu tables`
and `cthulhu saves`, short enough for a row of 80 columns.

A moment of today is its local time ("19:33"), any other its date ("2026-01-01"): the full ISO form
with seconds and zone made a row of the lobby wrap. Who must move is named ("Bob to move"); only an
open seat, which has no name, is a number.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

from .lobbymessages import BoardRow, ChallengeRow, RecordRow, SeatRow, TableRow
from .textclean import clean_name, clean_text


def when_words(iso: str | None, now: datetime | None = None) -> str:
    """'19:33' for a moment of today (local time), else its local date; '' for none or a bad one."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)  # the headers and the server keep UTC
    local = moment.astimezone()
    today = (now or datetime.now(timezone.utc)).astimezone().date()
    return local.strftime("%H:%M") if local.date() == today else local.strftime("%Y-%m-%d")


def seat_name(seats: Sequence[SeatRow], seat: int) -> str:
    """The player at `seat` (0-based, as the server counts): their name, cleaned, else 'seat N' from 1."""
    row = next((s for s in seats if s.seat == seat), None)
    name = clean_text(row.name or "") if row is not None and row.status != "open" else ""
    return name or f"seat {seat + 1}"


def moving_words(seats: Sequence[SeatRow], to_move: Sequence[int]) -> str:
    """'Bob to move', 'Ann and Bob to move'; '' when nobody must decide."""
    if not to_move:
        return ""
    return " and ".join(seat_name(seats, s) for s in to_move) + " to move"


def seat_words(seat: SeatRow) -> str:
    """'1 open', '2 Ann', '3 Bob (away)': a seat as a listing says it, numbered from 1."""
    n = seat.seat + 1
    if seat.status == "open":
        return f"{n} open"
    return f"{n} {clean_text(seat.name or '?')}" + {"away": " (away)", "stand_in": " (a stand-in plays)"}.get(seat.status, "")


def table_lines(row: TableRow, title: str, now: datetime) -> tuple[str, str]:
    """A table in two lines (`cthulhu tables`, the reader's lobby): its id, mode and set-up; its seats,
    how far it is, who is to move (and whether it is you), its pace and its last move."""
    from .clock import pace_words

    about = f"{title}: {row.about}" if row.about else title
    state = f"{row.outcome} at step {row.step}" if row.finished else f"step {row.step}" if row.step else "not started"
    moving = f", {moving_words(row.seats, row.to_move)}" if row.to_move else ""
    if set(row.mine) & set(row.to_move):
        moving += " (your move)"
    moving += pace_words(row, now)
    flags = "".join([" private" if row.private else "", f" (you: seat {', '.join(str(s + 1) for s in row.mine)})" if row.mine else ""])
    last = f", last move {when_words(row.last_move)}" if row.last_move else ""
    return (clean_text(f"{row.id}  {about}{flags}"),
            clean_text(f"seats: {'; '.join(seat_words(s) for s in row.seats)} - {state}{moving}{last}"))


def team_words(team: Sequence[str]) -> str:
    """'Ada', 'Ada and Bob', 'Ada, Bob and Cy' (names as a save keeps them: cleaned)."""
    names = [clean_name(name) or "?" for name in team]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def record_line(row: RecordRow, title: str) -> str:
    """One row of the club's records (`cthulhu records`, the reader's lobby) in a sentence."""
    who = f"{row.players} player{'s' if row.players != 1 else ''}" + (", with bots" if row.bots else "")
    rate = f"{round(100 * row.wins / row.games)}%" if row.games else "-"
    fastest = ""
    if row.fastest is not None:
        fastest = f"; fastest win {row.fastest} turn{'s' if row.fastest != 1 else ''}: " + "; ".join(team_words(t) for t in row.teams)
    return clean_text(f"{title}: {row.about} ({who}): {row.games} game{'s' if row.games != 1 else ''}, {row.wins} won ({rate}){fastest}")


def challenge_words(row: ChallengeRow, title: str) -> str:
    """A challenge a server takes tries at (`cthulhu challenge HOST`, the reader's lobby): its days,
    game, seed, tries, and the asker's own."""
    mine = f"; your try: {row.mine.outcome} in {row.mine.turns} turns" if row.mine else "; you have not tried it"
    return clean_text(f"{row.id} ({row.first} to {row.last}): {title}, {row.about}, seed {row.seed}: "
                      f"{row.entries} tr{'ies' if row.entries != 1 else 'y'}{mine}")


def board_words(row: BoardRow) -> str:
    """'  1. Ada: won in 9 turns, 2 rerolls' (' bot' for a bot's game, listed apart)."""
    rank = f"{row.rank:>3}." if row.rank is not None else " bot"
    return clean_text(f"{rank} {clean_name(row.name) or '?'}: {row.outcome} in {row.turns} turns, "
                      f"{row.rerolls} reroll{'s' if row.rerolls != 1 else ''}")


def output_width() -> int | None:
    """The columns command-line output wraps to: `COLUMNS` when set, else the terminal's; None when the
    output goes to a pipe or a file (a script reads whole lines)."""
    import os
    import shutil
    import sys

    if os.environ.get("COLUMNS", "").isdigit() or sys.stdout.isatty():
        return max(shutil.get_terminal_size().columns, 20)
    return None
