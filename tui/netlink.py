"""The table over the network: `PeerSession`s driven by asyncio streams, and the embedded host.

Textual runs on asyncio, the host on trio. They never share a loop or call each
other: the embedded host runs `trio.run` in its own thread and the app reaches
it only through a loopback socket, exactly as a LAN peer would. Stopping it is a
non-blocking `run_sync_soon(cancel)` into trio plus a join done off the UI
thread, so nothing can deadlock (see DESIGN "Pitfalls").

Hot-seat players at one terminal each get their own connection (one seat per
connection is the protocol's rule); the first connection's updates drive the
screen, the others only carry their seat's commands.

A dropped connection is not the end: the screen keeps the last table, the
status says the link is reconnecting (with the attempt), and the link keeps
trying with its seat token for `RECONNECT_FOR` seconds, so a host restarted
with `--load` finds everybody back by themselves.
"""

from __future__ import annotations

import asyncio
import shlex
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import trio

from cthulhu.net.client import RECONNECT_FOR, ConnectionTrouble, PeerSession, reconnect_delays
from cthulhu.net.commitment import DiceVerdict
from cthulhu.net.invite import join_command
from cthulhu.net.messages import Chat, Delta, Error, GameOverMsg, Lobby, LobbyWelcome, RecapMsg, Rejected, SinceMsg, Snapshot, Table, Welcome
from cthulhu.net.textclean import clean_text

from .english import and_list, plural
from .link import NOTHING_YET, QueuedUpdates, SaveUnavailable, SinceLeft, TableLobby, TurnClock, Update, save_trouble_notice
from .who import BOT, characters, playing

if TYPE_CHECKING:
    from cthulhu.net.host import Host
    from cthulhu.net.seatstore import SeatStore

    from .options import PlayOptions

T = TypeVar("T")
WELCOME_TIMEOUT = 10.0


class LinkError(Exception):
    """The host refused us or could not be reached; the message says why."""


class ServerLobby(LinkError):
    """The address is a server of many tables and no table was named: its lobby is the way in."""


class Unreachable(LinkError):
    """Nothing answers at the address yet (friends often run `cthulhu join` before the host is up).
    Raised only before any seat is connected, so `open()` may simply be tried again."""


@dataclass
class _Conn:
    session: PeerSession
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    task: asyncio.Task[None] | None = None
    welcomed: asyncio.Event = field(default_factory=asyncio.Event)
    up: bool = False  # welcomed on the current connection
    was_up: bool = False  # welcomed at least once: a later drop is a reconnect, not a refusal
    stored_token: bool = False  # the token came from this machine's seat store (may be stale)
    opening: list[dict[str, Any]] = field(default_factory=list)  # the setup's events, from a welcome at step 0


@dataclass(frozen=True, kw_only=True)
class JoinAs:
    """Who this terminal is at a table and how it reaches it. `seats` holds one wanted seat per
    connection (None: any; hot-seat players each have their own); `address` is the host's address
    as the player typed it (what the seat store and the printed commands use); `visitor`, for a
    visitor the host serves (`join --kiosk`), is how they come back, in the door's words."""

    host: str
    port: int
    address: str | None = None
    name: str = "player"
    code: str | None = None
    seats: tuple[int | None, ...] = (None,)
    watch: bool = False
    token: str | None = None
    label: str = ""
    visitor: str | None = None
    names: tuple[str, ...] | None = None  # hot-seat: each connection's name (what it plays), in the order of `seats`
    table: str | None = None  # at a server of many tables: the table's id (its seat tokens are kept by it)


