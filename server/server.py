"""`cthulhu server`: many tables in one trio process, a lobby, and a store that outlives it.

Shape:

* Every connection starts as at a one-table host: a small first frame within the hello deadline.
  A hello that names a `table` is handed to that table's `Host` (`Host.handle`, on the same
  connection, the hello passed on with the identity's name), which does everything a host does
  for a peer; any other hello is a lobby session (`server.lobby`).
* All tables share one `Gate`, so the limits per address (connections, join rate, wrong codes)
  hold across all of them: a hundred tables are not a hundred times the budget. Per connection,
  each table's host applies its own limits (frame rate, backlog, idle deadline) as ever; tables
  share no task, so one busy or hostile table delays another only by the CPU its (bounded)
  traffic costs.
* A table is opened on its first connection (its save loaded and every step checked, in a worker
  thread) and closed after `idle_close` seconds with nobody at it and no bot with a move to make
  (a running turn clock does not keep it open: it is opened again at its deadline, `server.alarms`);
  so tables nobody is at cost a record each, and a restart is ready as soon as the records are
  read. A table nobody has sat at yet is one of the *untouched* (`server.untouched`): they do not
  count towards `max_tables`, are capped per network and in all, and expire within minutes.
  Tables whose last activity is older than `archive_after` are archived: kept in the store
  and their save files kept, no longer listed; one log line each, never silently.
* The records (tables as the lobby lists them, identities and their names, who holds which seat,
  what each last saw) live in memory and are written to the store as one batch a few times a
  second (`flush_every`) in a worker thread; seat news wakes the writer at once. The game itself
  is in each table's save, written before any peer hears of a step, as at every host: after a
  `kill -9` every table, seat and name is back, and a joiner's client reconnects by itself.
"""

from __future__ import annotations

import copy
import itertools
import logging
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from cthulhu.core import Setup, modes
from cthulhu.net import PrefixBudgets, SharedBudget
from cthulhu.net import FrameDecoder, encode_frame
from cthulhu.net import Gate, Refusal
from cthulhu.net import new_table_code, new_table_id
from cthulhu.net import Doorstep, read_hello, refuse, serve_listeners
from cthulhu.net import PROTOCOL_VERSION, Created, CreateTable, Error, Hello
from cthulhu.net import clean_text
from cthulhu.savegame import SaveError
from cthulhu.table import Host, Kept, MoveBegins, Pace, StandInMove, StandIns, TableSpec, open_table

from .alarms import Alarms
from .apart import commit_apart, refused_for_what_it_says
from .club import Club
from .events import TableEvents
from .fleet import Elsewhere, Fleet
from .form import form_problem
from .hookurl import NotifyPolicy, NotifyRefused
from .linking import LinkCodes
from .limits import ServerLimits
from .listing import Listings
from .lobby import LobbySession
from .moves import MoveNotices
from .notify import Notifier
from .people import NameTaken, People
from .refused import Refused
from .store import Changes, Loaded, Seen, Store, TableRecord
from .table import ServerTable, setup_words
from .untouched import Untouched, expire, expire_soon, touched

if TYPE_CHECKING:
    from cthulhu.table import Peer

    from .store import Identity

log = logging.getLogger(__name__)


class TableBroken(Exception):
    """A table's save does not load any more (the operator is told; joiners get one line)."""


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


STORE_RETRY = 2.0  # seconds between two tries of a batch the store could not write


def _first_line(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):  # pydantic: the first problem, without the input
        try:
            first = errors(include_input=False)[0]
            return str(first.get("msg", exc)).removeprefix("Value error, ")
        except (TypeError, IndexError, KeyError):
            pass
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _error_frame(code: str, reason: str, fatal: bool = True) -> bytes:
    return encode_frame(Error(code=code, reason=reason, fatal=fatal).wire())


