"""One table, built one way: a typed `TableSpec`, what every entry point hands `open_table`.

A spec is plain, frozen data: what to start from (a setup, a save, a game under way), the bots,
the stand-ins, where to save, the code, the limits, the pace. `table.resolve` turns it into a game
and its log; `table.open.open_table` builds the host.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from cthulhu.core import Game, Setup
from cthulhu.core.search import Thinking
from cthulhu.net import AWAY_AFTER, MAX_AWAY_AFTER, ON_TIMEOUT
from cthulhu.net import Limits
from cthulhu.net import OnTimeout

if TYPE_CHECKING:
    from cthulhu.savegame.shelf import Shelf


@dataclass(frozen=True, kw_only=True)
class StandIns:
    """Who plays a person's seat while they are away: a `kind` bot, handed the seat by the host's
    own player (the table dialog) or by itself once the seat has been away `after` seconds."""

    kind: str | None = None  # None: the mode's own bot (`Mode.default_bot`)
    after: float | None = None  # None: only when the hosting player says so


@dataclass(frozen=True, kw_only=True)
class Pace:
    """How the table's time passes. `turn_time` None: live (the game waits for whoever must
    decide). Otherwise turn-based: each decision of a person's seat has `turn_time` seconds, and
    when they run out, `on_timeout`: `stand-in` (the table's stand-in bot plays the rest of that
    turn, then the seat is its player's again; after `away_after` missed turns in a row it keeps
    the seat until they are back), `skip` (the decision is passed over where the rules offer a
    pass, else the stand-in makes that one decision; `away_after` plays no part) or `pause` (the
    table waits for that player). See `table.standin` for turns, rounds and the idle pause."""

    turn_time: float | None = None
    on_timeout: OnTimeout = "stand-in"
    away_after: int = AWAY_AFTER

    def __post_init__(self) -> None:
        if self.turn_time is not None and self.turn_time <= 0:
            raise ValueError("a turn time must be positive")
        if self.on_timeout not in ON_TIMEOUT:
            raise ValueError(f"no timeout policy {self.on_timeout!r} (choose from {', '.join(ON_TIMEOUT)})")
        if not 1 <= self.away_after <= MAX_AWAY_AFTER:
            raise ValueError(f"--away-after is a number of missed turns from 1 to {MAX_AWAY_AFTER}, not {self.away_after}")

    @property
    def turn_based(self) -> bool:
        return self.turn_time is not None

    @property
    def kind(self) -> Literal["live", "turn-based"]:
        return "turn-based" if self.turn_based else "live"

    @classmethod
    def of(cls, settings: Mapping[str, Any] | None) -> "Pace":
        """From a table's kept settings (`{"kind": "live"}` or `{"kind": "turn-based", "turn_time": s,
        "on_timeout": p, "away_after": n}`; a table kept before `away_after` gets the default)."""
        raw = settings or {}
        if raw.get("kind") != "turn-based":
            return cls()
        return cls(turn_time=float(raw["turn_time"]), on_timeout=raw.get("on_timeout", "stand-in"),
                   away_after=int(raw.get("away_after", AWAY_AFTER)))

    def settings(self) -> dict[str, Any]:
        if self.turn_time is None:
            return {"kind": "live"}
        return {"kind": "turn-based", "turn_time": int(self.turn_time) if self.turn_time == int(self.turn_time) else self.turn_time,
                "on_timeout": self.on_timeout, "away_after": self.away_after}


@dataclass(frozen=True, kw_only=True)
class SaveTo:
    """Where the command log is saved: `file`, else a new file in `folder` (named from `stem`, the
    mode and the seed). A folder that cannot be written falls back to the user's (with a warning),
    or to no file at all. `fsync`: every write reaches the disk; otherwise only the final one.
    `hold`: a write that fails holds the table (nothing new is told) until the disk takes it
    (`table.autosave`); otherwise the game goes on from memory and the next step tries again.
    `at_once`: a new game's file is written as the table opens (a server's: the table and its dice
    commitment exist from the start), not at its first command."""

    file: Path | None = None
    folder: Path | None = None
    stem: str = ""
    fsync: bool = True
    hold: bool = False
    shelf: Shelf | None = None
    at_once: bool = False


@dataclass(frozen=True, kw_only=True)
class TableSpec:
    """Everything a table is opened from.

    `start` is a new game's `Setup`, a save to carry on (its path), or a game already under way
    (tests and worked examples). `bots` seats are played inside the host for the whole game, by
    kind. `save` None keeps the command log in memory (a loaded game's steps included, so peers can
    still verify every roll). `code` is what every hello must present (None: an open table); with
    `remember_code` a missing code is this machine's code for the table (a fresh one the first
    time), and the code is remembered, so `host --load` serves the same one again.
    `keep_seats` False: a loaded game's people's seats are all open again (a game carried on at one
    terminal) instead of waiting for their owners' tokens; its bots' seats keep their bots either way. `bot_seed`: the bots' seeds are drawn from it
    (default: the game's seed). `thinking`: how long a search bot thinks per decision.
    `pace`: live, or turn-based with a clock per decision (`Pace`).
    """

    start: Setup | Path | Game
    bots: Mapping[int, str] = field(default_factory=dict)
    stand_ins: StandIns = StandIns()
    save: SaveTo | None = None
    code: str | None = None
    remember_code: bool = False
    table_id: str | None = None
    keep_seats: bool = True
    limits: Limits = Limits()
    bot_delay: float = 0.0
    bot_seed: int | None = None
    autostart: bool = True
    thinking: Thinking = Thinking()
    pace: Pace = Pace()

    def kept(self) -> dict[str, Any]:
        """What a server keeps of this spec besides its setup (JSON): the bots by seat, the
        stand-ins' kind, the bots' pause and the pace. The rest is the server's (the save file,
        the code, the id, the limits) and given at each opening."""
        return {"bots": {str(seat): kind for seat, kind in self.bots.items()}, "bot": self.stand_ins.kind, "bot_delay": self.bot_delay,
                "pace": self.pace.settings()}

    @classmethod
    def of_kept(cls, setup: Mapping[str, Any], kept: Mapping[str, Any]) -> TableSpec:
        """The spec a server kept (`kept`), every version of it: a table kept before its bots'
        pause was kept pauses half a second, one kept before `away_after` gets its default."""
        return cls(start=Setup.model_validate(setup), bots={int(seat): str(kind) for seat, kind in (kept.get("bots") or {}).items()},
                   stand_ins=StandIns(kind=kept.get("bot")), bot_delay=float(kept.get("bot_delay", 0.5)), pace=Pace.of(kept.get("pace")))