class NetLink(QueuedUpdates):
    """A `TableLink` to a host (one connection per local seat); `embedded`: the host is this
    process's own (`cthulhu play`, `cthulhu host`).

    `store` (a `SeatStore`) remembers the seat token of every welcome and offers
    it again the next time the same name joins the same address (or, hosting,
    the same table), so the same command takes the seat back. A visitor's seat store
    is their own (one data folder per visitor and table), so its newest seat is theirs.
    """

    def __init__(self, join: JoinAs, *, store: SeatStore | None = None, embedded: EmbeddedHost | None = None) -> None:
        self.join = join
        self.host = join.host
        self.port = join.port
        self.name = join.name
        self.code = join.code
        self.watch = join.watch
        self.embedded = embedded
        self.seed: int | None = embedded.host.game.setup.seed if embedded is not None else None
        self.warning: str | None = None  # told with the first update (an unwritable saves folder)
        self.hosting = embedded is not None and embedded.hosting
        """This terminal's process hosts a table others join (`cthulhu host`)."""
        self.chat_ok = embedded is None or embedded.hosting
        """Others may be at the table (a joined host, or ours with open seats): offer chat."""
        self.table = embedded.host.table_id if embedded is not None else None  # hosting: to find our own token
        self.token = join.token
        self.store = store
        self.address = join.address or f"{join.host}:{join.port}"
        self.label = join.label
        self.visitor = join.visitor
        self.local_seats: frozenset[int] = frozenset()
        self._wanted = list(join.seats) or [None]
        self._names = list(join.names) if join.names else None
        """Hot-seat: each connection's name (the investigators it plays), in the order of `seats`."""
        self._conns: list[_Conn] = []
        self._queue: asyncio.Queue[Update | None] = asyncio.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._last_view: dict[str, Any] = {}
        self._status: str | None = None
        self._waiting: str | None = None  # the status line while the table waits for its seats to fill
        self._seats_seen: dict[int, tuple[str, str | None, bool, bool]] = {}
        self._opened: Update | None = None
        self._told_step = -1  # the last step whose events reached the Log (a recap tells only those after it)
        self._earlier: list[dict[str, Any]] = []  # a recap that came before `open()` gave its first update
        self._recap_seen: tuple[RecapMsg, int] | None = None  # the last recap, and the step this Log had told before it
        self._since: SinceLeft | None = None  # "since you left", when it came before `open()` gave its first update
        self._welcomes = 0  # of the first connection: "since you left" follows only the first
        self._clock_at = time.monotonic()  # when the table (and its turn clock) was last told
        self.dice: DiceVerdict | None = None
        """The dice verdict once the game is over and checked."""

    verifies_dice = True  # every peer replays the game from the revealed seed at the end

    @property
    def lobby(self) -> TableLobby:
        return self

    @property
    def advice(self) -> bool:
        """The table's house rule, from the setup the host sent with its welcome (on unless it says off)."""
        setup = self._conns[0].session.record.setup if self._conns else None
        return not (isinstance(setup, dict) and setup.get("advice") == "off")

    # -- connecting -----------------------------------------------------------

    async def open(self) -> Update:
        """Connect every local seat; the first update. Opening an open link gives that update again
        (a served visitor's link is opened before the app draws anything, then by the game screen)."""
        if self._opened is not None:
            return self._opened
        self._loop = asyncio.get_running_loop()
        if self.embedded is not None:
            self.embedded.host.saves.on_trouble = self._save_trouble
        for n, wanted in enumerate(self._wanted):
            name = self._names[n] if self._names else self.name if len(self._wanted) == 1 else f"{self.name} {n + 1}"
            token, stored = (self.token, False) if n == 0 and self.token else (self._stored_token(name), True)
            conn = await self._open_conn(name, wanted, token, stored and token is not None)
            if conn.session.closed is not None and conn.stored_token and conn.session.closed.code == "bad_token":
                self._forget(token)  # a seat from another game at this address, or one since freed
                await self._discard(conn)
                conn = await self._open_conn(name, wanted, None, False)
            if conn.session.closed is not None:
                await self._discard(conn)
                if conn.session.closed.code == "server_lobby":
                    raise ServerLobby(conn.session.closed.reason)
                raise LinkError(f"the host refused us: {conn.session.closed.reason}")
            if not conn.up:
                await self._discard(conn)
                raise LinkError(f"the host at {self.address} closed the connection before seating us")
            self._conns.append(conn)
        self._seat_local()
        view = self._view()
        opening = list(self._conns[0].opening)
        earlier, self._earlier = self._earlier, []
        since, self._since = self._since, None
        if self.embedded is not None and not self.chat_ok:  # a game at this terminal alone: nothing to say about sockets
            self._opened = Update(view, opening, earlier=earlier, warning=self.warning)
            return self._opened
        where = "the table" if self.visitor is not None else f"the table in this process at {self.address}" if self.embedded is not None else f"the table at {self.address}"
        kept = "kept for you" if self.visitor is not None else "kept on this machine"
        back = f" (your seat, {kept})" if self._conns[0].stored_token and self.local_seats else ""
        notice = f"Joined {where}; you play {self._playing(self.local_seats)}{back}."
        full = not self.local_seats and not self.watch
        if full:
            notice = f"Joined {where}. Every seat is taken, so you are watching."
        if self.visitor:
            notice += f" {self.visitor}"
        self._opened = Update(view, opening, earlier=earlier, notice=notice, headline=full or bool(self.visitor), warning=self.warning,
                              status=self._status, since=since)
        return self._opened

    def _stored_token(self, name: str) -> str | None:
        if self.store is None or self.watch:
            return None
        try:
            if self.hosting:
                entry = self.store.find(name=name, table=self.table, hosting=True) if self.table else None
            elif self.join.table is not None:  # one of a server's tables: this machine's seat there
                entry = self.store.find(name=None, address=self.address, table=self.join.table)
            elif self.visitor is not None:
                entry = next(iter(self.store.entries()), None)
            else:
                entry = self.store.find(name=name, address=self.address)
        except OSError:
            return None
        return entry.token if entry is not None else None

    def _identity(self) -> str | None:
        """At a server of many tables: the key this machine is known by there (its name, "my tables")."""
        if self.join.table is None or self.store is None:
            return None
        try:
            return self.store.identity(self.address)
        except OSError:
            return None

    async def _open_conn(self, name: str, wanted: int | None, token: str | None, stored: bool) -> _Conn:
        session = PeerSession(name, code=self.code, seat=wanted, token=token, watch=self.watch, table_id=self.join.table,
                              ident=self._identity())
        conn = _Conn(session, stored_token=stored)
        await self._connect(conn)
        conn.task = asyncio.create_task(self._read(conn, primary=not self._conns))
        try:
            await asyncio.wait_for(conn.welcomed.wait(), WELCOME_TIMEOUT)
        except asyncio.TimeoutError:
            conn.task.cancel()
            raise LinkError(f"no welcome from {self.address}") from None
        return conn

    @staticmethod
    async def _discard(conn: _Conn) -> None:
        """A connection the host refused: closed, its reader stopped and awaited."""
        if conn.writer is not None:
            conn.writer.close()
        if conn.task is not None:
            conn.task.cancel()
            try:
                await conn.task
            except (asyncio.CancelledError, Exception):
                pass

    async def _connect(self, conn: _Conn) -> None:
        try:
            conn.reader, conn.writer = await asyncio.open_connection(self.host, self.port)
            await self._flush(conn)
        except OSError as exc:
            error = LinkError if self._conns else Unreachable
            why = "nothing is listening there" if isinstance(exc, ConnectionRefusedError) else exc.strerror or exc
            raise error(f"cannot reach {self.address}: {why}") from None

    async def _flush(self, conn: _Conn) -> None:
        data = conn.session.data_to_send()
        if data and conn.writer is not None:
            conn.writer.write(data)
            await conn.writer.drain()

    async def _read(self, conn: _Conn, primary: bool) -> None:
        while not self._closed:
            try:
                data = await conn.reader.read(65536) if conn.reader else b""
            except (OSError, asyncio.IncompleteReadError):
                data = b""
            if data:
                try:
                    messages = conn.session.receive_data(data)
                except Exception as exc:  # the host's framing is broken: drop and reconnect
                    if primary:
                        self._put(notice=f"bad data from the host ({exc}); reconnecting")
                    if conn.writer is not None:  # set with the reader that just gave us data
                        conn.writer.close()
                    continue
                try:
                    await self._flush(conn)
                except OSError:
                    pass  # the read that follows sees the end of the connection
                self._deliver(conn, messages, primary)
                continue
            conn.up = False
            if conn.writer is not None:
                conn.writer.close()
            if not await self._after_drop(conn, primary):
                conn.welcomed.set()
                return

    async def _after_drop(self, conn: _Conn, primary: bool) -> bool:
        """The connection ended: True to carry on reading a new one, False to stop."""
        session = conn.session
        if self._closed or session.game_over is not None or not conn.was_up:
            return False  # done, or refused before we ever sat down (open() reports that)
        refused = session.closed
        if refused is not None and refused.code == "bad_token" and session.token:
            # The host no longer keeps our seat (it was freed): come back as a new player.
            self._forget(session.token)
            session.token = None
            if primary:
                self._put(notice="The host gave your seat up while you were away; joining again as a new player.")
        elif refused is not None and refused.code == "host_closed":  # on purpose: nothing to reconnect to
            if primary:
                self._put(notice=f"{refused.reason[:1].upper()}{refused.reason[1:]}.", headline=True,
                          status=self._closed_line(saved="saved" in refused.details), closed=True)
            return False
        elif refused is not None:
            if primary:
                self._put(rejected=f"the host closed the connection: {refused.reason}", status=None)
            return False
        return await self._reconnect(conn, primary)

    def _closed_line(self, *, saved: bool) -> str:
        """The bar once the host has closed the table: that nothing more is played here, and how to
        come back when the host saved it and this terminal knows the way (a seat token, a ticket)."""
        back = self.comeback if saved else None
        if back:
            return f"The host closed the table (it is saved): nothing more can be played until it is open again. {back}  (q quits)"
        kept = "it is saved" if saved else "it is not saved"
        return f"The host closed the table ({kept}): nothing more can be played here.  (q quits)"

    def _deliver(self, conn: _Conn, messages: list[Any], primary: bool) -> None:
        session = conn.session
        for msg in messages:
            if isinstance(msg, Welcome):
                self._clock_at = time.monotonic()
                if not conn.was_up:
                    conn.opening = list(msg.events)
                    if msg.events and primary:  # the set-up's own events (step 0): the recap need not tell them again
                        self._told_step = max(self._told_step, 0)
                back = conn.was_up
                conn.up = conn.was_up = True
                conn.welcomed.set()
                self._seat_local()
                self._remember(session, msg)
                if primary:
                    self._welcomes += 1
                    news = self._seat_news(msg.table)
                    if back:
                        self._status = None
                        seat = "watching" if msg.seat is None else f"you play {self._playing([msg.seat])}"
                        self._put(notice=f"Back at the table ({seat}).", status=None)
                        for line in news:
                            self._put(notice=line)
                    elif self._queue_ready:
                        self._put(notice="connected to the table")
                    self._follow_start(msg.table, session.mirror.view)
            elif isinstance(msg, Error) and msg.fatal or isinstance(msg, LobbyWelcome):
                conn.welcomed.set()  # what it means is decided when the connection ends (_after_drop), or by open()
            elif isinstance(msg, Error) and msg.code == "rate_limited":
                self._put(notice=f"The host says: {msg.reason}")
            elif isinstance(msg, Rejected):
                self._put(rejected=msg.reason)
            elif not primary:
                continue
            elif isinstance(msg, Delta):
                self._told_step = msg.step
                self._put(list(msg.events), notice=None if not session.mirror.stale else "resynchronising with the host")
                if msg.stand_in and msg.cmd is not None:  # the Log says whose decision that was not
                    self._put(notice=f"(A stand-in bot decided that for {self._playing([int(msg.cmd[0])])}; it cannot be taken back.)")
            elif isinstance(msg, RecapMsg):
                self._recap(msg)
            elif isinstance(msg, SinceMsg):
                self._since_left(msg)
            elif isinstance(msg, Snapshot):
                self._put()
            elif isinstance(msg, Chat):
                self._put(chat=(msg.name or "?", msg.text))
            elif isinstance(msg, Lobby):
                self._clock_at = time.monotonic()
                if msg.table.clock is not None and self._view():
                    self._put()  # the header shows whose clock runs (before the first view, the first update will)
                begins = self._waiting is not None and msg.table.started
                self._follow_start(msg.table, session.mirror.view)
                for line in self._seat_news(msg.table):
                    self._put(notice=line)
                said = self._begins(session.mirror.view or {}) if begins else None
                if said:
                    self._put(notice=said)
            elif isinstance(msg, GameOverMsg):
                self.seed = msg.seed
                self._put(notice=f"The game's seed was {msg.seed}: checking every roll against it...", source=session)
                asyncio.get_running_loop().create_task(self._verify_dice(session))
            elif isinstance(msg, ConnectionTrouble):
                self._put(notice=f"a garbled message from the host: {msg.error}")

    def _begins(self, view: dict[str, Any]) -> str | None:
        """What the last seat taken means: a fresh game begins, a loaded one goes on; a game over, or a
        table at this terminal alone (hot-seat, every seat ours), has nothing to say about it."""
        if not self.chat_ok or view.get("outcome"):
            return None
        return "Every seat is taken again: the game goes on." if view.get("step") else "Every seat is taken: the game begins."

    def _recap(self, msg: RecapMsg) -> None:
        """The story so far, from the host: the steps this Log has not told yet (all of them on a first
        welcome; after a dropped connection, those played while we were away)."""
        told = self._told_step
        self._recap_seen = (msg, told)
        earlier = [event for entry in msg.entries if len(entry) == 2 and isinstance(entry[0], int) and entry[0] > told
                   and isinstance(entry[1], list) for event in entry[1] if isinstance(event, dict)]
        self._told_step = max(told, msg.step)
        if self._opened is None:
            self._earlier = earlier  # goes out with the first update, before anything else is told
        elif earlier:
            self._put(earlier=earlier)

    def _since_left(self, msg: SinceMsg) -> None:
        """A player back at the table: what happened since they last saw it, from the recap just
        received, shown with the first update. Only on coming back (this link's first welcome): after
        a dropped connection the Log tells what was missed ("While you were away"), and a dialog
        popping up mid-game would take the keys the player was pressing."""
        if self._welcomes != 1 or self._recap_seen is None or self._recap_seen[0].step != msg.step:
            return  # a reconnect, or not the recap it follows: nothing to show it from
        recap, told = self._recap_seen
        after = max(msg.seen, told)
        entries = [[entry[0], [e for e in entry[1] if isinstance(e, dict)]] for entry in recap.entries
                   if len(entry) == 2 and isinstance(entry[0], int) and entry[0] > after and isinstance(entry[1], list)]
        stand_in = {pair[0]: pair[1] for pair in msg.stand_in if len(pair) == 2 and pair[0] > after}
        older = max(0, msg.older - (after - msg.seen))
        if not entries and not older:
            return
        since = SinceLeft(seen=after, step=msg.step, entries=entries, stand_in=stand_in, older=older)
        if self._opened is None:
            self._since = since  # goes out with the first update
        else:
            self._put(since=since)

    def _follow_start(self, table: Table, view: dict[str, Any] | None) -> None:
        """Until every seat is taken nobody may act: the bar says so in place of choices the host
        would refuse, with the seats still open and how to fill them; it clears when play starts."""
        waiting = None
        if not table.started:
            open_seats = [s.seat for s in table.seats if s.kind == "open"]
            waiting = "Waiting for players before the game starts"
            if open_seats:
                waiting += f": nobody plays {self._playing(open_seats, view)} yet"
            join = None if self.visitor is not None else join_command(self.lobby_info()["address"], self.code, table=self.join.table)
            waiting += f". Others join with: {join}" if join else "."
            if self.hosting:
                waiting += "  L then S: start now, bots in the open seats."
        before, self._waiting = self._waiting, waiting
        if self._status not in (None, before) or self._status == waiting:
            return  # the link's own trouble (reconnecting) is shown, or this already is
        if self._queue_ready or not self._queue.empty():  # updates already queued must not keep the old line
            self._put(status=waiting)
        else:
            self._status = waiting

    def _put(self, events: list[dict[str, Any]] | None = None, *, status: Any = ..., source: PeerSession | None = None,
             **fields: Any) -> None:
        """Queue an update over the latest view; `status` (the link's own state line) stays unless given.
        `source`: the session the news came on, whose view stands in while `open()` is still seating us
        (a finished game's `game_over` comes with its welcome, before any connection is ours)."""
        if status is not ...:
            self._status = status
        view = self._view() or (source.mirror.view if source is not None and source.mirror.view is not None else {})
        self._queue.put_nowait(Update(view, list(events or []), status=self._status, **fields))

    def _playing(self, seats: Iterable[int], view: dict[str, Any] | None = None) -> str:
        """'Ada Whitlock', 'Ada Whitlock and Mina Castellane': what these seats play, in `view` (default:
        the latest; a connection being welcomed is not one of ours yet, so it gives its own)."""
        view = view or self._view()
        return and_list(name for s in sorted(seats) for name in characters(view, s) or [playing(view, s)]) or "nobody (you are watching)"

    def seat_names(self) -> dict[int, str]:
        """The host's latest seat list: each person's name (as the host cleaned it), or `who.BOT`."""
        table = self._conns[0].session.table if self._conns else None
        seats = table.seats if table is not None else []
        return {s.seat: BOT if s.kind == "bot" else clean_text(s.name or "a player") for s in seats if s.kind != "open"}

    def _seat_local(self) -> None:
        self.local_seats = frozenset(c.session.seat for c in self._conns if c.session.seat is not None)

    def _remember(self, session: PeerSession, welcome: Welcome) -> None:
        if self.store is None or welcome.seat is None or not welcome.token:
            return
        try:
            self.store.remember(
                address=self.address, table=welcome.table.id, name=session.name, seat=welcome.seat, token=welcome.token, hosting=self.hosting
            )
        except OSError as exc:
            self._put(notice=f"could not keep the seat token on this machine: {exc.strerror or exc}")

    def _forget(self, token: str | None) -> None:
        if self.store is not None and token:
            try:
                self.store.forget(token)
            except OSError:
                pass

    async def _verify_dice(self, session: PeerSession) -> None:
        """Replay the game from the revealed seed off the UI thread, then say what it showed."""
        verdict = await asyncio.to_thread(session.verify_dice)
        if verdict is None or self._closed:
            return
        self.dice = verdict
        if verdict.verified:
            self._put(notice=f"Dice: {verdict.message}.", source=session)
        else:
            self._put(rejected=f"Dice NOT verified: {verdict.message}", source=session)

    def _seat_news(self, table: Table) -> list[str]:
        """Sentences for the seats that changed since the host last told us (none the first time)."""
        first = not self._seats_seen
        news = []
        for s in table.seats:
            now = (s.kind, s.name, s.connected, s.stand_in)
            before = self._seats_seen.get(s.seat)
            self._seats_seen[s.seat] = now
            if first or before == now or s.seat in self.local_seats or s.seat in self._wanted:
                continue  # this terminal's own seats are no news to it (hot-seat: nor those it is still sitting down at)
            what = self._playing([s.seat])
            if s.kind == "bot":
                if before is not None and before[0] == "open":  # a seat not seen before has no past
                    news.append(f"A bot plays {what} for the whole game.")
                continue
            who = s.name or "a player"
            if s.kind == "human" and s.connected and who in characters(self._view(), s.seat):  # hot-seat players elsewhere
                news.append(f"{who} is back." if before and before[1] == s.name else f"{who} sits down.")
            elif s.kind == "human" and s.connected and s.stand_in:  # (a turn clock ran out; they are still connected)
                news.append(f"{who} ran out of time; a bot plays {what} until they are back.")
            elif s.kind == "human" and s.connected:
                news.append(f"{who} is back ({what})." if before and before[1] == s.name else f"{who} sits down to play {what}.")
            elif s.kind == "human" and s.stand_in:
                news.append(f"{who} is away; a bot plays {what} until they are back.")
            elif s.kind == "human" and (before is None or before[0] != "human" or before[2]):
                # (lobby news coalesce: a quick join-and-leave may arrive as one change)
                news.append(f"{who} left; {what} waits for them.")
            elif s.kind == "open" and before is not None:
                news.append(f"Nobody plays {what} now: the seat is open.")
        return news

    def _save_trouble(self, reason: str | None) -> None:
        """From the embedded host's thread: autosave failed (`reason`) or works again (None)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            notice = save_trouble_notice(reason)
            loop.call_soon_threadsafe(lambda: self._put(notice=notice))

    def lobby_info(self) -> dict[str, Any]:
        """What the table dialog shows: where to join, the code, the host's latest seat list, how to come back."""
        session = self._conns[0].session if self._conns else None
        if self.embedded is not None:
            from cthulhu.net.invite import join_address

            bind = self.embedded.bind
            address = join_address(bind, self.port) if bind not in ("127.0.0.1", "localhost", "::1") else f"{bind}:{self.port}"
        else:
            address = self.address
        view = self._view()
        info: dict[str, Any] = {
            "address": address,
            "code": self.code,
            "join": join_command(address, self.code, table=self.join.table),
            "hosting": self.hosting,
            "local_seats": sorted(self.local_seats),
            "table": session.table if session is not None else None,
            "characters": {s.seat: characters(view, s.seat) for s in session.table.seats} if session is not None and session.table else {},
            "step": view.get("step"),
            "status": self._status if self._status != self._waiting else None,  # the dialog says who is missing itself
            "commit": session.record.commit if session is not None else None,
        }
        if session is not None and session.mirror.hash:
            info["view_hash"] = session.mirror.hash
        if self.hosting:
            info["comeback"] = self.embedded.save_hint if self.embedded is not None else None
            info["doors"] = self.embedded.doors if self.embedded is not None else ()
        elif self.visitor is not None:  # the loopback address and `cthulhu join` mean nothing to them
            info["address"] = info["join"] = None
            info["visitor"] = True
            info["comeback"] = self.visitor
        elif session is not None and session.token:
            kept = f" (the seat token is kept in {self.store.path})" if self.store is not None else ""
            info["comeback"] = f"run the same command again to take your seat back{kept}:\n  {join_command(self.address, self.code, table=self.join.table)}"
            info["comeback_elsewhere"] = join_command(self.address, self.code, token=session.token, table=self.join.table)
        return info

    @property
    def comeback(self) -> str | None:
        """One line for after the game closes: how to carry on."""
        session = self._conns[0].session if self._conns else None
        if self.embedded is not None:
            return self.embedded.save_hint if session is not None and session.game_over is None and self.embedded.host.saves.started else None
        if self.visitor is not None:
            return self.visitor if session is not None and session.game_over is None else None
        if session is not None and session.token and session.game_over is None:
            return f"Your seat waits for you; come back with: {join_command(self.address, self.code, table=self.join.table)}"
        return None

    @property
    def _queue_ready(self) -> bool:
        """Updates go on the queue once `open()` has given the first one (before, there is no view
        to put in them: a watcher's welcome used to queue an update with an empty view)."""
        return self._opened is not None and (bool(self.local_seats) or self.watch)

    async def _reconnect(self, conn: _Conn, primary: bool) -> bool:
        """Lost the host: try again with our seat token, with back-off, for `RECONNECT_FOR` seconds."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        if primary:
            self._put(notice=f"Lost the connection to the host at {self.address}; reconnecting (your seat is kept).")
        for attempt, delay in enumerate(reconnect_delays(), 1):
            if primary:
                self._put(status=f"Connection lost: reconnecting to {self.address} (attempt {attempt})...")
            await asyncio.sleep(delay)
            if self._closed:
                return False
            conn.session.restart()
            try:
                await self._connect(conn)
                return True
            except LinkError:
                pass
            if loop.time() - started >= RECONNECT_FOR:
                break
        if primary:
            minutes = int(RECONNECT_FOR // 60)
            self._put(rejected=f"gave up after {minutes} minutes: the host at {self.address} did not come back", status=f"No connection to {self.address} (gave up; q quits).")
        return False

    def _view(self) -> dict[str, Any]:
        """The deciding local seat's view when it has one, else the first connection's; the last
        one seen while a connection is down (the table stays on screen)."""
        views = {c.session.seat: c.session.mirror for c in self._conns}
        first = self._conns[0].session.mirror if self._conns else None
        prompt = first.prompt if first is not None else None
        if first is not None and prompt is not None and prompt.get("seat") in views:
            mirror = views[prompt.get("seat")]
            if mirror.view is not None and not mirror.stale and mirror.seq == first.seq:
                self._last_view = mirror.view
                return mirror.view
        if first is not None and first.view is not None:
            self._last_view = first.view
        return self._last_view

    # -- the TableLink surface -------------------------------------------------

    async def send(self, seat: int, command: dict[str, Any], version: int | None) -> None:
        for conn in self._conns:
            if conn.session.seat == seat:
                if not conn.up:
                    self._put(rejected="not sent: the connection to the host is down (reconnecting)")
                    return
                conn.session.send_command(command, version)
                try:
                    await self._flush(conn)
                except OSError as exc:
                    self._put(rejected=f"not sent, the connection is down: {exc}")
                return
        self._put(rejected=f"{self._playing([seat])} is not played at this terminal")

    async def undo(self, seat: int, version: int | None) -> None:
        """Ask the host to take back `seat`'s last decision (it decides whether it may)."""
        for conn in self._conns:
            if conn.session.seat == seat:
                if not conn.up:
                    self._put(rejected="not sent: the connection to the host is down (reconnecting)")
                    return
                conn.session.send_undo(version)
                try:
                    await self._flush(conn)
                except OSError as exc:
                    self._put(rejected=f"not sent, the connection is down: {exc}")
                return
        self._put(rejected=f"{self._playing([seat])} is not played at this terminal")

    def clock(self) -> TurnClock | None:
        table = self._conns[0].session.table if self._conns else None
        if table is None or table.clock is None:
            return None
        stood_in = any(s.stand_in and s.connected for s in table.seats if s.seat in self.local_seats)
        return TurnClock(table.clock, self._clock_at, stood_in)

    async def back(self) -> None:
        for conn in self._conns:
            if conn.up and conn.session.table is not None and conn.session.seat is not None:
                if conn.session.table.seats[conn.session.seat].stand_in:
                    conn.session.send_back()
                    await self._flush(conn)

    async def chat(self, text: str) -> None:
        if self._conns and self._conns[0].up:
            self._conns[0].session.chat(text)
            await self._flush(self._conns[0])

    async def save(self) -> str | None:
        if self.embedded is None:
            raise SaveUnavailable("The host keeps the save of this game (ask them to press s).")
        if not self.embedded.host.saves.enabled:
            raise SaveUnavailable("This game is not being saved (--no-save).")
        if not self.embedded.host.saves.started:
            raise SaveUnavailable(NOTHING_YET)
        return str(await self.embedded.save())

    @property
    def save_path(self) -> Path | None:
        """The file this game is saved to, once there is one (a new game's from its first move on)."""
        return self.embedded.save_path if self.embedded is not None and self.embedded.host.saves.started else None

    # -- the host's own table (hosting terminal only) -----------------------------

    async def hand_to_bot(self, seat: int) -> None:
        """Let a bot play an away player's seat until they come back."""
        await self._own_host().hand_to_bot(seat)

    async def start_with_bots(self) -> None:
        """Start now: bots play the seats nobody has taken."""
        await self._own_host().start_with_bots()

    async def free_seat(self, seat: int) -> None:
        """Give an away player's seat up for a new joiner."""
        await self._own_host().free_seat(seat)

    def _own_host(self) -> EmbeddedHost:
        if self.embedded is None:
            raise ValueError("only the host can change the seats")
        return self.embedded

    def play_again(self) -> str | None:
        """From the setup every peer is sent (all but the seed), the seed revealed at game over and the
        table's bot seats (their kinds when the host is ours and seated them at the start)."""
        from cthulhu.core import Setup
        from cthulhu.net.playagain import play_again_command

        session = self._conns[0].session if self._conns else None
        if session is None or self.seed is None or session.record.setup is None or session.table is None:
            return None
        try:
            setup = Setup.model_validate({**session.record.setup, "seed": self.seed})
        except ValueError:  # a setup this program cannot make: no line to offer
            return None
        known = {s.index: s.bot_kind for s in self.embedded.host.seats if s.kind == "bot"} if self.embedded is not None else {}
        return play_again_command(setup, {s.seat: known.get(s.seat) for s in session.table.seats if s.kind == "bot"})

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for conn in self._conns:
            if conn.writer is not None:
                conn.writer.close()
            if conn.task is not None:
                conn.task.cancel()
        for conn in self._conns:
            if conn.task is not None:
                try:
                    await conn.task
                except (asyncio.CancelledError, Exception):
                    pass
        if self.embedded is not None:
            await self.embedded.stop()
        await self._queue.put(None)


