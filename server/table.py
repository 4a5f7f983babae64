"""One table of a server: its record (what the lobby lists and the store keeps) and, while anyone
uses it, its `Host` (opened from the table's save by `open_table`, as every table is).

A table is opened on its first connection and closed again once it has been idle a while, so a
thousand tables that nobody is at cost a thousand small records, not a thousand games. While it
is open the host tells the table what happens (`HostEvents`), and the record follows: the seats
and who holds them, the step, whose move it is, the end.

A table's pace (`table.spec.Pace`: live, or turn-based with a clock per decision) is kept in its
settings and given to its host, which runs the clock; the record keeps the running clock's
deadline (wall time, UTC), so a restarted server gives that decision only the time it had left,
and an idle table whose clock runs is closed like any other and opened again at its deadline
(`server.alarms`), for the clock to run out there.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import trio

from cthulhu.core import Setup, modes
from cthulhu.net import Limits
from cthulhu.net import SeatRow, TableRow
from cthulhu.table import SaveTo, TableSpec

from .store import TableRecord

if TYPE_CHECKING:
    from cthulhu.savegame.shelf import Shelf
    from cthulhu.table import Host, Seat


def setup_words(setup: Setup) -> tuple[dict[str, str | list[str]], str]:
    """The set-up choices a listing shows: by option, the ids (a one-id option's default filled in;
    a list option only when chosen), and the one-id choices in words ("The Wexley Mill Fire, Hastur")."""
    from cthulhu.content import builtin
    from cthulhu.core.choices import ADVICE

    mode = modes.get(setup.mode)
    content = builtin().modes.get(mode.name)
    ids: dict[str, str | list[str]] = {}
    words = []
    for option in mode.options:
        if option is ADVICE:  # a house rule is listed as the header says it, only when it is in force
            if not setup.advice:
                ids[option.name] = "off"
                words.append("no advice (house rule)")
            continue
        if option.many:
            if setup.many(option.name):
                ids[option.name] = setup.many(option.name)
            continue
        choice = setup.one(option.name) or next(iter(option.defaults(content)), None)
        if choice is None:
            continue
        ids[option.name] = choice
        words.append(next((c.name for c in option.values(content) if c.id == choice), choice))
    return ids, ", ".join(words)


def seat_status(seat: Seat) -> Literal["open", "person", "bot", "away", "stand_in"]:
    if seat.kind == "open":
        return "open"
    if seat.kind == "bot":
        return "bot"
    if seat.stand_in is not None:
        return "stand_in"  # its clock ran out, or it was handed over while its person is away
    return "away" if seat.away else "person"


class ServerTable:
    """A table of the server: `record` always, `host` while it is open. Its save is its file in
    `folder`, or on the store's `shelf` (a database's rows)."""

    def __init__(self, record: TableRecord, folder: Path, shelf: Shelf | None = None) -> None:
        self.record = record
        self.folder = folder
        self.shelf = shelf
        self.host: Host | None = None
        self.scope: trio.CancelScope | None = None  # the open table's tasks
        self.opening: trio.Event | None = None  # set once an open under way is done (or failed)
        self.idle_since = 0.0  # trio clock: when its last connection ended (or it opened)
        self.pace = record.spec.pace
        self.identities: dict[int, str] = {}  # connected peer id -> its identity, for what they saw
        self._search: str | None = None
        self._ids: dict[str, str | list[str]] | None = None  # the set-up as listed (worked out when first listed)

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def save_path(self) -> Path:
        return self.folder / self.record.save

    @property
    def save_where(self) -> str:
        """Where its save is kept, for the log: its file, or its rows in the store."""
        return self.shelf.where if self.shelf is not None else str(self.save_path)

    @property
    def live(self) -> bool:
        return self.record.archived is None

    def spec(self, limits: Limits) -> TableSpec:
        """The table to open: the spec it was made with (its bots' seats, loaded save or not: a
        table saved before anyone sat has them in no save), from its save (every table has one
        from its creation), with its code. A shelf's save, if it holds one, is read off the event
        loop: `resolve` carries the Setup on from it."""
        start: Setup | Path = self.save_path if self.shelf is None and self.save_path.exists() else self.record.setup
        return replace(self.record.spec, start=start,
                       save=SaveTo(file=self.save_path, fsync=True, hold=True, at_once=True, shelf=self.shelf),
                       code=self.record.code, table_id=self.record.id, limits=limits)

    # -- following the open table ------------------------------------------------------------------

    def refresh(self, wall: str) -> None:
        """The record from the open table as it stands (seats, step, whose move, the end)."""
        host = self.host
        if host is None:
            return
        record, game = self.record, host.game
        if host.told != record.step:
            record.last_move = wall
        record.step = host.told  # a step being saved is listed once it is on disk and told
        record.seats = [{"seat": s.index, "name": s.name if s.kind != "open" else None, "status": seat_status(s)} for s in host.seats]
        prompt = game.prompt
        record.to_move = [prompt.seat] if prompt is not None and game.outcome is None and host.started.is_set() else []
        record.finished = game.outcome is not None and host.told == game.step
        record.outcome = game.outcome if record.finished else None
        record.updated = wall
        record.clock = host.clock.saved() if host.clock is not None else None
        record.turns = host.turns.saved() if host.turns.applies else None
        self._search = None

    def closed(self) -> None:
        """The table is no longer open: its people are all away."""
        self.host = None
        self.scope = None
        kept = (self.record.turns or {}).get("kept") or []  # seats a stand-in keeps: theirs again when it opens
        for seat in self.record.seats:
            if seat.get("status") in ("person", "stand_in") and seat.get("seat") not in kept:
                seat["status"] = "away"
        self._search = None

    def busy(self) -> bool:
        """Someone is connected, or a bot has a move to make: not a table to close."""
        host = self.host
        if host is None:
            return False
        if host.peers:
            return True  # (a running clock does not keep it open: the server opens it again at its deadline)
        game = host.game
        prompt = game.prompt
        return (game.outcome is None and prompt is not None and host.started.is_set() and not host.turns.paused(game, host.seats)
                and 0 <= prompt.seat < len(host.seats) and host.seats[prompt.seat].player is not None)

    def clock_deadline(self) -> str | None:
        """When the running clock of the record's decision runs out (None: no clock runs). A
        turn-based game under way whose record has no running clock (its process stopped in the
        middle of a turn: a bot's, or before the next person's clock began) is due at once, for
        its host to play on or start that clock: else no process would ever open it again."""
        record = self.record
        clock = record.clock
        if record.finished or not self.live or (clock and clock.get("paused")):
            return None
        deadline = clock.get("deadline") if clock else None
        if deadline:
            return str(deadline)
        if self.pace.turn_time is not None and record.to_move and all(s.get("status") != "open" for s in record.seats):
            return record.updated or record.created  # (past: it rings at once, and once for this record)
        return None

    # -- the lobby's view -----------------------------------------------------------------------

    def visible_to(self, identity: str | None, mine: list[int]) -> bool:
        """Open tables are listed to everyone; a private one to its creator and those who sit at it."""
        return not self.record.private or bool(mine) or (identity is not None and identity == self.record.created_by)

    def search_text(self) -> str:
        if self._search is None:
            r = self.record
            names = " ".join(str(s.get("name") or "") for s in r.seats)
            self._search = " ".join([r.id, r.mode, modes.get(r.mode).title if r.mode in modes.names() else "", r.about, names]).lower()
        return self._search

    def activity(self) -> str:
        return self.record.last_move or self.record.created

    def open_seats(self) -> int:
        return sum(1 for s in self.record.seats if s.get("status") == "open")

    def row(self, identity: str | None, mine: list[int]) -> TableRow:
        r = self.record
        if self._ids is None:
            self._ids = setup_words(r.setup)[0]
        ids = {k: list(v) if isinstance(v, list) else v for k, v in self._ids.items()}
        watchers = sum(1 for p in self.host.peers if p.seat is None) if self.host is not None else 0
        return TableRow(
            id=r.id, mode=r.mode, setup=ids, about=r.about,
            seats=[SeatRow(seat=int(s["seat"]), name=s.get("name"), status=s["status"]) for s in r.seats],
            step=r.step, to_move=list(r.to_move), finished=r.finished, outcome=r.outcome, last_move=r.last_move,
            created=r.created, private=r.private, code=r.code if r.private and identity is not None and identity == r.created_by else None,
            mine=mine, watchers=watchers, **self._pace_row(),
        )

    def _pace_row(self) -> dict[str, Any]:
        pace = self.pace
        if pace.turn_time is None:
            return {}
        clock = self.record.clock
        deadline = clock.get("deadline") if clock and not self.record.finished else None
        paused = bool(clock and clock.get("paused")) and not self.record.finished
        return {"pace": pace.kind, "turn_time": int(pace.turn_time), "on_timeout": pace.on_timeout, "away_after": pace.away_after,
                "deadline": deadline, "paused": paused}
