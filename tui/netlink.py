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
from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cthulhu.net.client import RECONNECT_FOR, ConnectionTrouble, PeerSession, reconnect_delays
from cthulhu.net.invite import join_command
from cthulhu.net.messages import Chat, Delta, Error, GameOverMsg, Lobby, RecapMsg, Rejected, Snapshot, Table, Welcome
from cthulhu.net.textclean import clean_text

from .english import and_list, plural
from .link import NOTHING_YET, QueuedUpdates, SaveUnavailable, Update, save_trouble_notice
from .who import BOT, characters, playing

WELCOME_TIMEOUT = 10.0


class LinkError(Exception):
    """The host refused us or could not be reached; the message says why."""


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


class NetLink(QueuedUpdates):
    """A `TableLink` to a host at host:port (one connection per local seat).

    `store` (a `SeatStore`) remembers the seat token of every welcome and offers
    it again the next time the same name joins the same address (or, hosting,
    the same table), so the same command takes the seat back.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str = "player",
        code: str | None = None,
        seats: Sequence[int | None] | None = None,
        watch: bool = False,
        seed: int | None = None,
        embedded: "EmbeddedHost | None" = None,
        hosting: bool = False,
        table: str | None = None,
        token: str | None = None,
        store: Any = None,
        address: str | None = None,
        label: str = "",
        save_hint: str | None = None,
        doors: tuple[str, ...] = (),
        visitor: str | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.name = name
        self.code = code
        self.watch = watch
        self.seed = seed
        self.embedded = embedded
        self.warning: str | None = None  # told with the first update (an unwritable saves folder)
        self.hosting = embedded is not None and hosting
        """This terminal's process hosts a table others join (`cthulhu host`)."""
        self.chat_ok = embedded is None or hosting
        """Others may be at the table (a joined host, or ours with open seats): offer chat."""
        self.table = table  # hosting a loaded game: its table id, to find this terminal's own token
        self.token = token
        self.store = store
        self.address = address or f"{host}:{port}"
        """The address as the player typed it: what the seat store and the printed commands use."""
        self.label = label
        self.save_hint = save_hint  # hosting: how to carry the game on later
        self.doors = doors  # hosting: how friends come in by `ssh` or a browser (`host --ssh/--web`)
        self.visitor = visitor
        """A visitor the host serves (`join --kiosk`): how they come back, in the door's words. Their
        seat store is their own (one data folder per visitor and table), so its newest seat is theirs."""
        self.local_seats: frozenset[int] = frozenset()
        self._wanted = list(seats) if seats else [None]
        self._names = list(names) if names else None
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
        self.dice: Any = None
        """The dice verdict (`net.commitment.DiceVerdict`) once the game is over and checked."""

    # -- connecting -----------------------------------------------------------

    async def open(self) -> Update:
        """Connect every local seat; the first update. Opening an open link gives that update again
        (a served visitor's link is opened before the app draws anything, then by the game screen)."""
        if self._opened is not None:
            return self._opened
        self._loop = asyncio.get_running_loop()
        if self.embedded is not None:
            self.embedded.on_save_trouble = self._save_trouble
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
                raise LinkError(f"the host refused us: {conn.session.closed.reason}")
            if not conn.up:
                await self._discard(conn)
                raise LinkError(f"the host at {self.address} closed the connection before seating us")
            self._conns.append(conn)
        self._seat_local()
        view = self._view()
        earlier, self._earlier = self._earlier, []
        if self.embedded is not None and not self.chat_ok:  # a game at this terminal alone: nothing to say about sockets
            self._opened = Update(view, earlier=earlier, warning=self.warning)
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
        self._opened = Update(view, earlier=earlier, notice=notice, headline=full or bool(self.visitor), warning=self.warning, status=self._status)
        return self._opened

    def _stored_token(self, name: str) -> str | None:
        if self.store is None or self.watch:
            return None
        try:
            if self.hosting:
                entry = self.store.find(name=name, table=self.table, hosting=True) if self.table else None
            elif self.visitor is not None:
                entry = next(iter(self.store.entries()), None)
            else:
                entry = self.store.find(name=name, address=self.address)
        except OSError:
            return None
        return entry.token if entry is not None else None

    async def _open_conn(self, name: str, wanted: int | None, token: str | None, stored: bool) -> _Conn:
        session = PeerSession(name, code=self.code, seat=wanted, token=token, watch=self.watch)
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
                          status="The host closed the table (q quits).")
            return False
        elif refused is not None:
            if primary:
                self._put(rejected=f"the host closed the connection: {refused.reason}", status=None)
            return False
        return await self._reconnect(conn, primary)

    def _deliver(self, conn: _Conn, messages: list[Any], primary: bool) -> None:
        session = conn.session
        for msg in messages:
            if isinstance(msg, Welcome):
                back = conn.was_up
                conn.up = conn.was_up = True
                conn.welcomed.set()
                self._seat_local()
                self._remember(session, msg)
                if primary:
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
            elif isinstance(msg, Error) and msg.fatal:
                conn.welcomed.set()  # what it means is decided when the connection ends (_after_drop)
            elif isinstance(msg, Error) and msg.code == "rate_limited":
                self._put(notice=f"The host says: {msg.reason}")
            elif isinstance(msg, Rejected):
                self._put(rejected=msg.reason)
            elif not primary:
                continue
            elif isinstance(msg, Delta):
                self._told_step = msg.step
                self._put(list(msg.events), notice=None if not session.mirror.stale else "resynchronising with the host")
            elif isinstance(msg, RecapMsg):
                self._recap(msg)
            elif isinstance(msg, Snapshot):
                self._put()
            elif isinstance(msg, Chat):
                self._put(chat=(msg.name or "?", msg.text))
            elif isinstance(msg, Lobby):
                begins = self._waiting is not None and msg.table.started
                self._follow_start(msg.table, session.mirror.view)
                for line in self._seat_news(msg.table):
                    self._put(notice=line)
                if begins:
                    self._put(notice="Every seat is taken: the game begins.")
            elif isinstance(msg, GameOverMsg):
                self.seed = msg.seed
                self._put(notice=f"The game's seed was {msg.seed}: checking every roll against it...", source=session)
                asyncio.get_running_loop().create_task(self._verify_dice(session))
            elif isinstance(msg, ConnectionTrouble):
                self._put(notice=f"a garbled message from the host: {msg.error}")

    def _recap(self, msg: RecapMsg) -> None:
        """The story so far, from the host: the steps this Log has not told yet (all of them on a first
        welcome; after a dropped connection, those played while we were away)."""
        told = self._told_step
        earlier = [event for entry in msg.entries if len(entry) == 2 and isinstance(entry[0], int) and entry[0] > told
                   and isinstance(entry[1], list) for event in entry[1] if isinstance(event, dict)]
        self._told_step = max(told, msg.step)
        if self._opened is None:
            self._earlier = earlier  # goes out with the first update, before anything else is told
        elif earlier:
            self._put(earlier=earlier)

    def _follow_start(self, table: Table, view: dict[str, Any] | None) -> None:
        """Until every seat is taken nobody may act: the bar says so in place of choices the host
        would refuse, with the seats still open and how to fill them; it clears when play starts."""
        waiting = None
        if not table.started:
            open_seats = [s.seat for s in table.seats if s.kind == "open"]
            waiting = "Waiting for players before the game starts"
            if open_seats:
                waiting += f": nobody plays {self._playing(open_seats, view)} yet"
            join = None if self.visitor is not None else join_command(self.lobby_info()["address"], self.code)
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
            "join": join_command(address, self.code),
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
            info["comeback"] = self.save_hint
            info["doors"] = self.doors
        elif self.visitor is not None:  # the loopback address and `cthulhu join` mean nothing to them
            info["address"] = info["join"] = None
            info["visitor"] = True
            info["comeback"] = self.visitor
        elif session is not None and session.token:
            kept = f" (the seat token is kept in {self.store.path})" if self.store is not None else ""
            info["comeback"] = f"run the same command again to take your seat back{kept}:\n  {join_command(self.address, self.code)}"
            info["comeback_elsewhere"] = join_command(self.address, self.code, token=session.token)
        return info

    @property
    def comeback(self) -> str | None:
        """One line for after the game closes: how to carry on."""
        session = self._conns[0].session if self._conns else None
        if self.embedded is not None:
            started = self.embedded.writer is not None and self.embedded.writer.started
            return self.save_hint if session is not None and session.game_over is None and started else None
        if self.visitor is not None:
            return self.visitor if session is not None and session.game_over is None else None
        if session is not None and session.token and session.game_over is None:
            return f"Your seat waits for you; come back with: {join_command(self.address, self.code)}"
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

    async def chat(self, text: str) -> None:
        if self._conns and self._conns[0].up:
            self._conns[0].session.chat(text)
            await self._flush(self._conns[0])

    async def save(self) -> str | None:
        if self.embedded is None:
            raise SaveUnavailable("The host keeps the save of this game (ask them to press s).")
        if self.embedded.writer is None:
            raise SaveUnavailable("This game is not being saved (--no-save).")
        if not self.embedded.writer.started:
            raise SaveUnavailable(NOTHING_YET)
        return await self.embedded.save()

    @property
    def autosave(self) -> Any:
        return self.embedded.writer if self.embedded is not None else None

    # -- the host's own table (hosting terminal only) -----------------------------

    async def hand_to_bot(self, seat: int) -> None:
        """Let a bot play an away player's seat until they come back."""
        await self._host_call("hand_to_bot", seat)

    async def start_with_bots(self) -> None:
        """Start now: bots play the seats nobody has taken."""
        await self._host_call("start_with_bots")

    async def free_seat(self, seat: int) -> None:
        """Give an away player's seat up for a new joiner."""
        await self._host_call("free_seat", seat)

    async def _host_call(self, method: str, *args: Any) -> None:
        if self.embedded is None:
            raise ValueError("only the host can change the seats")
        await self.embedded.call(method, *args)

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
        known = self.embedded.bots if self.embedded is not None else {}
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
    """The trio `Host` in a thread of its own, listening on a loopback port.

    The UI thread never blocks on it: `start` and `stop` wait in a worker thread
    (`asyncio.to_thread`), and cancelling is a thread-safe `run_sync_soon`.
    """

    def __init__(
        self,
        game: Any,
        *,
        bots: dict[int, str] | None = None,
        writer: Any = None,
        bot_seed: int = 0,
        bind: str = "127.0.0.1",
        port: int = 0,
        code: str | None = None,
        players: list[Any] | None = None,
        table_id: str | None = None,
        away_bot: float | None = None,
        bot_delay: float = 0.0,
        limits: Any = None,
        own_seats: Sequence[int] = (),
    ) -> None:
        self.game = game
        self.bot_delay = bot_delay
        self.own_seats = tuple(own_seats)  # the seats this terminal plays (`Host.own_seats`)
        self.bots = bots or {}
        self.writer = writer
        self.bot_seed = bot_seed
        self.bind = bind
        self.wanted_port = port
        self.code = code
        self.players = players
        self.table_id = table_id
        self.away_bot = away_bot
        self.limits = limits
        self.port: int | None = None
        self.host: Any = None
        self.on_save_trouble: Any = None  # set by the link: autosave failed (reason) or works again (None)
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._token: Any = None
        self._scope: Any = None
        self._thread = threading.Thread(target=self._run, name="cthulhu-host", daemon=True)

    def _run(self) -> None:
        import trio

        from cthulhu.net.host import Host

        async def main() -> None:
            self._token = trio.lowlevel.current_trio_token()
            with trio.CancelScope() as scope:
                self._scope = scope
                self.host = Host(
                    self.game,
                    code=self.code,
                    bots=self.bots,
                    log=self.writer,
                    bot_seed=self.bot_seed,
                    players=self.players,
                    table_id=self.table_id,
                    away_bot=self.away_bot,
                    bot_delay=self.bot_delay,
                    limits=self.limits,
                    on_save_trouble=lambda reason: self.on_save_trouble and self.on_save_trouble(reason),
                    own_seats=self.own_seats,
                )
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

    async def call(self, method: str, *args: Any) -> Any:
        """Run one of the host's own methods inside its trio thread (seat changes from the dialog)."""
        import trio

        if self._token is None or not self._thread.is_alive():
            raise ValueError("the host is not running")

        def in_trio() -> Any:
            return trio.from_thread.run_sync(getattr(self.host, method), *args, trio_token=self._token)

        return await asyncio.to_thread(in_trio)

    async def stop(self) -> None:
        """Tell the joiners the table is closing, cancel the host (its autosave is already on disk) and
        wait for the thread."""
        if self._token is not None and self.host is not None and self._thread.is_alive():
            import trio

            def in_trio() -> None:
                trio.from_thread.run(self.host.close_table, trio_token=self._token)

            try:
                await asyncio.to_thread(in_trio)
            except (RuntimeError, trio.RunFinishedError):
                pass  # trio already finished
        if self._token is not None and self._scope is not None and self._thread.is_alive():
            try:
                self._token.run_sync_soon(self._scope.cancel)
            except RuntimeError:
                pass  # trio already finished
        if self._thread.is_alive():
            await asyncio.to_thread(self._thread.join, 5)
        await asyncio.to_thread(self._final_save)
        if self.writer is not None:
            self.writer.close()  # other processes may load the save now

    def _final_save(self) -> None:
        if self.writer is not None:
            try:
                self.writer.fsync = True
                self.writer.write()
            except Exception:
                pass

    async def save(self) -> str | None:
        """Write the save now, inside the host's own thread (it is the writer's only user)."""
        if self.writer is None:
            return None
        if self._thread.is_alive() and self._token is not None:
            import trio

            def in_trio() -> None:
                trio.from_thread.run_sync(self._final_save, trio_token=self._token)

            try:
                await asyncio.to_thread(in_trio)
            except (RuntimeError, trio.RunFinishedError):
                await asyncio.to_thread(self._final_save)
        else:
            await asyncio.to_thread(self._final_save)
        return str(self.writer.path)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()


