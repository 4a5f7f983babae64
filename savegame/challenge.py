"""The daily and weekly challenge: a set-up and a seed that are a pure function of the date.

Everyone who asks for the challenge of a day gets the same game, offline too: the set-up is
drawn from BLAKE2b of the challenge's name ("daily-2026-12-02", "weekly-2026-W49"; UTC dates,
ISO weeks from Monday), never from a clock or `random`, so a player's machine and a server agree
without ever talking. The draw goes through what the modes declare (their set-up choices and the
ids the content has for each), so a new mode or episode takes part without a line here. It sits
beside the saves rather than in the core because a calendar is no rule: the caller passes the date
and nothing here reads a clock. A challenge is played alone: one seat.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal

from cthulhu.core import modes
from cthulhu.core.choices import ADVICE
from cthulhu.core.setup import Setup

Kind = Literal["daily", "weekly"]
_PERSON = b"cthulhu-chall"  # BLAKE2b's personalisation: these draws are no other hash's


@dataclass(frozen=True, slots=True)
class Challenge:
    """One challenge: its name (the key everything is filed under), its kind, the first and last
    day it is the challenge of, and the game."""

    id: str
    kind: Kind
    first: date
    last: date
    setup: Setup

    @property
    def title(self) -> str:
        return f"the daily challenge of {self.first.isoformat()}" if self.kind == "daily" else \
            f"the weekly challenge of {self.first.isoformat()} to {self.last.isoformat()}"


class _Draws:
    """A stream of numbers from a name: BLAKE2b(name, counter), as many as the draw needs."""

    def __init__(self, name: str) -> None:
        self.name = name.encode()
        self.counter = 0

    def below(self, n: int) -> int:
        """A number in 0..n-1 (64 bits reduced: the bias at these sizes is below 2^-50)."""
        self.counter += 1
        digest = hashlib.blake2b(self.name + self.counter.to_bytes(8, "big"), digest_size=8, person=_PERSON).digest()
        return int.from_bytes(digest, "big") % n


def challenge_id(kind: Kind, day: date) -> str:
    """The name of the challenge `day` falls in: "daily-2026-12-02" or "weekly-2026-W49"."""
    if kind == "daily":
        return f"daily-{day.isoformat()}"
    year, week, _ = day.isocalendar()
    return f"weekly-{year}-W{week:02d}"


def challenge(kind: Kind, day: date, content: Any = None) -> Challenge:
    """The challenge of `kind` that `day` (UTC) falls in, drawn from its name alone."""
    if content is None:
        from cthulhu.content import builtin

        content = builtin()
    name = challenge_id(kind, day)
    first = day if kind == "daily" else day - timedelta(days=day.weekday())
    last = day if kind == "daily" else first + timedelta(days=6)
    draws = _Draws(name)
    names = sorted(name for name in modes.names() if name in content.modes)  # the content's own: a plug-in mode here alone never moves the draw
    mode = modes.get(names[draws.below(len(names))])
    part = content.modes.get(mode.name)
    options: dict[str, str | list[str]] = {}
    for option in mode.options:
        if option is ADVICE:
            continue  # a house rule, not part of the game: the odds panel stays the player's own call
        ids = [choice.id for choice in option.values(part)]
        if not ids:
            continue
        if option.many:
            wanted = min(len(option.defaults(part)), len(ids))
            pool = list(ids)
            options[option.name] = [pool.pop(draws.below(len(pool))) for _ in range(wanted)]
        else:
            options[option.name] = ids[draws.below(len(ids))]
    seed = draws.below(2**63)
    return Challenge(name, kind, first, last, Setup(mode=mode.name, players=1, seed=seed, options=options))


def about(setup: Setup, content: Any = None) -> str:
    """A challenge's game in words: each set-up choice by name ("The Stones of Kettle Moor, Hastur;
    Mina Castellane and Petra Lindqvist"), as a player needs it before starting."""
    if content is None:
        from cthulhu.content import builtin

        content = builtin()
    mode = modes.get(setup.mode)
    part = content.modes.get(mode.name)
    ones, figures = [], []
    for option in mode.options:
        names = {choice.id: choice.name for choice in option.values(part)}
        if option.many:
            figures += [names.get(one, one) for one in setup.many(option.name)]
        elif option is not ADVICE and setup.one(option.name) is not None:
            ones.append(names.get(setup.one(option.name) or "", setup.one(option.name) or ""))
    played = figures[0] if len(figures) == 1 else ", ".join(figures[:-1]) + " and " + figures[-1] if figures else ""
    return "; ".join(part for part in (", ".join(ones), played) if part)


def by_id(name: str, content: Any = None) -> Challenge | None:
    """The challenge of that name ("daily-2026-12-02", "weekly-2026-W49"), or None when it names none."""
    kind: Kind
    try:
        prefix, rest = name.split("-", 1)
        if prefix == "daily":
            kind, day = "daily", date.fromisoformat(rest)
        elif prefix == "weekly":
            year, week = rest.split("-W")
            kind, day = "weekly", date.fromisocalendar(int(year), int(week), 1)
        else:
            return None
    except ValueError:
        return None
    found = challenge(kind, day, content)
    return found if found.id == name else None  # ("daily-2026-12-2" is not a name anything is filed under)
