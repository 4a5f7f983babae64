"""The odds panel's lines for a main-game roll being decided: exact, from the dice faces in content."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from cthulhu.core.main.odds import roll_odds
from cthulhu.core.main.view import MainView

from ...english import plural
from .dice import face_glyph


def percent(p: Fraction | float) -> str:
    value = 100 * float(p)
    return f"{value:.0f}%" if value in (0, 100) or 1 <= value <= 99 else f"{value:.1f}%"


def roll_lines(view: MainView, content: Any) -> list[str]:
    """What keeping, each single reroll and the best rerolls are worth ([] when no roll is being decided)."""
    odds = roll_odds(view, content.main)
    if odds is None:
        return []
    roll = view["last_roll"]
    assert roll is not None  # roll_odds found one
    if odds.purpose == "check":
        goal = f"{plural(odds.need, 'success')} needed"
        now = f"{plural(odds.total, 'success')} now"
    elif odds.purpose == "attack":
        goal = f"{plural(odds.need, 'wound')} to put {'it' if len(roll['target_names']) < 2 else 'them'} down"
        now = f"{plural(odds.total, 'hit')} now"
    else:
        goal = "no wound taken"
        now = f"{plural(odds.total, 'wound')} now"
    # What the player weighs at a reroll besides the goal: the sanity the tentacles may cost, per choice
    # (said wherever a choice risks it; a goal already sure is then not the only figure).
    risky = bool(odds.keep_sanity) or any(r.sanity for r in odds.rerolls)

    def sanity(p: Fraction) -> str:
        return f", {percent(p)} to lose sanity" if risky else ""

    lines = [f"{roll['name']}'s roll: {goal} ({now}; keep the dice: {percent(odds.keep)}{sanity(odds.keep_sanity)})"]
    for r in odds.rerolls:
        kind, face = roll["dice"][r.die]
        cost = "for 1 stress" if r.stress else "for free"
        lines.append(f"  reroll die {r.die + 1} [{face_glyph(kind, face)}] {cost}, then keep: {percent(r.chance)}{sanity(r.sanity)}")
    if odds.rerolls and odds.more > 1:
        lines.append(f"  with up to {odds.more} rerolls, played as well as possible: {percent(odds.best)}")
    spread = ", ".join(f"{k}: {percent(p)}" for k, p in enumerate(odds.fresh) if p)
    lines.append(f"  these dice rolled afresh: {percent(odds.fresh_chance)} ({spread})")
    return lines
