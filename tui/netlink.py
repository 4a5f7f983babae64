"""The table over the network: `PeerSession`s driven by asyncio streams.

Even a table in this process (`cthulhu play`, `cthulhu host`) is reached this way: its host
runs in a thread of its own (`table.thread`, seated by `cli.embedded`) and the app joins it
through a loopback socket, exactly as a LAN peer would; the link knows it as an `OwnTable`.

Hot-seat players at one terminal each get their own connection (one seat per
connection is the protocol's rule); the first connection's news drives the
screen, the others only carry their seat's commands.

A dropped connection is not the end: the screen keeps the last table, the
status says the link is reconnecting (with the attempt), and the link keeps
trying with its seat token for `RECONNECT_FOR` seconds, so a host restarted
with `--load` finds everybody back by themselves (`tui.redial`). What the host
says becomes the news the screen is sent (`tui.newsdesk`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cthulhu.net import AfterDrop, ConnectionTrouble, PeerSession, Route
from cthulhu.net import DiceVerdict
from cthulhu.net import join_command
from cthulhu.net import Chat, Delta, Error, GameOverMsg, Lobby, LobbyWelcome, RecapMsg, Rejected, SinceMsg, Snapshot, Table, Welcome

from . import news, tableinfo
from .comeback import link_comeback, not_ours_to_save
from .conn import Conn, JoinAs, deciding_view
from .link import (
    NOTHING_YET, ChatSaid, Earlier, Missed, Moved, Noticed, Opened, QueuedUpdates, Refused, SaveUnavailable, TableChanged,
    TableClosed, TableLobby, TurnClock, Warned, held_news, save_trouble_notice,
)
from .linkerrors import LinkError, refusal
from .newsdesk import Newsdesk
from .redial import Redial
from .seatkeys import SeatKeys
from .story import Story
from .who import seat_names

if TYPE_CHECKING:
    from cthulhu.net import SeatStore

    from .options import PlayOptions
    from .ownhost import OwnTable

__all__ = ["JoinAs", "NetLink", "join_link"]

WELCOME_TIMEOUT = 10.0


class NetLink(QueuedUpdates):
    """A `TableLink` to a host (one connection per local seat); `embedded`: the host is this
    process's own (`cthulhu play`, `cthulhu host`).

    `store` (a `SeatStore`) remembers the seat token of every welcome and offers it again the
    next time the same name joins the same table (`SeatKeys`), so the same command takes the
    seat back.
    """

    def __init__(self, join: JoinAs, *, store: SeatStore | None = None, embedded: OwnTable | None = None) -> None:
        self.join = join
        self.port, self.name = join.port, join.name
        self.code, self.watch = join.code, join.watch
        self.embedded = embedded
        self.seed: int | None = embedded.seed if embedded is not None else None
        self.warning: str | None = None  # told with the first news (an unwritable saves folder)
        self.hosting = embedded is not None and embedded.hosting  # this process hosts a table others join (`cthulhu host`)
        self.chat_ok = embedded is None or embedded.hosting  # others may be at the table (a joined host, or ours): offer chat
        self.store = store
        self.address = join.address or f"{join.host}:{join.port}"
        self.label, self.visitor = join.label, join.visitor
        self.keys = SeatKeys(store, self.address, hosting=self.hosting, table=embedded.table_id if embedded is not None else None,
                             server_table=join.table, visitor=join.visitor is not None, watch=join.watch)
        self.local_seats: frozenset[int] = frozenset()
        self._wanted = list(join.seats) or [None]
        self._conns: list[Conn] = []
        self.desk = Newsdesk(self._view)  # the news on its way to the screen, and the link's state line
        self._queue = self.desk.queue
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._last_view: dict[str, Any] = {}
        self._waiting: str | None = None  # the status line while the table waits for its seats to fill
        self._seats_seen: dict[int, news.SeatState] = {}
        self._story = Story()
        self._welcomes = 0  # of the first connection: "since you left" follows only the first
        self._clock_at = time.monotonic()  # when the table (and its turn clock) was last told
        self._held: str | None = None  # the table waits for its disk (`Table.held`), as last told
        self.dice: DiceVerdict | None = None  # the dice verdict once the game is over and checked
        self._back: list[str] = []  # "Back at the table" and seat news, waiting for the recap after a reconnect's welcome
        self._host_stopped: str | None = None  # the embedded host's loop raised: its first line (no host comes back)
        self.redial = Redial(join, self.address, self.keys, self.desk, embedded, closed=lambda: self._closed,
                             stopped=lambda: self._host_stopped is not None, comeback=lambda: self.comeback)

    verifies_dice = True  # every peer replays the game from the revealed seed at the end

    @property
    def lobby(self) -> TableLobby:
        return self

    @property
    def session(self) -> PeerSession | None:
        """The first connection's session: the one whose news the screen shows."""
        return self._conns[0].session if self._conns else None

    @property
    def advice(self) -> bool:
        """The table's house rule, from the setup the host sent with its welcome (on unless it says off)."""
        setup = self.session.record.setup if self.session is not None else None
        return not (isinstance(setup, dict) and setup.get("advice") == "off")

    # -- connecting -----------------------------------------------------------

    async def open(self) -> Opened:
        """Connect every local seat; the first news. Opening an open link gives that news again
        (a served visitor's link is opened before the app draws anything, then by the game screen)."""
        if self.desk.opened is not None:
            return self.desk.opened
        self._loop = loop = asyncio.get_running_loop()
        if self.embedded is not None:
            self.embedded.on_save_trouble(self._save_trouble)

            def crashed(line: str) -> None:  # (in the host's thread)
                loop.call_soon_threadsafe(self._crashed, line)

            self.embedded.on_crash = crashed
        names = self.join.names
        for n, wanted in enumerate(self._wanted):
            name = names[n] if names else self.name if len(self._wanted) == 1 else f"{self.name} {n + 1}"
            token, stored = (self.join.token, False) if n == 0 and self.join.token else (self.keys.stored(name), True)
            conn = await self._open_conn(name, wanted, token, stored and token is not None)
            if conn.session.after_drop(seated=False, stale=conn.stored_token) is AfterDrop.SIT_ANEW:
                self.keys.forget(conn.session.sit_anew())  # a seat from another game at this address, or one since freed
                await conn.close()
                conn = await self._open_conn(name, wanted, None, False)
            if conn.session.closed is not None:
                await conn.close()
                raise refusal(conn.session.closed)
            if not conn.up:
                await conn.close()
                raise LinkError(f"the host at {self.address} closed the connection before seating us")
            self._conns.append(conn)
        self._seat_local()
        view, status, alone = self._view(), self.desk.status, self.embedded is not None and not self.chat_ok
        full = not self.local_seats and not self.watch
        said = news.joined(self.address, None if full else self._playing(self.local_seats), here=self.embedded is not None,
                           visitor=self.visitor, kept=self._conns[0].stored_token)
        early = [replace(n, view=view, status=status) for n in self.desk.early]  # (told before any connection was ours: no view yet)
        self.desk.opened = Opened(view=view, status=status, news=(
            *(n for n in early if isinstance(n, Earlier)), Moved(view=view, status=status, events=list(self._conns[0].opening)),
            *([] if alone else [Noticed(view=view, status=status, text=said, headline=full or bool(self.visitor))]),  # alone: no sockets to speak of
            *([Warned(view=view, status=status, text=self.warning)] if self.warning else []),
            *(n for n in early if isinstance(n, Missed) and not alone)))
        self.desk.early = []
        return self.desk.opened

    async def _open_conn(self, name: str, wanted: int | None, token: str | None, stored: bool) -> Conn:
        session = PeerSession(name, code=self.code, seat=wanted, token=token, watch=self.watch, table_id=self.join.table,
                              ident=self.keys.identity())
        conn = Conn(session, Route(self.join.host, self.join.port, self.join.tls is not None), stored_token=stored)
        await conn.connect(self.join, self.address, first=not self._conns)
        primary = not self._conns

        def garbled(exc: Exception) -> None:  # the host's framing is broken: the connection is dropped and dialled again
            if primary:
                self.desk.notice(f"bad data from the host ({exc}); reconnecting")

        conn.task = asyncio.create_task(conn.pump(lambda: self._closed, lambda messages: self._deliver(conn, messages, primary), garbled,
                                                  lambda: self.redial.after_drop(conn, primary)))
        try:
            await asyncio.wait_for(conn.welcomed.wait(), WELCOME_TIMEOUT)
        except asyncio.TimeoutError:
            conn.task.cancel()
            raise LinkError(f"no welcome from {self.address}") from None
        return conn

    def _crashed(self, line: str) -> None:
        """The embedded host's loop raised (`line`: the error's first line): the table has stopped for
        good. Said once, in the Log and the bar, which offers to quit instead of waiting."""
        if self._host_stopped is not None or self._closed:
            return
        self._host_stopped = line
        said, bar = news.stopped(line)
        self.desk.put(TableClosed, status=bar)
        self.desk.notice(said, headline=True)

    # -- what the host says -----------------------------------------------------

    def _deliver(self, conn: Conn, messages: list[Any], primary: bool) -> None:
        session = conn.session
        for msg in messages:
            if isinstance(msg, Welcome):
                self._welcomed(conn, msg, primary)
            elif isinstance(msg, Error) and msg.fatal or isinstance(msg, LobbyWelcome):
                conn.welcomed.set()  # what it means is decided when the connection ends (_after_drop), or by open()
            elif isinstance(msg, Error) and msg.code == "rate_limited":
                self.desk.notice(f"The host says: {msg.reason}")
            elif isinstance(msg, Rejected):
                self.desk.put(Refused, reason=msg.reason)
            elif not primary:
                continue
            elif isinstance(msg, Delta):
                self._story.moved(msg.step)
                self.desk.put(Moved, events=list(msg.events))
                if session.mirror.stale:
                    self.desk.notice("resynchronising with the host")
                if msg.stand_in and msg.cmd is not None:  # the Log says whose decision that was not
                    self.desk.notice(f"(A stand-in bot decided that for {self._playing([int(msg.cmd[0])])}; it cannot be taken back.)")
            elif isinstance(msg, RecapMsg):
                if earlier := self._story.recap(msg):
                    self.desk.story(Earlier, events=earlier)
                for line in self._back:  # back after a drop: where the player is, once the Log has what they missed
                    self.desk.notice(line)
                self._back = []
            elif isinstance(msg, SinceMsg):
                if self._welcomes == 1 and (since := self._story.since(msg)) is not None:  # (after a drop the Log tells what was missed)
                    self.desk.story(Missed, since=since)
            elif isinstance(msg, Snapshot):
                self.desk.put(TableChanged)
            elif isinstance(msg, Chat):
                self.desk.put(ChatSaid, name=msg.name or "?", text=msg.text)
            elif isinstance(msg, Lobby):
                self._lobby(msg.table, session)
            elif isinstance(msg, GameOverMsg):
                self.seed = msg.seed
                self.desk.notice(f"The game's seed was {msg.seed}: checking every roll against it...", source=session)
                asyncio.get_running_loop().create_task(self._verify_dice(session))
            elif isinstance(msg, ConnectionTrouble):
                self.desk.notice(f"a garbled message from the host: {msg.error}")

    def _welcomed(self, conn: Conn, msg: Welcome, primary: bool) -> None:
        self._clock_at = time.monotonic()
        back = conn.was_up
        if not back:
            conn.opening = list(msg.events)
            if msg.events and primary:
                self._story.opening()
        conn.up = conn.was_up = True
        conn.route.arrived()
        conn.welcomed.set()
        self._seat_local()
        if (trouble := self.keys.remember(conn.session.name, msg)) is not None:
            self.desk.notice(trouble)
        if not primary:
            return
        self._welcomes += 1
        seats = self._seat_news(msg.table)
        if back:  # told after the recap that follows (what happened meanwhile, then where we are)
            self.desk.status = None
            self._back = [news.back(None if msg.seat is None else self._playing([msg.seat])), *seats]
        elif self._queue_ready:
            self.desk.notice("connected to the table")
        self._follow_start(msg.table, conn.session.mirror.view)

    def _lobby(self, table: Table, session: PeerSession) -> None:
        self._clock_at = time.monotonic()
        if table.clock is not None and self._view():
            self.desk.put(TableChanged)  # the header shows whose clock runs (before the first view, the first news will)
        held, self._held = held_news(self._held, table.held), table.held
        if held is not None:
            self.desk.notice(held)
        begins = self._waiting is not None and table.started
        self._follow_start(table, session.mirror.view)
        for line in self._seat_news(table):
            self.desk.notice(line)
        if begins and self.chat_ok and (said := news.begins(session.mirror.view or {})):
            self.desk.notice(said)

    def _follow_start(self, table: Table, view: dict[str, Any] | None) -> None:
        """Until every seat is taken nobody may act: the bar says so in place of choices the host
        would refuse, with the seats still open and how to fill them; it clears when play starts."""
        join = None if table.started or self.visitor is not None else join_command(self.lobby_info()["address"], self.code, table=self.join.table)
        waiting = news.waiting(table, view or self._view(), join, self.hosting)
        before, self._waiting = self._waiting, waiting
        if self.desk.status not in (None, before) or self.desk.status == waiting:
            return  # the link's own trouble (reconnecting) is shown, or this already is
        if self._queue_ready or not self.desk.queue.empty():  # news already queued must not keep the old line
            self.desk.put(TableChanged, status=waiting)
        else:
            self.desk.status = waiting

    def _seat_news(self, table: Table) -> list[str]:
        """This terminal's own seats (hot-seat: and those it is still sitting down at) are no news to it."""
        own = self.local_seats | {s for s in self._wanted if s is not None}
        return news.seat_news(self._seats_seen, table, self._view(), own)

    def _playing(self, seats: Iterable[int]) -> str:
        return news.plays(self._view(), seats)

    def seat_names(self) -> dict[int, str]:
        return seat_names(self.session.table if self.session is not None else None)

    def _seat_local(self) -> None:
        self.local_seats = frozenset(c.session.seat for c in self._conns if c.session.seat is not None)

    async def _verify_dice(self, session: PeerSession) -> None:
        """Replay the game from the revealed seed off the UI thread, then say what it showed."""
        verdict = await asyncio.to_thread(session.verify_dice)
        if verdict is None or self._closed:
            return
        self.dice = verdict
        if verdict.verified:
            self.desk.notice(f"Dice: {verdict.message}.", source=session)
        else:
            self.desk.put(Refused, reason=f"Dice NOT verified: {verdict.message}", source=session)

    def _save_trouble(self, reason: str | None) -> None:
        """From the embedded host's thread: autosave failed (`reason`) or works again (None)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(lambda: self.desk.notice(save_trouble_notice(reason)))

    def lobby_info(self) -> dict[str, Any]:
        """What the table dialog shows (`tableinfo.lobby_info`); it says who is missing itself."""
        return tableinfo.lobby_info(self.session, address=self.address, port=self.port, code=self.code, server_table=self.join.table,
                                    local_seats=self.local_seats, view=self._view(), status=self.desk.status if self.desk.status != self._waiting else None,
                                    own=self.embedded, visitor=self.visitor, store_path=self.store.path if self.store is not None else None)

    @property
    def comeback(self) -> str | None:
        """One line for after the game closes: how to carry on."""
        return link_comeback(self.session, self.embedded, self.visitor, self.local_seats, self.address, self.code, self.join.table)

    @property
    def _queue_ready(self) -> bool:
        return self.desk.ready(bool(self.local_seats) or self.watch)

    def _view(self) -> dict[str, Any]:
        """The view on screen: the last one seen while a connection is down (the table stays on screen)."""
        view = deciding_view([c.session for c in self._conns])
        if view is not None:
            self._last_view = view
        return self._last_view

    # -- the TableLink surface -------------------------------------------------

    async def _on_seat(self, seat: int, say: Any) -> None:
        """Say something for `seat` on its own connection (`say(session)`), or why it cannot be said."""
        for conn in self._conns:
            if conn.session.seat == seat:
                if not conn.up:
                    self.desk.put(Refused, reason=news.NOT_SENT_DOWN)
                    return
                say(conn.session)
                try:
                    await conn.flush()
                except OSError as exc:
                    self.desk.put(Refused, reason=f"not sent, the connection is down: {exc}")
                return
        self.desk.put(Refused, reason=f"{self._playing([seat])} is not played at this terminal")

    async def send(self, seat: int, command: dict[str, Any], version: int | None) -> None:
        await self._on_seat(seat, lambda session: session.send_command(command, version))

    async def undo(self, seat: int, version: int | None) -> None:
        """Ask the host to take back `seat`'s last decision (it decides whether it may)."""
        await self._on_seat(seat, lambda session: session.send_undo(version))

    def held(self) -> str | None:
        table = self.session.table if self.session is not None else None
        return table.held if table is not None else None

    def unsaved(self) -> str | None:
        return self.embedded.save_trouble if self.embedded is not None else None

    def clock(self) -> TurnClock | None:
        return TurnClock.told(self.session.table if self.session is not None else None, self._clock_at, self.local_seats)

    async def back(self) -> None:
        for conn in self._conns:
            table, seat = conn.session.table, conn.session.seat
            if conn.up and table is not None and seat is not None and (table.seats[seat].stand_in or (table.clock and table.clock.idle)):
                conn.session.send_back()
                await conn.flush()

    async def chat(self, text: str) -> None:
        if self._conns and self._conns[0].up:
            self._conns[0].session.chat(text)
            await self._conns[0].flush()

    async def save(self) -> str | None:
        if self.embedded is None:
            raise SaveUnavailable(not_ours_to_save(self.join.table))
        if not self.embedded.saving:
            raise SaveUnavailable("This game is not being saved (--no-save).")
        if not self.embedded.save_started:
            raise SaveUnavailable(NOTHING_YET)
        return str(await self.embedded.save())

    @property
    def save_path(self) -> Path | None:
        """The file this game is saved to, once there is one (a new game's from its first move on)."""
        return self.embedded.save_path if self.embedded is not None and self.embedded.save_started else None

    # -- the host's own table (hosting terminal only) -----------------------------

    async def hand_to_bot(self, seat: int) -> None:
        await self._own_host().hand_to_bot(seat)

    async def start_with_bots(self) -> None:
        await self._own_host().start_with_bots()

    async def free_seat(self, seat: int) -> None:
        await self._own_host().free_seat(seat)

    def _own_host(self) -> OwnTable:
        if self.embedded is None:
            raise ValueError("only the host can change the seats")
        return self.embedded

    def play_again(self) -> str | None:
        return tableinfo.play_again(self.session, self.seed, self.embedded.bot_kinds() if self.embedded is not None else {})

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for conn in self._conns:
            await conn.close()
        if self.embedded is not None:
            await self.embedded.stop()
        await self._queue.put(None)


def join_link(options: PlayOptions) -> NetLink:
    """`cthulhu join`: this terminal as a peer of a host elsewhere (comes back with its seat token)."""
    from cthulhu.net import SeatStore

    if options.join is None:
        raise ValueError("join_link needs the host's address (options.join)")
    host, port = options.join
    address = options.join_address or (f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
    return NetLink(
        JoinAs(
            host=host, port=port, address=address, tls=options.tls,
            name=options.name, code=options.code, seats=(options.join_seat,), watch=options.watch, token=options.token,
            label="visiting" if options.kiosk else f"joined {address}",
            visitor=(options.kiosk_comeback or "") if options.kiosk else None,
            table=options.join_table,
        ),
        store=SeatStore(),
    )
