"""A table's seats: who sits where, their tokens, who is away, and who stands in for them.

`Seats` owns the seat list and decides; the host acts on what it returns (`Admitted`, a
`Refusal`, `SeatsChanged`): it sends the frames, tells the lobby, wakes the game loop and writes
the save. A person's seat without a connection is *away*: it stays theirs (their token brings
them back, even past a changed table code). The table waits for it, unless a stand-in bot is
handed the seat (`hand_to_bot`, or by itself after `StandIns.after` seconds) or it is freed for
someone new (`free`). Tokens live in memory only; a seat restored from a save knows only its
token's hash, and every seat is compared on each try, so timing does not tell which one matched.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from cthulhu.net import Refusal
from cthulhu.net import new_seat_token
from cthulhu.net import PROTOCOL_VERSION, Hello, SeatInfo
from cthulhu.net import clean_name
from cthulhu.savegame import PlayerRecord

if TYPE_CHECKING:
    from .peers import Peer

log = logging.getLogger("cthulhu.table.host")


@dataclass(eq=False)
class Seat:
    index: int
    kind: Literal["open", "human", "bot"] = "open"
    name: str | None = None
    token: str | None = None  # in memory only: never logged, never broadcast
    token_hash: str | None = None  # a seat restored from a save knows only its token's hash
    bot: Any = None
    bot_kind: str | None = None
    peer: Peer | None = None
    stand_in: Any = None  # a bot playing this away player's turns until they come back
    seen: int | None = None  # the step its player had been told when their connection ended
    away_since: float | None = None  # trio clock; for `StandIns.after`
    clocked_out: bool = False  # its turn clock ran out: `stand_in` plays it, connected or not, until its player is back

    @property
    def away(self) -> bool:
        """A person's seat with nobody connected to it."""
        return self.kind == "human" and (self.peer is None or self.peer.gone)

    @property
    def player(self) -> Any:
        """The bot that decides for this seat now, if any."""
        return self.bot if self.kind == "bot" else self.stand_in if self.away or self.clocked_out else None

    def info(self) -> SeatInfo:
        connected = self.kind == "bot" or (self.kind == "human" and not self.away)
        return SeatInfo(seat=self.index, kind=self.kind, name=self.name, connected=connected, stand_in=self.stand_in is not None)


@dataclass(frozen=True, slots=True)
class Admitted:
    """Where a hello sits: `seat` (None: it watches) and the `token` its welcome carries; `back`:
    it came back with its token; `stale`: the connection that held the seat until now (the host
    closes it: its owner is here)."""

    seat: Seat | None
    token: str | None
    back: bool = False
    stale: Peer | None = None


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    """The seats changed: the lobby is told and the game loop looks again (a bot may have a move
    to make; the seats are written down before anyone takes a freed one)."""

    seats: tuple[int, ...]


def same_secret(a: str | None, b: str | None) -> bool:
    """Two secrets compared in constant time (None matches nothing)."""
    if a is None or b is None:
        return False
    return hmac.compare_digest(a.encode(), b.encode())


def _hash_matches(token: str | None, token_hash: str | None) -> bool:
    if token is None or token_hash is None:
        return False
    from cthulhu.savegame.writer import token_matches

    return token_matches(token, token_hash)


