"""What the table's seats and the link say in words: the sentences a `NetLink` tells the Log.

Beside `narrate.py` (which words the game's events), this words the people: who sat down, who
left, who is away and who stands in, whether the game can begin, and the link's own state (joined,
reconnecting, closed). Pure functions of what the host last said; the link only decides when.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cthulhu.net import Table

from .english import and_list
from .who import characters, playing

NOBODY = "nobody (you are watching)"  # what no seat plays
SeatState = tuple[str, str | None, bool, bool]  # a seat as last told: kind, name, connected, stand-in


def plays(view: dict[str, Any], seats: Iterable[int]) -> str:
    """'Ada Whitlock', 'Ada Whitlock and Mina Castellane': what these seats play in `view`."""
    return and_list(name for s in sorted(seats) for name in characters(view, s) or [playing(view, s)]) or NOBODY


def seat_news(seen: dict[int, SeatState], table: Table, view: dict[str, Any], own: frozenset[int]) -> list[str]:
    """Sentences for the seats that changed since the host last told us (none the first time);
    `seen` is updated to the table as it is now. `own`: this terminal's seats (and those it is
    still sitting down at, hot-seat), no news to it."""
    first = not seen
    news = []
    for s in table.seats:
        now = (s.kind, s.name, s.connected, s.stand_in)
        before = seen.get(s.seat)
        seen[s.seat] = now
        if first or before == now or s.seat in own:
            continue
        what = plays(view, [s.seat])
        if s.kind == "bot":
            if before is not None and before[0] == "open":  # a seat not seen before has no past
                news.append(f"A bot plays {what} for the whole game.")
            continue
        who = s.name or "a player"
        if s.kind == "human" and s.connected and who in characters(view, s.seat):  # hot-seat players elsewhere
            news.append(f"{who} is back." if before and before[1] == s.name else f"{who} sits down.")
        elif s.kind == "human" and s.connected and s.stand_in:  # (a turn clock ran out; they are still connected)
            news.append(f"{who} ran out of time; a stand-in plays {what} for now.")
        elif s.kind == "human" and s.connected:
            news.append(f"{who} is back ({what})." if before and before[1] == s.name else f"{who} sits down to play {what}.")
        elif s.kind == "human" and s.stand_in:
            news.append(f"{who} is away; a bot plays {what} until they are back.")
        elif s.kind == "human" and (before is None or before[0] != "human" or before[2]):
            # (lobby news coalesce: a quick join-and-leave may arrive as one change)
            news.append(f"{who} left; {what} waits for them.")
        elif s.kind == "open" and before is not None:
            news.append(f"Nobody plays {what} now: the seat is open.")
    return news


def begins(view: dict[str, Any]) -> str | None:
    """What the last seat taken means: a fresh game begins, a loaded one goes on (a game over: nothing)."""
    if view.get("outcome"):
        return None
    return "Every seat is taken again: the game goes on." if view.get("step") else "Every seat is taken: the game begins."


def waiting(table: Table, view: dict[str, Any] | None, join: str | None, hosting: bool) -> str | None:
    """The bar while nobody may act until every seat is taken (None once play has started): the seats
    still open and how to fill them (`join`: the command others type; `hosting`: the host's own key)."""
    if table.started:
        return None
    open_seats = [s.seat for s in table.seats if s.kind == "open"]
    line = "Waiting for players before the game starts"
    if open_seats:
        line += f": nobody plays {plays(view or {}, open_seats)} yet"
    line += f". Others join with: {join}" if join else "."
    if hosting:
        line += "  L then S: start now, bots in the open seats."
    return line


def joined(address: str, playing_now: str | None, *, here: bool, visitor: str | None, kept: bool) -> str:
    """The first line at a table: where this terminal joined (`here`: this process's own table; a
    `visitor` the host serves is told the door's way back) and what it plays (None: every seat is
    taken, it watches); `kept`: its seat came back with a token kept for it."""
    where = "the table" if visitor is not None else f"the table in this process at {address}" if here else f"the table at {address}"
    if playing_now is None:
        return f"Joined {where}. Every seat is taken, so you are watching."
    if playing_now == NOBODY:  # watching, as asked
        return f"Joined {where}; you play {playing_now}."
    keeping = "kept for you" if visitor is not None else "kept on this machine"
    line = f"Joined {where}; you play {playing_now}" + (f" (your seat, {keeping})" if kept else "") + "."
    return f"{line} {visitor}" if visitor else line


def back(playing_now: str | None) -> str:
    """A connection back after a drop (None: a watcher)."""
    return f"Back at the table ({'watching' if playing_now is None else f'you play {playing_now}'})."


def closed(saved: bool, comeback: str | None) -> str:
    """The bar once the host has closed the table: that nothing more is played here, and how to come
    back when the host saved it and this terminal knows the way (a seat token, a ticket)."""
    if saved and comeback:
        return f"The host closed the table (it is saved): nothing more can be played until it is open again. {comeback}  (q quits)"
    kept = "it is saved" if saved else "it is not saved"
    return f"The host closed the table ({kept}): nothing more can be played here.  (q quits)"


def stopped(line: str) -> tuple[str, str]:
    """Our own host's loop raised (`line`: its first line): the Log's sentence and the bar's."""
    return f"The table stopped: {line}", f"The table stopped ({line}): nothing more can be played here.  (q quits)"


def lost(address: str) -> str:
    return f"Lost the connection to the host at {address}; reconnecting (your seat is kept)."


def reconnecting(address: str, attempt: int) -> str:
    return f"Connection lost: reconnecting to {address} (attempt {attempt})..."


def gave_up(address: str, minutes: int) -> tuple[str, str]:
    """The link stopped trying: the refusal's sentence and the bar's."""
    return f"gave up after {minutes} minutes: the host at {address} did not come back", f"No connection to {address} (gave up; q quits)."


SEAT_GIVEN_UP = "The host gave your seat up while you were away; joining again as a new player."
NOT_SENT_DOWN = "not sent: the connection to the host is down (reconnecting)"
