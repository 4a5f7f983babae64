"""What one difficulty level gives every game of it, worked out once: color lookups and the options.

A prompt's options are immutable (`Option` is a tuple of an interned command, a
label and read-only data), so the same option can stand in every prompt that
offers it: moving clockwise from Town Card 2 reads the same in every game of
the level. Building them once takes the labels' formatting and the data's
dicts off every step; views share those data dicts and treat them as read-only,
like the rest of a view.
"""

from __future__ import annotations

from typing import Any

from ..command import Command, Option
from .content import CHAOS, ColorSpec, ShamblersContent
from .prompts import ActionData, BanishData, FeedData


class Tables:
    """Per level: colors by id, the tentacles' names, and every option a prompt can hold."""

    __slots__ = ("colors", "with_chaos", "spec", "tentacle", "town_names", "moves", "_gather", "_banish", "_end", "feed", "_pay")

    def __init__(self, cfg: ShamblersContent) -> None:
        self.colors: list[str] = [c.id for c in cfg.colors]
        self.with_chaos = [*self.colors, CHAOS]
        self.spec: dict[str, ColorSpec] = {c.id: c for c in cfg.colors}
        self.tentacle: dict[str, str] = {c.id: c.tentacle for c in cfg.colors}
        self.tentacle[CHAOS] = "Chaos"
        self.town_names = [t.name for t in cfg.towns]
        n = len(cfg.towns)
        self.moves: list[tuple[Option, Option]] = []
        for here in range(n):
            cw, ccw = (here + 1) % n, (here - 1) % n
            move_cw: ActionData = {"action": "move", "town": cw, "clockwise": True}
            move_ccw: ActionData = {"action": "move", "town": ccw, "clockwise": False}
            self.moves.append((
                Option(Command.of("move", town=cw), f"Move clockwise to {self.town_names[cw]}", move_cw),
                Option(Command.of("move", town=ccw), f"Move counter-clockwise to {self.town_names[ccw]}", move_ccw),
            ))
        self._gather: dict[tuple[str, int, bool], Option] = {}
        self._banish: dict[tuple[int, int], Option] = {}
        self._end: dict[int, Option] = {}
        self._pay: dict[tuple[str, int, int, int], Option] = {}
        self.feed: dict[str, Option] = {
            c: Option(Command.of("feed", color=c), f"Feed a {self.tentacle[c]} Tentacle ({c}) to the Shamblers",
                      FeedData(color=c, tentacle=self.tentacle[c]))
            for c in self.colors
        }

    def gather(self, color: str, here: int, full: bool) -> Option:
        key = (color, here, full)
        hit = self._gather.get(key)
        if hit is None:
            label = f"Gather a {self.tentacle[color]} Tentacle"
            label += " (your track is full: +1 Delirium, the tentacle is discarded)" if full else ""
            data: ActionData = {"action": "gather", "town": here, "color": color, "track_full": full}
            hit = self._gather[key] = Option(Command.of("gather", color=color), label, data)
        return hit

    def banish(self, here: int, shamblers: int) -> Option:
        key = (here, shamblers)
        hit = self._banish.get(key)
        if hit is None:
            dice = "Cthulhu Die" if shamblers == 1 else "Cthulhu Dice"
            hit = self._banish[key] = Option(Command.of("banish"), f"Banish a Shambler (roll {shamblers} {dice})",
                                             ActionData(action="banish", town=here, dice=shamblers))
        return hit

    def end(self, left: int) -> Option:
        hit = self._end.get(left)
        if hit is None:
            hit = self._end[left] = Option(Command.of("end_actions"), f"End your actions (skip the {left} left)",
                                           ActionData(action="end_actions"))
        return hit

    def pay(self, color: str, madness: int, chaos: int, cost: int) -> Option:
        key = (color, madness, chaos, cost)
        hit = self._pay.get(key)
        if hit is None:
            tentacle = self.tentacle[color]
            if cost == 0:
                how = "for free"
            else:
                parts = []
                if madness:
                    parts.append(f"{madness} {tentacle}")
                if chaos:
                    parts.append(f"{chaos} Chaos")
                how = "paying " + " + ".join(parts)
            data: BanishData = {"banish": True, "color": color, "madness": madness, "chaos": chaos, "tentacle": tentacle}
            command = Command("pay", (("chaos", chaos), ("color", color), ("madness", madness)))  # sorted by name
            hit = self._pay[key] = Option(command, f"Banish a {color} Shambler {how}", data)
        return hit


DECLINE = Option(Command.of("decline"), "Do not banish (spend nothing)", BanishData(banish=False))

# id(level) -> (the level, its tables): the entry keeps the level alive, so its id is never reused.
_TABLES: dict[int, tuple[ShamblersContent, Tables]] = {}


def tables(cfg: ShamblersContent) -> Tables:
    hit = _TABLES.get(id(cfg))
    if hit is None or hit[0] is not cfg:
        if len(_TABLES) > 64:
            _TABLES.clear()
        hit = _TABLES[id(cfg)] = (cfg, Tables(cfg))
    return hit[1]

