"""What a person reads of a turn-based table's clock and its stand-ins: the header's few words,
the prompt bar's line while a stand-in plays their seat (or the table is paused for want of
people), the quit dialog's word on what happens once they leave, and what `b` just did.

The rules behind the words are `table.standin`'s: a stand-in plays the turn whose clock ran out,
then the seat is its player's again; after `away_after` missed turns in a row it keeps the seat
until they are back (`b`, or joining again); a table where nobody played for a whole round pauses."""

from __future__ import annotations

import time
from collections.abc import Mapping

from cthulhu.net import format_duration
from cthulhu.net import clean_text

from .link import TurnClock

STAND_IN_BAR = "A stand-in is playing for you: b takes your seat back"
IDLE_BAR = "The table is paused: nobody has played for a whole round. b starts it again"
AFTER = {"stand-in": "a stand-in plays this turn for you", "skip": "your decision is passed over", "pause": "the table waits for you"}


def left_seconds(told: TurnClock) -> float | None:
    """The time left on the running clock now, by this terminal's clock (None: none runs)."""
    if told.clock.left_ms is None:
        return None
    return told.clock.left_ms / 1000 - (time.monotonic() - told.at)


def clock_words(told: TurnClock | None, local_seats: frozenset[int], names: Mapping[int, str]) -> tuple[str, str] | None:
    """The header's clock: whose it is and the time left, that a stand-in plays this terminal's
    seat (and the key that takes it back), or that the table is paused. Short: the header is
    one line of 80 columns with the table's name and turn before it."""
    if told is None:
        return None
    clock = told.clock
    if told.stood_in:
        return "a stand-in plays for you (b)", "bold bright_yellow"
    if clock.seat is None:
        return None
    if clock.paused and clock.idle:
        return "paused: nobody played a round (b)", "bold bright_red"
    who = "you" if clock.seat in local_seats else clean_text(names.get(clock.seat) or f"seat {clock.seat + 1}")
    if clock.paused:
        return f"out of time: waiting for {who}", "bold bright_red"
    left = left_seconds(told)
    if left is None:
        return None
    return f"{who} to move: {format_duration(left)} left", "bold bright_yellow" if who == "you" else ""


def leaving_words(told: TurnClock | None, local_seats: frozenset[int]) -> str | None:
    """The quit dialog's truth about the clock once this terminal has left (None: a live table)."""
    if told is None or not local_seats:
        return None
    clock = told.clock
    if clock.idle:
        return "The table is paused (nobody has played for a whole round): it waits until a person is back."
    if told.stood_in:
        return "A stand-in plays for you now; joining again takes your seat back."
    after = AFTER[clock.on_timeout]
    left = left_seconds(told) if clock.seat in local_seats and not clock.paused else None
    if left is not None:
        words = f"Your clock keeps running ({format_duration(left)} left); after that {after}."
    else:
        words = f"Your clock runs when your move comes ({format_duration(clock.turn_time)} a move); after that {after}."
    if clock.on_timeout == "stand-in":
        words += f" After {clock.away_after} missed turns in a row it keeps your seat until you are back."
    return words


def back_words(told: TurnClock | None) -> str:
    """What `b` did, in words, before the host's answer redraws the table."""
    if told is not None and told.stood_in:
        return "Your seat is yours again: the stand-in leaves, the next decision is yours"
    if told is not None and told.clock.idle:
        return "You are back: the table goes on and the clocks run again"
    return "No stand-in plays for you: your seat is yours already"


def with_leaving(comeback: str | None, told: TurnClock | None, local_seats: frozenset[int]) -> str | None:
    """The quit dialog's way back, and after it the word on the clock."""
    words = leaving_words(told, local_seats)
    return comeback if words is None else f"{comeback}\n{words}" if comeback else words