class TableServer:
    """The tables of one data folder, their lobby and their store. Run with `run` (its own tasks)
    and hand it connections (`handle`), or `serve` on TCP."""

    def __init__(self, data: Path, store: Store, loaded: Loaded, *, name: str = "cthulhu",
                 limits: ServerLimits = ServerLimits(), wall: Any = None, notifier: Notifier | None = None) -> None:
        self.data = data
        self.folder = data / "tables"
        self.store = store
        self.name = name
        self.limits = limits
        self.wall = wall or (lambda: datetime.now(timezone.utc))
        self.notifier = notifier or Notifier(NotifyPolicy())  # no address allowed: notifications off
        self.moves = MoveNotices(self.notifier, self._stored_soon)
        self.gate = Gate(limits.table, trio.current_time)
        self.tables: dict[str, ServerTable] = {r.id: ServerTable(r, self.folder, store.shelf(r.id)) for r in loaded.tables}
        self.listings = Listings(self.tables.values())  # what the lobby lists, kept in its order
        self.lobby_budget = SharedBudget(limits.lobby_all)
        self.untouched = Untouched(*limits.max_untouched, limits.untouched_expiry)
        self.people = People(loaded.identities, loaded.links, loaded.seen, limits.identities, trio.current_time)
        self.codes = LinkCodes(loaded.codes)
        self.port: int | None = None
        self.crashes = 0
        self.saved_at_stop = 0  # the tables open when the server stopped, each closed with its save written
        self.store_trouble: str | None = None  # why the store's last commit failed (None: it holds every change)
        self._changes = Changes()
        self._flushing = trio.Lock()  # one batch at a time: a batch kept after a failure is older than the next
        self._dirty: set[ServerTable] = set()
        self._creates = PrefixBudgets(limits.creates, trio.current_time)
        self._keys = itertools.count(1)
        self._wake: trio.Event | None = None
        self._soon: trio.Event | None = None
        self._nursery: trio.Nursery | None = None
        self.alarms = Alarms(self.wall)  # closed tables' running clocks
        self._limiter: trio.CapacityLimiter | None = None
        self.fleet: Fleet | None = None  # one process of several on a shared store (`server.fleet`)
        self.club = Club(self)  # the club's records and the challenges

    def now(self) -> str:
        return _iso(self.wall())

    # -- lifecycle ---------------------------------------------------------------------------------

    async def serve(self, port: int = 7777, bind: str = "127.0.0.1", *,
                    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen on TCP and run until cancelled; `task_status.started(port)`. Newcomers wait for
        their first frame on one doorstep for all tables (`net.listen`)."""
        listeners = await trio.open_tcp_listeners(port, host=bind)
        self.port = listeners[0].socket.getsockname()[1]
        full = _error_frame("host_full", "the server has no room for more connections")
        await serve_listeners(listeners, Doorstep(self.limits.table, self.gate), self.run, self._accepted, full, task_status=task_status)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The server's own tasks (the store's writer, the sweep) and its open tables' until
        cancelled; then every open table's save is written and the store gets the last batch."""
        self._wake, self._soon = trio.Event(), trio.Event()
        self._limiter = trio.CapacityLimiter(1)
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                nursery.start_soon(self._writer)
                nursery.start_soon(self._sweeper)
                if self.fleet is not None:
                    await nursery.start(self.fleet.run, self)
                if self.notifier.policy.on:
                    await nursery.start(self.notifier.run)
                    nursery.start_soon(self.moves.run)
                for table in self.tables.values():
                    if not touched(table):  # (made before the restart: from now on they have their time again)
                        expire_soon(self, self.untouched.add(table.id, f"store {table.id}", trio.current_time()))
                    self._arm(table, starting=True)  # its clock must run out even if nobody comes
                    self.club.saw(table)  # a game over that is not counted yet (the server stopped first)
                nursery.start_soon(self.alarms.run, self._ring)
                task_status.started()
                try:
                    await trio.sleep_forever()
                finally:
                    self._nursery = None  # (before the nursery closes) an opening that ends after this is told the server stops
        finally:
            with trio.CancelScope(shield=True):
                await self.shutdown()

    async def shutdown(self) -> None:
        for table in [t for t in self.tables.values() if t.host is not None or t.opening is not None]:
            await self._close(table, cancel=False)
            self.saved_at_stop += 1
        await self.flush()

    # -- connections -------------------------------------------------------------------------------

    async def _accepted(self, stream: trio.SocketStream, first: bytes) -> None:
        try:
            address = str(stream.socket.getpeername()[0])
        except (OSError, IndexError, TypeError):
            address = "?"
        await self.handle(stream, address, first)

    async def handle(self, stream: trio.abc.Stream, address: str, first: bytes = b"") -> None:
        """One connection from `address` until it ends: to a table or to the lobby (`first`: what
        it sent already, as for `Host.handle`). Isolated: no exception from it reaches the caller."""
        try:
            async with stream:
                got = await read_hello(stream, address, first, self.limits.table, self.gate)
                if got is None:
                    return
                hello, decoder = got
                if self.fleet is not None:
                    await self.fleet.know(hello.ident)  # an identity another process made
                if hello.proto != PROTOCOL_VERSION:
                    await refuse(stream, _error_frame("protocol_version", f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.proto}"))
                elif hello.lobby or hello.table is None:
                    await LobbySession(self, stream, address).run(hello, decoder.take_rest())
                else:
                    await self._to_table(stream, address, hello, decoder)
        except* (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError):
            pass
        except* Exception:
            self.crashes += 1
            log.exception("a connection from %s crashed", address)

    async def _to_table(self, stream: trio.abc.Stream, address: str, hello: Hello, decoder: FrameDecoder) -> None:
        table = self.tables.get(hello.table or "")
        if table is None and self.fleet is not None:
            table = await self.fleet.find(hello.table or "")  # made at another process a moment ago
        if table is None:
            refusal = self.gate.hello(address)
            if refusal is None:
                self.gate.wrong_code(address)  # guessing ids is guessing codes: throttled alike
                refusal = Refusal("no_such_table", "this server has no table with that id (cthulhu tables HOST lists them)")
            await refuse(stream, _error_frame(refusal.code, refusal.reason))
            return
        try:
            if self.fleet is not None:
                await self.fleet.take(table)  # (before anyone is stored here: `Elsewhere`, another process runs it)
            identity = self.arrive(hello, address)
            if identity is None:
                self.people.check_free(hello.name)  # nobody sits down under another person's name
            host = await self._open(table)
        except NameTaken as exc:
            await refuse(stream, _error_frame("name_taken", exc.reason))
            return
        except TableBroken as exc:
            await refuse(stream, _error_frame("table_broken", str(exc)))
            return
        except Elsewhere as exc:  # run by another process of this server: its joiners go there
            await refuse(stream, encode_frame(exc.redirect.wire()) if exc.redirect is not None else
                         _error_frame("table_moving", "this table is moving between the server's processes", fatal=False))  # (clients try again)
            return
        if identity is not None:
            hello = hello.model_copy(update={"name": identity.name})  # one name per identity, at every table
        await host.handle(stream, address, greeted=(hello, decoder))  # the hello passed on as it was read, with its name

    def arrive(self, hello: Hello, address: str) -> Identity | None:
        """The hello's identity (a new one is stored), or None for an anonymous hello; `NameTaken`."""
        identity, new = self.people.arrive(hello.ident, hello.name, address, self.now())
        if identity is not None:
            self._changes.identities[identity.id] = copy.copy(identity)
            self._poke(soon=new)
        return identity

    # -- tables ------------------------------------------------------------------------------------

    async def _open(self, table: ServerTable, prepared: Host | None = None) -> Host:
        """The table's host, opened now if it is not (its save loaded and checked off the event loop;
        `prepared`: already opened, a table just created)."""
        while table.host is None or table.opening is not None:
            if table.opening is not None:
                await table.opening.wait()
                continue
            if not table.live:
                raise TableBroken("this table has been archived")
            table.opening = trio.Event()
            host = prepared
            try:
                if self.fleet is not None:
                    await self.fleet.take(table)  # its lease first (`Elsewhere`: another process runs it)
                try:
                    if host is None:
                        host = await trio.to_thread.run_sync(self._open_table, table)
                except Exception as exc:
                    log.error("table %s cannot be opened: %s", table.id, clean_text(_first_line(exc)))
                    raise TableBroken(f"this table's save cannot be read ({_first_line(exc)}); the server's operator was told") from None
                if self._nursery is None:
                    raise TableBroken("the server is stopping")
                table.host = host  # (before it starts: what it tells as it starts, a decision under way, finds it)
                try:
                    await self._nursery.start(self._run_table, table, host)
                except BaseException:
                    table.host = None
                    raise
                table.idle_since = trio.current_time()
                self._changed(table)
                log.debug("opened table %s", table.id)
            except BaseException:
                if host is not None:
                    host.saves.release()  # cancelled or refused after the save was taken: let it go
                raise
            finally:
                table.opening.set()
                table.opening = None
        return table.host

    def _open_table(self, table: ServerTable) -> Host:
        """The table's host (in a worker thread: a save is loaded and every step checked). A clock
        that ran before a restart goes on where it was, and the stand-ins' memory with it."""
        return open_table(table.spec(self.limits.table), gate=self.gate, events=TableEvents(self, table), wall=self.wall,
                          kept=Kept(clock=table.record.clock, turns=table.record.turns))

    def _arm(self, table: ServerTable, *, starting: bool = False) -> None:
        """A closed table whose clock runs is opened again at its deadline (`server.alarms`); one
        with a webhook first when a quarter of the clock is left, for its reminder, and at once
        when the server `starting` (a notice the store had not kept before a crash goes out)."""
        deadline = table.clock_deadline()
        if deadline is None or table.host is not None or self._nursery is None:
            return
        turn_time = table.pace.turn_time if table.record.notify is not None and self.notifier.policy.on else None
        if turn_time is not None and starting:
            self._nursery.start_soon(self._ring, table.id, deadline)
        else:
            self.alarms.set(table.id, deadline, turn_time / 4 if turn_time is not None else 0.0)

    async def _ring(self, table_id: str, deadline: str) -> None:
        """A closed table's clock runs out now: open it (its host resumes the clock with no time
        left, and applies the table's policy once); a stale alarm does nothing. A broken save is
        logged, as on a join."""
        table = self.tables.get(table_id)
        if table is not None and table.host is None and table.clock_deadline() == deadline:
            try:
                await self._open(table)
            except TableBroken:
                pass
            except Elsewhere:  # another process holds its lease: it acts, once ...
                fleet = self.fleet
                if fleet is not None and fleet.stopping is False and self._nursery is not None:
                    # ... unless it lets the table go without a word (a lease released, or run out with
                    # a process that died): look again once a lease could have run out.
                    self._nursery.start_soon(self._ring_later, fleet.leases.seconds, table_id, deadline)

    async def _ring_later(self, delay: float, table_id: str, deadline: str) -> None:
        await trio.sleep(delay)
        await self._ring(table_id, deadline)

    async def _run_table(self, table: ServerTable, host: Host, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        with trio.CancelScope() as scope:
            table.scope = scope
            async with trio.open_nursery() as nursery:
                await nursery.start(host.run)
                task_status.started()

    async def _close(self, table: ServerTable, *, cancel: bool = True) -> None:
        """Stop the table's tasks, write its save (fsynced) and let it go; its record stays."""
        while table.opening is not None:  # an opening (or a close) under way: its end decides
            await table.opening.wait()
        host = table.host
        if host is None:
            return
        table.opening = trio.Event()
        try:
            if cancel and table.scope is not None:
                table.scope.cancel()
            table.refresh(self.now())
            await trio.to_thread.run_sync(host.flush_log)
            host.saves.release()
            table.closed()
            if self.fleet is not None:
                self.fleet.release_soon(table)
            self._arm(table)
            self._changed(table)
            log.debug("closed table %s", table.id)
        finally:
            table.opening.set()
            table.opening = None

    def _admitted(self, table: ServerTable, peer: Peer, hello: Hello) -> None:
        if peer.seat is not None:
            self.untouched.discard(table.id)  # a person sat: a table like any other from now on
        identity = self.people.find(hello.ident)
        if identity is not None:
            table.identities[peer.id] = identity.id
            if peer.seat is not None:
                link = self.people.link(table.id, peer.seat, identity.id, self.now())
                if link is not None:
                    self._changes.link(link)
                    self._poke(soon=True)  # a seat's news is on disk within moments
        self._changed(table)

    def _left(self, table: ServerTable, peer: Peer) -> None:
        who = table.identities.pop(peer.id, None)
        host = table.host
        if who is not None and host is not None:
            seen = Seen(who, table.id, host.told, self.now())  # what their interface was told: "since you left" starts after it
            self.people.seen[(who, table.id)] = seen
            self._changes.seen[(who, table.id)] = seen
        if host is not None and not host.peers:
            table.idle_since = trio.current_time()
        self._changed(table)

    def _changed(self, table: ServerTable) -> None:
        self._dirty.add(table)
        self._poke()

    def _move_begins(self, table: ServerTable, move: MoveBegins) -> None:
        """A person's decision began at `table` (its deadline goes to the store with the record);
        the table's notification address, if it has one, may be told (`MoveNotices`)."""
        self.moves.move_begins(table, move)
        self._dirty.add(table)
        self._poke(soon=move.deadline is not None)  # a running clock's deadline outlives a crash

    def _stored_soon(self, table: ServerTable) -> None:
        self._dirty.add(table)
        self._poke(soon=True)  # a notice waits for its record to be on disk

    def _stood_in(self, table: ServerTable, move: StandInMove) -> None:
        """A stand-in (or a clock's skip) decided for `move.seat` at `table`."""
        log.info("table %s: a stand-in decided step %d for seat %d (%s)", table.id, move.step, move.seat + 1, move.why)

    # -- creating ----------------------------------------------------------------------------------

    async def create(self, msg: CreateTable, identity: Identity | None, address: str) -> Created:
        """A new table from the lobby's form, open at once; `Refused` with one line otherwise."""
        if msg.notify is not None:
            try:
                self.notifier.policy.check(msg.notify)
            except NotifyRefused as exc:
                raise Refused(exc.code, exc.reason) from None
        if not self._creates.take(address):
            raise Refused("slow_down", "too many new tables from your address; try again in a minute")
        if len(self.tables) - len(self.untouched) >= self.limits.max_tables:
            raise Refused("server_full", "this server has as many tables as it can keep; try again later")
        if identity is not None:
            mine = self.listings.unfinished_by(identity.id)
            if mine >= self.limits.max_created:
                raise Refused("too_many_tables", f"you have {mine} unfinished tables here already; finish some first")
        problem = form_problem(msg)  # (said without quoting the form: reasons never echo the input)
        if problem is not None:
            raise Refused("bad_setup", problem)
        mode = modes.get(msg.mode)
        kind = msg.bot or mode.default_bot
        try:
            setup = Setup(mode=mode.name, seed=secrets.randbelow(2**63), players=msg.seats, options=dict(msg.options))
            pace = Pace(turn_time=msg.turn_time, on_timeout=msg.on_timeout, away_after=msg.away_after)
        except ValueError:  # what the rules refuse besides (their words quote the value)
            raise Refused("bad_setup", f"those set-up choices do not make a {mode.title} table") from None
        ids, about = setup_words(setup)
        table_id = new_table_id()
        while table_id in self.tables:
            table_id = new_table_id()
        wall = self.now()
        spec = TableSpec(start=setup, bots={seat: kind for seat in range(msg.seats - msg.bots, msg.seats)}, stand_ins=StandIns(kind=kind),
                         bot_delay=msg.bot_delay_ms / 1000, pace=pace)
        record = TableRecord(
            id=table_id, mode=mode.name, spec=spec, created=wall, save=f"{table_id}.save", created_by=identity.id if identity is not None else None,
            private=msg.private, code=new_table_code() if msg.private else None, about=about,
            seats=[{"seat": n, "name": None, "status": "open"} for n in range(msg.seats)], updated=wall,
            notify=msg.notify, notify_format=msg.notify_format,
        )
        table = ServerTable(record, self.folder, self.store.shelf(table_id))
        if self.fleet is not None:
            self.fleet.claim_new(table_id)  # before its first save is written (the fence lets only an owner write)
        try:
            host = await trio.to_thread.run_sync(self._open_table, table)
        except (SaveError, OSError) as exc:  # its save could not be made or written (a full disk): nothing is made
            log.error("a new table's save could not be made (%s); the table was not made", clean_text(_first_line(exc)))
            raise Refused("store_trouble", "the server cannot write its records just now; try again later") from None
        except ValueError:  # the content refused the choices (its words quote the value)
            raise Refused("bad_setup", f"those set-up choices do not make a {mode.title} table") from None
        self.tables[table_id] = table
        self.listings.put(table)
        await self._open(table, host)
        expire_soon(self, self.untouched.add(table_id, address, trio.current_time()))
        self._changes.tables[table_id] = copy.deepcopy(record)
        await self.flush()  # `created` is an acknowledgement: the table is in the store before its maker hears of it
        if table_id in self._changes.tables:  # the store failed (said in the log): no table, rather than one a restart loses
            await self._close(table)
            del self.tables[table_id]
            del self._changes.tables[table_id]
            self._dirty.discard(table)
            self.listings.drop(table_id)
            self.untouched.discard(table_id)
            raise Refused("store_trouble", "the server cannot write its records just now; try again later")
        who = identity.name if identity is not None else f"someone at {address}"
        log.info("%s created table %s (%s%s%s)", clean_text(who), table_id, mode.title, f", {about}" if about else "", ", private" if msg.private else "")
        return Created(seq=msg.seq, id=table_id, code=record.code)

    # -- the store ---------------------------------------------------------------------------------

    def _poke(self, soon: bool = False) -> None:
        """Something is to be written: within `flush_every`, or at once (`soon`: seats, new tables)."""
        if self._wake is not None:
            self._wake.set()
            if soon and self._soon is not None:
                self._soon.set()

    async def _writer(self) -> None:
        """Write what changed as one batch, at most every `flush_every` seconds unless it is urgent."""
        assert self._wake is not None and self._soon is not None
        while True:
            await self._wake.wait()
            with trio.move_on_after(self.limits.flush_every):
                await self._soon.wait()
            self._wake, self._soon = trio.Event(), trio.Event()
            await self.flush()
            if self.store_trouble is not None:  # a batch kept after a failure is tried again, change or no change
                await trio.sleep(STORE_RETRY)  # (what comes meanwhile waits with it: it would fail the same way)
                self._wake.set()

    def refresh(self) -> None:
        """Bring the records of the tables that changed up to date (what the lobby lists), and
        queue them for the store."""
        wall = self.now()
        for table in self._dirty:
            if table.host is not None:
                table.refresh(wall)
                holders = self.people.holders(table.id)
                for seat in table.record.seats:
                    if seat["status"] == "open" and int(seat["seat"]) in holders and self.people.unlink(table.id, int(seat["seat"])):
                        self._changes.unlink(table.id, int(seat["seat"]))
            if table.id in self.tables or table.record.archived is not None:
                self._changes.tables[table.id] = copy.deepcopy(table.record)
            if table.id in self.tables or not table.live:
                self.listings.put(table)
            self.club.saw(table)
        self._dirty.clear()

    async def flush(self) -> None:
        """Commit everything pending, in one transaction in a worker thread. A store that fails
        keeps the batch for the next try (and says so once a try)."""
        async with self._flushing:  # (a flush asked for while one runs waits for it: it then holds what that one kept)
            await self._flush()

    async def _flush(self) -> None:
        self.refresh()
        changes, self._changes = self._changes, Changes()
        notices = self.moves.take()  # told only once the records saying so are on disk
        if not changes:
            self.moves.sent(notices)
            return
        commit = self.fleet.commit if self.fleet is not None else self.store.commit
        try:
            try:
                await trio.to_thread.run_sync(commit, changes, limiter=self._limiter)
            except Exception as exc:
                if not refused_for_what_it_says(exc):
                    raise
                await trio.to_thread.run_sync(commit_apart, commit, changes, self.fleet, limiter=self._limiter)
            self.moves.sent(notices, self.fleet.refused if self.fleet is not None else ())
        except Exception as exc:
            self.moves.kept(notices)
            if self.store_trouble is None:  # once an episode, not once a flush
                log.error("could not write the server's records (%s); trying again every %g s and with every change", clean_text(_first_line(exc)), STORE_RETRY)
            self.store_trouble = _first_line(exc)
            self._changes.keep(changes)
            return
        if self.store_trouble is not None:
            self.store_trouble = None
            log.warning("the server's records are written again")

    # -- the sweep -----------------------------------------------------------------------------------

    async def _sweeper(self) -> None:
        while True:
            await trio.sleep(self.limits.sweep_every)
            await self.sweep()

    async def sweep(self) -> None:
        """Close the open tables nobody has used for `idle_close`, archive those without a move
        for `archive_after` (wall time)."""
        now = trio.current_time()
        for table in list(self.untouched.due(self.tables, now)):
            await expire(self, table, "nobody sat at it")
        for table in [t for t in self.tables.values() if t.host is not None]:
            if not table.busy() and table.opening is None and now - table.idle_since >= self.limits.idle_close:
                await self._close(table)
        old = self.wall() - self.limits.archive_after
        for table in list(self.tables.values()):
            try:
                last = datetime.fromisoformat(table.activity())
            except ValueError:
                continue
            if last < old and not table.busy() and table.opening is None and table.clock_deadline() is None:
                # (an opening: someone is coming; a running clock: the table is waiting for a move)
                await self._close(table)
                table.record.archived = self.now()
                del self.tables[table.id]
                self.people.forget_table(table.id)
                self._dirty.add(table)
                self._poke()
                log.info("archived table %s (%s, no move since %s); its save is kept: %s", table.id, table.record.mode,
                         table.activity(), table.save_where)