def _writer_for(options: Any, game: Any, save: Any) -> tuple[Any, str | None]:
    """The autosave: carry on the loaded file (or `--save FILE`), or start a new one; None with `--no-save`.
    Also what the player must be told: a saves folder that cannot be written, and where the game goes instead."""
    if options.no_save:
        return None, None
    from cthulhu.net.savedir import autosave_folder, new_save_path
    from cthulhu.net.savewriter import SaveWriter

    if save is not None:
        return SaveWriter.resume(Path(options.save_to or options.load), save, game, fsync=False), None
    if options.save_to is not None:
        return SaveWriter(options.save_to, game, fsync=False), None
    if options.saves_dir is not None:
        setup = game.setup
        prefix = "net-" if options.hosting else ""
        folder, warning = autosave_folder(Path(options.saves_dir))
        if folder is None:
            return None, warning
        return SaveWriter(new_save_path(folder, f"{prefix}{setup.mode}-{setup.seed}"), game, fsync=False), warning
    return None, None


def _limits(options: Any) -> Any:
    """The host's limits; room on loopback for the visitors of `host --ssh/--web`, if any."""
    if not options.door_visitors:
        return None
    from cthulhu.net.limits import Limits

    return Limits().but(door_visitors=options.door_visitors)




async def embedded_link(options: Any) -> NetLink:
    """`cthulhu play` and `cthulhu host`: a host in this process, and this terminal's seats joined to it.

    Hosting (`options.hosting`), the other seats stay open for `cthulhu join`, a
    loaded game's seats wait for their owners' tokens, and this terminal's own
    seat token is kept in the seat store like any joiner's."""
    from cthulhu.core import Game
    from cthulhu.net.invite import new_table_id

    from .link import last_seats, load_game, table_label, usable_bot

    save = None
    if options.load is not None:
        game, save = load_game(options.load)
        # The seats bots played are theirs again (the save's header says which and what kind).
        bot_seats = {seat: usable_bot(kind, game.setup.mode) for seat, kind in save.header.bot_seats().items()}
    else:
        game = Game.new(options.setup())
        bot_seats = last_seats(game, options.bots, options.bot_kind)
    writer, warning = _writer_for(options, game, save)
    seats = game.setup.players
    humans = [s for s in range(seats) if s not in bot_seats]
    players = None
    table_id = None
    store = None
    if options.hosting:
        from cthulhu.net.seatstore import SeatStore

        store = SeatStore()
        table_id = options.table_id or (save.header.table if save is not None else None) or new_table_id()
        if writer is not None:
            writer.table = table_id
            if save is not None and save.header.table is None:
                writer.write()  # the table keeps this id (and so its code) from now on
        if save is not None:
            players = list(save.header.players)
            records = {r.seat: r for r in players}
            humans = [s for s in range(seats) if s not in bot_seats and not getattr(records.get(s), "bot", None)]
            mine = store.find(name=options.name, table=table_id, hosting=True)
            if mine is None and humans:  # no token of ours here: this terminal takes the first person's seat
                players = [r for r in players if r.seat != humans[0]]
            humans = [mine.seat] if mine is not None else humans[:1]
        else:
            humans = humans[: max(1, len(humans) - options.remote_seats)] if options.remote_seats else humans[:1]
    bind = options.host_bind or "127.0.0.1"
    embedded = EmbeddedHost(
        game,
        bots=bot_seats,
        writer=writer,
        bot_seed=game.setup.seed,
        bind=bind,
        port=options.host_port,
        code=options.code,
        players=players,
        table_id=table_id,
        away_bot=options.away_bot,
        bot_delay=options.bot_delay,
        limits=_limits(options),
        own_seats=humans,
    )
    try:
        port = await embedded.start()
    except BaseException:
        if writer is not None:
            writer.close()
            if save is None:  # a game that never started leaves no save behind
                Path(writer.path).unlink(missing_ok=True)
        raise
    save_hint = None
    if writer is not None:
        from cthulhu.net.savedir import save_name

        command = "host" if options.hosting else "play"
        save_hint = f"Carry the game on later with: cthulhu {command} --load {shlex.quote(save_name(writer.path))}"
    link = NetLink(
        "127.0.0.1" if bind in ("0.0.0.0", "", "::") else bind,
        port,
        name=options.name,
        code=options.code,
        seats=humans,
        seed=game.setup.seed,
        embedded=embedded,
        hosting=options.hosting,
        table=table_id,
        store=store,
        label="hosting" if options.hosting else table_label(len(humans), len(bot_seats)),
        save_hint=save_hint,
        doors=options.doors,
        names=_hot_seat_names(game, humans) if len(humans) > 1 else None,
    )
    link.warning = warning
    return link


def _hot_seat_names(game: Any, seats: list[int]) -> list[str]:
    """Several people at one terminal are named by what they play (not "you 1", "you 2"): all of
    it when the name has room, else the first investigator."""
    from cthulhu.net.textclean import NAME_MAX

    view = game.view(None)
    return [name if len(name := playing(view, seat)) <= NAME_MAX else characters(view, seat)[0] for seat in seats]


def join_link(options: Any) -> NetLink:
    """`cthulhu join`: this terminal as a peer of a host elsewhere (comes back with its seat token)."""
    from cthulhu.net.seatstore import SeatStore

    host, port = options.join
    address = options.join_address or (f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
    return NetLink(
        host,
        port,
        name=options.name,
        code=options.code,
        seats=[options.join_seat],
        watch=options.watch,
        token=options.token,
        store=SeatStore(),
        address=address,
        label="visiting" if options.kiosk else f"joined {address}",
        visitor=(options.kiosk_comeback or "") if options.kiosk else None,
    )
