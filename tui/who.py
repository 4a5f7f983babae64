"""Who is who: a seat named the way the people at the table know it.

A seat number is the host's bookkeeping; nobody at the table thinks of "seat 2".
Every line a person reads names a seat by what it plays (its investigators or
Player Mat, the mode's `characters`) and, when someone else sits there, by that
player's name too: "Ann (Mina Castellane)".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cthulhu.core import modes as core_modes
from cthulhu.net import Table
from cthulhu.net import clean_text

BOT = "a bot"  # what a link calls a bot's seat in `TableLink.seat_names`


def characters(view: Mapping[str, Any], seat: int) -> list[str]:
    """The names of what `seat` plays ([] before the first view, or in a mode that does not say)."""
    if not view.get("mode"):
        return []
    declared = core_modes.get(view["mode"]).characters
    return list(declared(view).get(seat, [])) if declared is not None else []


def playing(view: Mapping[str, Any], seat: int) -> str:
    """'Mina Castellane', 'Ada Whitlock and Mina Castellane' ('seat 2' when nothing else names it)."""
    if not view.get("mode"):
        return f"seat {seat + 1}"
    return core_modes.get(view["mode"]).playing(view, seat)


def player(view: Mapping[str, Any], seat: int, names: Mapping[int, str]) -> str:
    """'Ann (Mina Castellane)', 'a bot (Ada Whitlock)'; what the seat plays alone when nobody is
    named there (or when the player is named after it, as hot-seat players are)."""
    what = playing(view, seat)
    name = names.get(seat)
    if not name or name == what or name in characters(view, seat):
        return what
    return f"{name} ({what})"


def seat_names(table: Table | None) -> dict[int, str]:
    """A host's latest seat list as `TableLink.seat_names` gives it: each person's name (as the host
    cleaned it), or `BOT`; open seats are not listed."""
    seats = table.seats if table is not None else []
    return {s.seat: BOT if s.kind == "bot" else clean_text(s.name or "a player") for s in seats if s.kind != "open"}