class Seats(Sequence[Seat]):
    """The seats of one table. `bot(index, kind)` makes the bot that plays seat `index` (kind
    None: the table's stand-in kind)."""

    def __init__(self, players: int, bot: Callable[[int, str | None], Any]) -> None:
        self._seats = [Seat(i) for i in range(players)]
        self._bot = bot
        self._recorded: list[dict[str, Any]] | None = None  # the seats as last written down

    def __iter__(self) -> Iterator[Seat]:
        return iter(self._seats)

    @overload
    def __getitem__(self, index: int) -> Seat: ...
    @overload
    def __getitem__(self, index: slice) -> list[Seat]: ...
    def __getitem__(self, index: int | slice) -> Seat | list[Seat]:
        return self._seats[index]

    def __len__(self) -> int:
        return len(self._seats)

    @property
    def full(self) -> bool:
        """No seat is open."""
        return all(s.kind != "open" for s in self._seats)

    def seat_bot(self, index: int, kind: str) -> None:
        """A bot of `kind` plays seat `index` for the whole game."""
        seat = self._seats[index]
        seat.kind, seat.name, seat.bot_kind = "bot", f"{kind} bot", kind
        seat.bot = self._bot(index, kind)

    def restore(self, players: list[PlayerRecord], bot_kinds: tuple[str, ...] | list[str]) -> None:
        """The seats of a loaded save: its people's wait for their tokens, its bots play again."""
        for player in players:
            saved = self._seats[player.seat] if 0 <= player.seat < len(self._seats) else None
            if saved is None or saved.kind != "open":
                continue
            if player.token_hash:
                saved.kind, saved.name, saved.token_hash = "human", clean_name(player.name) or "player", player.token_hash
            elif player.bot is not None and player.bot in bot_kinds:
                self.seat_bot(saved.index, player.bot)

    # -- admission ---------------------------------------------------------------------------

    def owner(self, hello: Hello) -> Seat | None:
        """The person's seat whose token this hello presents (None: no token, or no such seat)."""
        if hello.seat is None:
            candidates = self._seats
        elif 0 <= hello.seat < len(self._seats):
            candidates = [self._seats[hello.seat]]
        else:
            candidates = []
        found = None
        for seat in candidates:  # compare with every seat: timing does not tell which one matched
            if seat.kind != "human":
                continue
            if same_secret(hello.token, seat.token) or (seat.token is None and _hash_matches(hello.token, seat.token_hash)):
                found = seat
        if found is not None and found.token is None:
            found.token = hello.token  # restored from a save: from now on, compare directly
        return found

    def would_watch(self, hello: Hello) -> bool:
        return hello.token is None and (hello.watch or not any(s.kind == "open" for s in self._seats))

    def refusal(self, hello: Hello, table_id: str, code: str | None, spectators: int, max_spectators: int) -> Refusal | None:
        """Why this hello may not have a place at table `table_id` (whose hellos must present
        `code`; None: an open table), or None: it may (`take`)."""
        # A valid seat token is the stronger secret: its owner comes back even to a host
        # restarted with another table code.
        owner = hello.token is not None and self.owner(hello) is not None
        if hello.proto != PROTOCOL_VERSION:
            return Refusal("protocol_version", f"this host speaks protocol {PROTOCOL_VERSION}, not {hello.proto}")
        if hello.lobby:
            return Refusal("not_a_server", "this host serves one table and has no lobby; join it without --table")
        if hello.table is not None and hello.table != table_id:
            return Refusal("no_such_table", "this host serves one table, and not that one; join it without --table")
        if not owner and code is not None and not same_secret(hello.code, code):
            return Refusal("bad_code", "wrong table code")
        if not clean_name(hello.name):
            return Refusal("bad_name", "a name needs at least one printable character")
        if hello.token is not None and not owner:
            return Refusal("bad_token", "that seat token is not valid here")
        if self.would_watch(hello) and spectators >= max_spectators:
            return Refusal("table_full", "no room for more spectators at this table")
        return None

    def take(self, hello: Hello) -> Admitted:
        """The place this (accepted) hello gets: its own seat back, the open seat it asked for (or
        the first open one), or a spectator's."""
        if hello.token is not None:
            seat = self.owner(hello)
            assert seat is not None
            stale, seat.peer = seat.peer, None  # (so the seat is not "left": its owner is here)
            seat.stand_in = seat.away_since = None  # back: their stand-in, if any, leaves the seat
            seat.clocked_out = False
            return Admitted(seat, seat.token, back=True, stale=stale)
        if not hello.watch:
            open_seats = [s for s in self._seats if s.kind == "open"]
            wanted = [s for s in open_seats if s.index == hello.seat]
            if wanted or open_seats:
                seat = (wanted or open_seats)[0]
                seat.kind, seat.token = "human", new_seat_token()
                return Admitted(seat, seat.token)
        return Admitted(None, None)

    def left(self, peer: Peer, told: int, now: float) -> bool:
        """`peer`'s connection ended; True if it held a seat (which waits for them now)."""
        if peer.seat is None or self._seats[peer.seat].peer is not peer:
            return False
        seat = self._seats[peer.seat]
        seat.peer, seat.away_since, seat.seen = None, now, told
        return True

    # -- away players ------------------------------------------------------------------------

    def _away(self, index: int) -> Seat:
        if not 0 <= index < len(self._seats) or not self._seats[index].away:
            raise ValueError(f"seat {index + 1} has no away player")
        return self._seats[index]

    def hand_to_bot(self, index: int, kind: str | None = None) -> SeatsChanged | None:
        """A bot plays an away player's turns until they come back with their token (None: one does already)."""
        seat = self._away(index)
        if seat.stand_in is not None:
            return None
        seat.stand_in = self._bot(index, kind)
        log.info("seat %d (%s) is away; a bot plays it until they return", index, seat.name)
        return SeatsChanged((index,))

    def fill_with_bots(self, kind: str) -> SeatsChanged:
        """A `kind` bot in every open seat, for the whole game (the table dialog's "start now")."""
        filled = tuple(seat.index for seat in self._seats if seat.kind == "open")
        for index in filled:
            self.seat_bot(index, kind)
        log.info("started with bots in seats %s", [n + 1 for n in filled])
        return SeatsChanged(filled)

    def free(self, index: int) -> SeatsChanged:
        """An away player's seat given up: their token stops working, a new joiner may take it."""
        seat = self._away(index)
        log.info("seat %d (%s) freed for a new player", index, seat.name)
        seat.kind, seat.name, seat.token, seat.token_hash, seat.stand_in, seat.away_since, seat.seen = "open", None, None, None, None, None, None
        seat.clocked_out = False
        return SeatsChanged((index,))

    def overdue(self, now: float, after: float) -> list[int]:
        """The seats away for `after` seconds with no stand-in yet (a seat restored from a save is
        away from the first time it is asked about)."""
        out = []
        for seat in self._seats:
            if not seat.away or seat.stand_in is not None:
                continue
            if seat.away_since is None:
                seat.away_since = now
            elif now - seat.away_since >= after:
                out.append(seat.index)
        return out

    def changed_record(self) -> list[dict[str, Any]] | None:
        """Who sits where for the save (token hashes only), if that changed since last asked."""
        from cthulhu.savegame.writer import hash_token

        players = [
            {"seat": s.index, "name": s.name or "", "token_hash": hash_token(s.token) if s.token else s.token_hash, "bot": s.bot_kind}
            for s in self._seats
            if s.kind != "open"
        ]
        if players == self._recorded:
            return None
        self._recorded = players
        return players
