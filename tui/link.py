"""How the app reaches a table: one small async interface.

The app never touches a `Game` itself. It asks a `TableLink` to send a command
and reads its news (`Update`s: small typed messages, each the full view and one kind of news) from
`updates()`. Every table is a host's, reached by a `NetLink` (`tui.netlink`), even
one in this process (built and run beside the app by `cli.embedded`); a saved game being
replayed is a `ReplayLink` (`tui.replay`). The screens cannot tell them apart.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Protocol

from textual.message import Message

from cthulhu.net import DiceVerdict
from cthulhu.net import Clock, Table
from cthulhu.net import clean_text


@dataclass(frozen=True, slots=True)
class SinceLeft:
    """What happened at the table since this player last saw it (step `seen`, now `step`): the
    events of each step after it that the host's recap carried, oldest first, as `[step, events]`;
    `stand_in`: the steps a stand-in bot decided, and for which seat; `older`: the steps before
    those that the recap no longer carried (said, never dropped silently)."""

    seen: int
    step: int
    entries: list[list[Any]]
    stand_in: dict[int, int] = field(default_factory=dict)
    older: int = 0


@dataclass(kw_only=True)
class Update(Message):
    """What the table looks like now: the base of every piece of news a link delivers, each a small
    Textual message with a handler of its own on the screen (`on_moved`, `on_refused`...).

    `view` is a full per-seat view (a plain dict). `status` is the link's state while it cannot play
    (reconnecting...): shown in place of the choices until news without it arrives."""

    view: dict[str, Any]
    status: str | None = None


@dataclass(kw_only=True)
class TableChanged(Update):
    """Only the table itself changed (a snapshot, a turn clock, a status line)."""


@dataclass(kw_only=True)
class Moved(Update):
    """The game moved on: the events (wire dicts) that led to the view; `heading` is said before them
    (a replay's "Step 12: ...")."""

    events: list[dict[str, Any]] = field(default_factory=list)
    heading: str | None = None


@dataclass(kw_only=True)
class Earlier(Update):
    """Events from before this link reached the table (a loaded game, a joiner, a player back from a
    dropped connection): the story so far, for the Log only."""

    events: list[dict[str, Any]]


@dataclass(kw_only=True)
class Refused(Update):
    """The engine's reason when our own command was refused (the view is unchanged)."""

    reason: str


@dataclass(kw_only=True)
class Noticed(Update):
    """A line about the link itself for the Log (saved, reconnected, seats...); a `headline` is also
    shown as a notification (something not to miss)."""

    text: str
    headline: bool = False


@dataclass(kw_only=True)
class Warned(Update):
    """Something the player must not miss (the game is not being saved where they think)."""

    text: str


@dataclass(kw_only=True)
class ChatSaid(Update):
    """A chat line: who said it (as the host cleaned the name) and what."""

    name: str
    text: str


@dataclass(kw_only=True)
class TableClosed(Update):
    """The table is gone for good (its host closed it, or it stopped): `status` says so and how to
    come back, and no question waits for an answer any more."""


@dataclass(kw_only=True)
class Missed(Update):
    """A player back at the table is shown what happened since they last saw it."""

    since: SinceLeft


@dataclass(kw_only=True)
class Opened(Update):
    """A link's first news (`TableLink.open`): the table as it stands and what to tell about it first,
    in order (posted one by one to the screen)."""

    news: tuple[Update, ...] = ()


class SaveUnavailable(Exception):
    """`save()` cannot save this game here; the message tells the player why (and who can)."""


NOTHING_YET = "Nothing to save yet: the game is saved from its first move on."


class TableLobby(Protocol):
    """A table's seats, as the table dialog shows them and (hosting) changes them."""

    def lobby_info(self) -> dict[str, Any]:
        """Where to join, the code, the host's latest seat list (`table`: the lobby message as plain data),
        how to come back (see `NetLink`)."""
    async def hand_to_bot(self, seat: int) -> None:
        """Let a bot play an away player's seat until they come back (the host's own table only)."""
    async def start_with_bots(self) -> None:
        """Start now: bots play the seats nobody has taken (the host's own table only)."""
    async def free_seat(self, seat: int) -> None:
        """Give an away player's seat up for a new joiner (the host's own table only)."""


class TableLink(Protocol):
    """The app's only way to the game: everything the app and its screens ask of a link."""

    local_seats: frozenset[int]
    """Seats this terminal may decide for (hot-seat: several)."""

    seed: int | None
    """Shown on screen so a game can be replayed; None when the host keeps it secret."""

    label: str
    """What the header calls this table: "solo", "hosting on port 7777", "joined host:7777"..."""

    chat_ok: bool
    """Others may be at the table: chat and the table dialog are offered."""

    dice: DiceVerdict | None
    """The verdict on the host's dice once the game is over and checked (None until then)."""

    @property
    def verifies_dice(self) -> bool:
        """Whether this link checks every roll at game over (a replay does not)."""
    @property
    def save_path(self) -> Path | None:
        """The file this terminal's game is saved to, if it is saved here."""
    @property
    def comeback(self) -> str | None:
        """One line for after the game closes: how to carry on (None: nothing to carry on)."""
    @property
    def lobby(self) -> TableLobby | None:
        """The table's seats, for the table dialog; None where there is no table to speak of."""
    @property
    def advice(self) -> bool:
        """The table's house rule: may its players open the odds panel (`Setup.advice`)."""

    def seat_names(self) -> dict[int, str]:
        """Who sits at each seat as this terminal knows it: a person's name, or `who.BOT`; a seat
        not listed has nobody named (this terminal's own, an open one). See `who.player`."""

    async def open(self) -> Opened: ...
    async def send(self, seat: int, command: dict[str, Any], version: int | None) -> None: ...
    async def undo(self, seat: int, version: int | None) -> None:
        """Take back `seat`'s last decision; the table answers with an update (or a refusal)."""
    def clock(self) -> TurnClock | None:
        """A turn-based table's clock as the host last told it; None: no clock."""
    def held(self) -> str | None:
        """Why the table waits for its disk before it tells the next step (None: it does not wait)."""
    def unsaved(self) -> str | None:
        """Why this terminal's own game is not being saved now (None: it is, or another process saves it)."""
    async def back(self) -> None:
        """Take this terminal's seat back from the stand-in its turn clock gave it."""
    def updates(self) -> AsyncIterator[Update]: ...
    async def chat(self, text: str) -> None: ...
    async def save(self) -> str | None: ...  # the file written; raises SaveUnavailable
    async def close(self) -> None: ...
    def play_again(self) -> str | None:
        """The `cthulhu play` line that starts this table again (`net.playagain`); None until the seed is known."""


@dataclass(frozen=True)
class TurnClock:
    """A turn-based table's clock as this terminal last heard of it: `at` is when (`time.monotonic`);
    `stood_in`: a stand-in plays this terminal's seat since its clock ran out; `stand_ins`: the
    seats a stand-in plays now (this terminal's and others')."""

    clock: Clock
    at: float
    stood_in: bool = False
    stand_ins: frozenset[int] = frozenset()

    @classmethod
    def told(cls, table: Table | None, at: float, local_seats: frozenset[int]) -> TurnClock | None:
        """The clock of a host's seat list, last told at `at` (None: the table has none)."""
        if table is None or table.clock is None:
            return None
        stand_ins = frozenset(s.seat for s in table.seats if s.stand_in)
        return cls(table.clock, at, bool(stand_ins & local_seats), stand_ins)


class QueuedUpdates:
    """The `updates()` stream of a link that posts its Updates on a queue (None ends it)."""

    _queue: asyncio.Queue[Update | None]

    async def updates(self) -> AsyncIterator[Update]:
        while True:
            update = await self._queue.get()
            if update is None:
                return
            yield update


def held_news(was: str | None, now: str | None) -> str | None:
    """What a player reads when the table starts or stops waiting for its disk (`Table.held`)."""
    if now is not None and was is None:
        return f"The server cannot save ({clean_text(now)}): waiting. The game goes on by itself once it can; no move is lost."
    if now is None and was is not None:
        return "The server saves again: the game goes on."
    return None


def disk_words(link: TableLink) -> str | None:
    """What the header says of the disk: a table that waits to save, or a game not being saved (None: nothing)."""
    held, unsaved = link.held(), link.unsaved()
    if held is not None:  # nothing moves until the save is written
        return f"the server cannot save ({clean_text(held)}): waiting"
    return f"not saved ({clean_text(unsaved)})" if unsaved is not None else None


def save_trouble_notice(reason: str | None) -> str:
    """What the player reads when autosaving fails (`reason`) or works again (None)."""
    if reason is None:
        return "Autosave works again: the save holds every step."
    return f"Autosave failed ({reason}); the game goes on and every move tries again."
