"""One table, built one way: a typed `TableSpec` and the one `open_table` every entry point uses.

`cthulhu play`, `cthulhu host` (with its interface or headless, with or without its front doors),
the tests and the benches describe the table they want as a `TableSpec` and get a `Host` from
`open_table`; how it is then served (a TCP port, a thread beside the interface, an in-memory
stream in a test) is the caller's business, as trio's `open_tcp_listeners` is apart from
`serve_listeners`. What is resolved here, once: a new game or a loaded one (replayed and checked),
the command log and its save file, the dice commitment, the seats a save gives back, the table's
id and code.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from cthulhu.core import Game, Setup, modes
from cthulhu.core.search import Thinking
from cthulhu.savegame import PlayerRecord, SaveError, SaveFile, SaveWriter, load, resume
from cthulhu.savegame.dice import Dice
from cthulhu.savegame.folder import autosave_folder, new_save_path

from .clock import ON_TIMEOUT
from .invite import new_table_code, new_table_id
from .limits import Limits
from .log import CommandLog, MemoryLog
from .messages import OnTimeout

if TYPE_CHECKING:
    from .gate import Gate
    from .host import Host  # which imports this module

log = logging.getLogger(__name__)


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
    when they run out, `on_timeout`: `stand-in` (the table's stand-in bot plays the seat until its
    player is back), `skip` (the decision is passed over where the rules offer a pass, else the
    stand-in makes that one decision) or `pause` (the table waits for that player)."""

    turn_time: float | None = None
    on_timeout: OnTimeout = "stand-in"

    def __post_init__(self) -> None:
        if self.turn_time is not None and self.turn_time <= 0:
            raise ValueError("a turn time must be positive")
        if self.on_timeout not in ON_TIMEOUT:
            raise ValueError(f"no timeout policy {self.on_timeout!r} (choose from {', '.join(ON_TIMEOUT)})")

    @property
    def turn_based(self) -> bool:
        return self.turn_time is not None

    @property
    def kind(self) -> Literal["live", "turn-based"]:
        return "turn-based" if self.turn_based else "live"

    @classmethod
    def of(cls, settings: Mapping[str, Any] | None) -> "Pace":
        """From a table's kept settings (`{"kind": "live"}` or `{"kind": "turn-based", "turn_time": s, "on_timeout": p}`)."""
        raw = settings or {}
        if raw.get("kind") != "turn-based":
            return cls()
        return cls(turn_time=float(raw["turn_time"]), on_timeout=raw.get("on_timeout", "stand-in"))

    def settings(self) -> dict[str, Any]:
        if self.turn_time is None:
            return {"kind": "live"}
        return {"kind": "turn-based", "turn_time": int(self.turn_time) if self.turn_time == int(self.turn_time) else self.turn_time,
                "on_timeout": self.on_timeout}


@dataclass(frozen=True, kw_only=True)
class SaveTo:
    """Where the command log is saved: `file`, else a new file in `folder` (named from `stem`, the
    mode and the seed). A folder that cannot be written falls back to the user's (with a warning),
    or to no file at all. `fsync`: every write reaches the disk; otherwise only the final one."""

    file: Path | None = None
    folder: Path | None = None
    stem: str = ""
    fsync: bool = True


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


@dataclass(frozen=True)
class Opened:
    """What `open_table` resolved: the game, where its steps go, the table's identity.
    `warning` is for the person who opened it (the saves folder could not be written)."""

    game: Game
    log: CommandLog
    writer: SaveWriter | None
    dice: Dice
    players: list[PlayerRecord]
    table_id: str
    code: str | None
    warning: str | None = None


def open_table(spec: TableSpec, *, gate: "Gate | None" = None) -> "Host":
    """The host of the table `spec` describes, not yet serving. Raises the saves module's errors
    for a save that does not load, `ValueError` for a setup or a bot the mode does not have.
    `gate`: the admission it shares with other tables (a server's); by default its own."""
    from .host import Host

    return Host(spec, resolve(spec), gate=gate)


def resolve(spec: TableSpec) -> Opened:
    save: SaveFile | None = None
    if isinstance(spec.start, Game):
        game = spec.start
    elif isinstance(spec.start, Setup):
        game = Game.new(spec.start)
    else:
        save = load(spec.start)
        game = resume(save)
    mode = modes.get(game.setup.mode)
    for kind in {*spec.bots.values(), spec.stand_ins.kind or mode.default_bot}:
        mode.bot(kind, 0)  # a kind the mode lacks is refused here, naming the ones it has
    table_id = (save.header.table if save is not None else None) or spec.table_id or new_table_id()
    writer, warning = _writer(spec, game, save)
    record: CommandLog
    if writer is not None:
        writer.table = table_id
        if save is not None and save.header.table is None:
            writer.write()  # the table keeps this id (and so its code) even if we are killed before anyone joins
        record = writer
    else:
        memory = MemoryLog()
        for step in save.steps if save is not None else ():
            memory.append(step.seat, step.command, step.hash)  # joiners can still verify every roll
        record = memory
    if writer is not None:
        dice = writer.dice
    elif save is not None and save.dice is not None:
        dice = Dice(save.setup.seed, bytes.fromhex(save.dice.salt))
    else:
        dice = Dice.new(game.setup.seed)
    players = [p for p in save.header.players if spec.keep_seats or p.bot is not None] if save is not None else []
    return Opened(game, record, writer, dice, players, table_id, _code(spec, table_id), warning)


def _writer(spec: TableSpec, game: Game, save: SaveFile | None) -> tuple[SaveWriter | None, str | None]:
    """The save file the log is written to (None: memory only), and what to tell the player."""
    to = spec.save
    if to is None:
        return None, None
    if save is not None:
        path = to.file or (spec.start if isinstance(spec.start, Path) else None)
        if path is None:
            return None, None
        return SaveWriter.resume(path, save, game, fsync=to.fsync, autosave=False), None
    warning = None
    path = to.file
    if path is None and to.folder is not None:
        folder, warning = autosave_folder(to.folder)
        if folder is not None:
            path = new_save_path(folder, f"{to.stem}{game.setup.mode}-{game.setup.seed}")
    if path is None:
        return None, warning
    # A new game's file waits for its first command (or a seat someone else holds a token for):
    # starting and quitting at once leaves none, and the same choices make the same game again.
    return SaveWriter(path, game, fsync=to.fsync, autosave=False, started=False), warning


def _code(spec: TableSpec, table_id: str) -> str | None:
    if not spec.remember_code:
        return spec.code
    from .seatstore import SeatStore

    store = SeatStore()
    code = spec.code or store.code_for(table_id) or new_table_code()
    try:
        store.remember_code(table_id, code)  # `host --load` serves the same code again
    except (OSError, SaveError):  # a convenience: a full or read-only data folder does not stop the table
        pass
    return code