class EmbeddedHost:
    """A table's `Host` (built by `open_table`) in a thread of its own, listening on `bind`:`port`.

    The UI thread never blocks on it: `start` and `stop` wait in a worker thread
    (`asyncio.to_thread`), and cancelling is a thread-safe `run_sync_soon`. `hosting`: others
    join this table from elsewhere (`cthulhu host`); `doors` are the lines saying how they come
    in by `ssh` or a browser.
    """

    def __init__(self, host: Host, *, bind: str = "127.0.0.1", port: int = 0, hosting: bool = False, doors: tuple[str, ...] = ()) -> None:
        self.host = host
        self.bind = bind
        self.wanted_port = port
        self.hosting = hosting
        self.doors = doors
        self.port: int | None = None
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._thread = threading.Thread(target=self._run, name="cthulhu-host", daemon=True)

    @property
    def save_path(self) -> Path | None:
        return self.host.saves.path

    @property
    def save_hint(self) -> str | None:
        """How to carry the game on later, when it is being saved."""
        path = self.save_path
        if path is None:
            return None
        from cthulhu.savegame.folder import save_name

        command = "host" if self.hosting else "play"
        return f"Carry the game on later with: cthulhu {command} --load {shlex.quote(save_name(path))}"

    def _run(self) -> None:
        async def main() -> None:
            self._token = trio.lowlevel.current_trio_token()
            with trio.CancelScope() as scope:
                self._scope = scope
                async with trio.open_nursery() as nursery:
                    self.port = await nursery.start(self.host.serve, self.wanted_port, self.bind)
                    self._ready.set()

        try:
            trio.run(main)
        except BaseException as exc:  # reported to the app by start(); the thread just ends
            self.error = exc
        finally:
            self._ready.set()

    async def start(self) -> int:
        self._thread.start()
        await asyncio.to_thread(self._ready.wait, 10)
        if self.port is None:
            error = self.error
            if isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
                error = error.exceptions[0]
            if isinstance(error, OSError):
                raise LinkError(f"cannot listen on {self.bind}:{self.wanted_port}: {error.strerror or error}")
            raise LinkError(f"the embedded host did not start: {error!r}")
        return self.port

    async def _in_host(self, call: Callable[..., T], *args: Any) -> T:
        """Run one of the host's own methods inside its trio thread (seat changes from the dialog)."""
        token = self._token
        if token is None or not self._thread.is_alive():
            raise ValueError("the host is not running")
        return await asyncio.to_thread(lambda: trio.from_thread.run_sync(call, *args, trio_token=token))

    async def hand_to_bot(self, seat: int) -> None:
        await self._in_host(self.host.hand_to_bot, seat)

    async def start_with_bots(self) -> None:
        await self._in_host(self.host.start_with_bots)

    async def free_seat(self, seat: int) -> None:
        await self._in_host(self.host.free_seat, seat)

    async def stop(self) -> None:
        """Tell the joiners the table is closing, cancel the host, wait for the thread, write the
        final save (fsynced) and let the file go."""
        token, scope = self._token, self._scope
        if token is not None and self._thread.is_alive():

            def in_trio() -> None:
                trio.from_thread.run(self.host.close_table, trio_token=token)

            try:
                await asyncio.to_thread(in_trio)
            except (RuntimeError, trio.RunFinishedError):
                pass  # trio already finished
        if token is not None and scope is not None and self._thread.is_alive():
            try:
                token.run_sync_soon(scope.cancel)
            except RuntimeError:
                pass  # trio already finished
        if self._thread.is_alive():
            await asyncio.to_thread(self._thread.join, 5)
        await asyncio.to_thread(self.host.flush_log)
        self.host.saves.release()  # other processes may load the save now

    async def save(self) -> Path:
        """Write the save now, inside the host's own thread (it is the log's only user)."""
        path = self.save_path
        if path is None:
            raise SaveUnavailable("This game is not being saved (--no-save).")
        try:
            await self._in_host(self.host.flush_log)
        except (ValueError, RuntimeError, trio.RunFinishedError):
            await asyncio.to_thread(self.host.flush_log)  # the host has stopped: nobody else writes
        return path

    @property
    def running(self) -> bool:
        return self._thread.is_alive()


def _label(options: PlayOptions, humans: list[int], bots: int, port: int, code: str | None) -> str:
    if options.hosting:
        return f"hosting on port {port}" + (f", code {code}" if code else "")
    if len(humans) <= 1 and not bots:
        return "solo"
    return f"{len(humans)} here, {plural(bots, 'bot')}"


def _own_seats(host: Host, options: PlayOptions, store: SeatStore | None, loaded: bool) -> list[int]:
    """The seats this terminal takes: every person's seat at one terminal; hosting, the first
    (and any not left for others), or, for a loaded game, the hosting player's own seat: the one
    their token on this machine names, else the first person's, given up for them to take."""
    people = [s.index for s in host.seats if s.kind != "bot"]
    if not options.hosting:
        return people
    if loaded:  # its seats wait for their owners
        mine = store.find(name=options.name, table=host.table_id, hosting=True) if store is not None else None
        if mine is not None:
            return [mine.seat]
        if people and host.seats[people[0]].kind == "human":
            host.free_seat(people[0])  # no token of ours here: this terminal takes the first person's seat
        return people[:1]
    return people[: max(1, len(people) - options.remote_seats)]


async def embedded_link(options: PlayOptions, host: Host | None = None) -> NetLink:
    """`cthulhu play` and `cthulhu host`: a table's host in this process (`host`, already opened by
    `cthulhu host`, else the one `open_table` builds from the options), and this terminal's seats
    joined to it.

    Hosting (`options.hosting`), the other seats stay open for `cthulhu join`, a
    loaded game's seats wait for their owners' tokens, and this terminal's own
    seat token is kept in the seat store like any joiner's."""
    from cthulhu.net.seatstore import SeatStore
    from cthulhu.net.table import open_table

    if host is None:
        host = open_table(options.table_spec())
    spec = host.spec
    store = SeatStore() if options.hosting else None
    humans = _own_seats(host, options, store, isinstance(spec.start, Path))
    host.own_seats = frozenset(humans)  # taking them is no reason to write a save before the first move
    bind = options.host_bind or "127.0.0.1"
    embedded = EmbeddedHost(host, bind=bind, port=options.host_port, hosting=options.hosting, doors=options.doors)
    try:
        port = await embedded.start()
    except BaseException:
        host.saves.release()
        path = host.saves.path
        if path is not None and not isinstance(spec.start, Path):  # a game that never started leaves no save behind
            path.unlink(missing_ok=True)
        raise
    link = NetLink(
        JoinAs(
            host="127.0.0.1" if bind in ("0.0.0.0", "", "::") else bind,
            port=port,
            name=options.name,
            code=host.code,
            seats=tuple(humans),
            label=_label(options, humans, sum(1 for s in host.seats if s.kind == "bot"), port, host.code),
            names=tuple(_hot_seat_names(host.game, humans)) if len(humans) > 1 else None,
        ),
        store=store,
        embedded=embedded,
    )
    link.warning = host.warning
    return link


def _hot_seat_names(game: Any, seats: list[int]) -> list[str]:
    """Several people at one terminal are named by what they play (not "you 1", "you 2"): all of
    it when the name has room, else the first investigator."""
    from cthulhu.net.textclean import NAME_MAX

    view = game.view(None)
    return [name if len(name := playing(view, seat)) <= NAME_MAX else characters(view, seat)[0] for seat in seats]


def join_link(options: PlayOptions) -> NetLink:
    """`cthulhu join`: this terminal as a peer of a host elsewhere (comes back with its seat token)."""
    from cthulhu.net.seatstore import SeatStore

    if options.join is None:
        raise ValueError("join_link needs the host's address (options.join)")
    host, port = options.join
    address = options.join_address or (f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
    return NetLink(
        JoinAs(
            host=host,
            port=port,
            address=address,
            name=options.name,
            code=options.code,
            seats=(options.join_seat,),
            watch=options.watch,
            token=options.token,
            label="visiting" if options.kiosk else f"joined {address}",
            visitor=(options.kiosk_comeback or "") if options.kiosk else None,
            table=options.join_table,
        ),
        store=SeatStore(),
    )
