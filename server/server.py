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
  thread) and closed after `idle_close` seconds with nobody at it and no bot with a move to make;
  so tables nobody is at cost a record each, and a restart is ready as soon as the records are
  read. Tables whose last activity is older than `archive_after` are archived: kept in the store
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
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from cthulhu.core import Setup, modes
from cthulhu.net.clock import MoveBegins, StandInMove
from cthulhu.net.frames import encode_frame
from cthulhu.net.gate import Gate, Refusal
from cthulhu.net.host import Host
from cthulhu.net.invite import new_table_code, new_table_id
from cthulhu.net.limits import Limits, TokenBucket
from cthulhu.net.listen import Doorstep, read_hello, refuse, serve_listeners
from cthulhu.net.messages import PROTOCOL_VERSION, Created, CreateTable, Error, Hello
from cthulhu.net.table import Opened, Pace, resolve
from cthulhu.net.textclean import clean_text

from .notify import Notifier, NotifyPolicy, NotifyRefused, move_notice
from .people import People
from .store import Changes, Loaded, Seen, Store, TableRecord
from .table import ServerTable, setup_words

if TYPE_CHECKING:
    from cthulhu.net.host import Peer

    from .store import Identity

log = logging.getLogger(__name__)

MAX_ADDRESSES = 4096


@dataclass(frozen=True, kw_only=True)
class ServerLimits:
    """What a server allows, besides each connection's `Limits` (`table`, also the shared gate's)."""

    table: Limits = field(default_factory=lambda: Limits(max_connections=4096))
    lobby_frames: tuple[float, int] = (4.0, 20)  # lobby requests from one connection (per second, burst)
    creates: tuple[float, int] = (1 / 30, 10)  # new tables from one address
    identities: tuple[float, int] = (0.1, 20)  # new identities from one address (past it: anonymous)
    max_tables: int = 10_000  # live tables in all
    max_created: int = 50  # unfinished tables one identity created
    idle_close: float = 300.0  # seconds an open table nobody is at stays open
    sweep_every: float = 30.0
    archive_after: timedelta = timedelta(days=30)  # of wall time without a move
    flush_every: float = 0.2


class Refused(Exception):
    """A lobby request refused: a wire code and one line for the asker."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class TableBroken(Exception):
    """A table's save does not load any more (the operator is told; joiners get one line)."""


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


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


class TableEvents:
    """What one open table tells the server (`HostEvents`)."""

    def __init__(self, server: "TableServer", table: ServerTable) -> None:
        self.server = server
        self.table = table

    def admitted(self, peer: Peer, hello: Hello) -> None:
        self.server._admitted(self.table, peer, hello)

    def left(self, peer: Peer) -> None:
        self.server._left(self.table, peer)

    def changed(self) -> None:
        self.server._changed(self.table)

    def move_begins(self, move: MoveBegins) -> None:
        self.server._move_begins(self.table, move)

    def stood_in(self, move: StandInMove) -> None:
        self.server._stood_in(self.table, move)

    def seen(self, hello: Hello) -> int | None:
        identity = self.server.people.find(hello.ident)
        seen = self.server.people.seen.get((identity.id, self.table.id)) if identity is not None else None
        return seen.step if seen is not None else None


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
        self.gate = Gate(limits.table, trio.current_time)
        self.tables: dict[str, ServerTable] = {r.id: ServerTable(r, self.folder) for r in loaded.tables}
        self.people = People(loaded.identities, loaded.links, loaded.seen, limits.identities, trio.current_time)
        self.port: int | None = None
        self.crashes = 0
        self._changes = Changes()
        self._dirty: set[ServerTable] = set()
        self._creates: OrderedDict[str, TokenBucket] = OrderedDict()
        self._keys = itertools.count(1)
        self._wake: trio.Event | None = None
        self._soon: trio.Event | None = None
        self._nursery: trio.Nursery | None = None
        self._limiter: trio.CapacityLimiter | None = None

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
                if self.notifier.policy.on:
                    await nursery.start(self.notifier.run)
                for table in self.tables.values():
                    if table.record.clock and table.record.clock.get("deadline") and not table.record.finished:
                        nursery.start_soon(self._reopen, table)  # its clock must run out even if nobody comes
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
                if hello.proto != PROTOCOL_VERSION:
                    await refuse(stream, _error_frame("protocol_version", f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.proto}"))
                elif hello.lobby or hello.table is None:
                    from .lobby import LobbySession

                    await LobbySession(self, stream, address).run(hello, decoder.take_rest())
                else:
                    await self._to_table(stream, address, hello, decoder.take_rest())
        except* (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError):
            pass
        except* Exception:
            self.crashes += 1
            log.exception("a connection from %s crashed", address)

    async def _to_table(self, stream: trio.abc.Stream, address: str, hello: Hello, rest: bytes) -> None:
        table = self.tables.get(hello.table or "")
        if table is None:
            refusal = self.gate.hello(address)
            if refusal is None:
                self.gate.wrong_code(address)  # guessing ids is guessing codes: throttled alike
                refusal = Refusal("no_such_table", "this server has no table with that id (cthulhu tables HOST lists them)")
            await refuse(stream, _error_frame(refusal.code, refusal.reason))
            return
        identity = self.arrive(hello, address)
        try:
            host = await self._open(table)
        except TableBroken as exc:
            await refuse(stream, _error_frame("table_broken", str(exc)))
            return
        if identity is not None:
            hello = hello.model_copy(update={"name": identity.name})  # one name per identity, at every table
        await host.handle(stream, address, encode_frame(hello.wire()) + rest)  # the hello passed on, with its name

    def arrive(self, hello: Hello, address: str) -> Identity | None:
        """The hello's identity (a new one is stored), or None for an anonymous hello."""
        identity, new = self.people.arrive(hello.ident, hello.name, address, self.now())
        if identity is not None:
            self._changes.identities[identity.id] = copy.copy(identity)
            self._poke(soon=new)
        return identity

    # -- tables ------------------------------------------------------------------------------------

    async def _open(self, table: ServerTable, prepared: Opened | None = None) -> Host:
        """The table's host, opened now if it is not (its save loaded and checked off the event loop;
        `prepared`: already resolved, a table just created)."""
        while table.host is None or table.opening is not None:
            if table.opening is not None:
                await table.opening.wait()
                continue
            if not table.live:
                raise TableBroken("this table has been archived")
            table.opening = trio.Event()
            opened = prepared
            try:
                spec = table.spec(self.limits.table)
                try:
                    if opened is None:
                        opened = await trio.to_thread.run_sync(resolve, spec)
                except Exception as exc:
                    log.error("table %s cannot be opened: %s", table.id, clean_text(_first_line(exc)))
                    raise TableBroken(f"this table's save cannot be read ({_first_line(exc)}); the server's operator was told") from None
                if opened.writer is not None and not opened.writer.started:
                    opened.writer.keep()  # a new table's save exists from the start (its dice commitment with it)
                    await trio.to_thread.run_sync(opened.writer.write)
                host = Host(spec, opened, gate=self.gate)
                host.events = TableEvents(self, table)
                host.wall = self.wall
                host.kept_clock = table.record.clock  # a clock that ran before a restart goes on where it was
                if self._nursery is None:
                    raise TableBroken("the server is stopping")
                await self._nursery.start(self._run_table, table, host)
                table.host = host
                table.idle_since = trio.current_time()
                self._changed(table)
                log.debug("opened table %s", table.id)
            except BaseException:
                if opened is not None and opened.writer is not None:
                    opened.writer.close()  # cancelled or refused after the save was taken: let it go
                raise
            finally:
                table.opening.set()
                table.opening = None
        return table.host

    async def _reopen(self, table: ServerTable) -> None:
        """Open a table whose clock ran when the server stopped (a broken save is logged, as on a join)."""
        try:
            await self._open(table)
        except TableBroken:
            pass

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
            self._changed(table)
            log.debug("closed table %s", table.id)
        finally:
            table.opening.set()
            table.opening = None

    def _admitted(self, table: ServerTable, peer: Peer, hello: Hello) -> None:
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
        """A person's move began at `table` (its deadline goes to the store with the record); the
        table's notification address, if it has one, is told (queued: it never waits)."""
        if table.record.notify is not None:
            self.notifier.notify(table.record.notify, move_notice(table.id, move.seat, move.name, move.turn, move.deadline))
        self._dirty.add(table)
        self._poke(soon=move.deadline is not None)  # a running clock's deadline outlives a crash

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
        bucket = self._creates.get(address)
        now = trio.current_time()
        if bucket is None:
            bucket = self._creates[address] = TokenBucket.of(self.limits.creates, now)
            if len(self._creates) > MAX_ADDRESSES:
                self._creates.popitem(last=False)
        if not bucket.take(now):
            raise Refused("slow_down", "too many new tables from your address; try again in a minute")
        live = [t for t in self.tables.values() if t.live]
        if len(live) >= self.limits.max_tables:
            raise Refused("server_full", "this server has as many tables as it can keep; try again later")
        if identity is not None:
            mine = sum(1 for t in live if t.record.created_by == identity.id and not t.record.finished)
            if mine >= self.limits.max_created:
                raise Refused("too_many_tables", f"you have {mine} unfinished tables here already; finish some first")
        try:
            mode = modes.get(msg.mode)
            if msg.bots > msg.seats:
                raise ValueError(f"{msg.bots} bots do not fit at {msg.seats} seats")
            kind = msg.bot or mode.default_bot
            if kind not in mode.bot_kinds:
                raise ValueError(f"{mode.title} has no {kind!r} bot (choose from {', '.join(mode.bot_kinds)})")
            setup = Setup(mode=mode.name, seed=secrets.randbelow(2**63), players=msg.seats, options=dict(msg.options))
            pace = Pace(turn_time=msg.turn_time, on_timeout=msg.on_timeout)
        except ValueError as exc:
            raise Refused("bad_setup", clean_text(_first_line(exc))) from None
        ids, about = setup_words(setup)
        table_id = new_table_id()
        while table_id in self.tables:
            table_id = new_table_id()
        wall = self.now()
        record = TableRecord(
            id=table_id, mode=mode.name, setup=setup.model_dump(mode="json"),
            settings={"bots": {str(seat): kind for seat in range(msg.seats - msg.bots, msg.seats)}, "bot": kind,
                      "bot_delay": msg.bot_delay_ms / 1000, "pace": pace.settings()},
            created=wall, save=f"{table_id}.save", created_by=identity.id if identity is not None else None,
            private=msg.private, code=new_table_code() if msg.private else None, about=about,
            seats=[{"seat": n, "name": None, "status": "open"} for n in range(msg.seats)], updated=wall,
            notify=msg.notify,
        )
        table = ServerTable(record, self.folder)
        try:
            opened = await trio.to_thread.run_sync(resolve, table.spec(self.limits.table))
        except ValueError as exc:  # the content refused the choices (an id it does not have)
            raise Refused("bad_setup", clean_text(_first_line(exc))) from None
        self.tables[table_id] = table
        await self._open(table, opened)
        self._changes.tables[table_id] = copy.deepcopy(record)
        await self.flush()  # `created` is an acknowledgement: the table is in the store before its maker hears of it
        if table_id in self._changes.tables:  # the store failed (said in the log): no table, rather than one a restart loses
            await self._close(table)
            del self.tables[table_id]
            del self._changes.tables[table_id]
            self._dirty.discard(table)
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
        self._dirty.clear()

    async def flush(self) -> None:
        """Commit everything pending, in one transaction in a worker thread. A store that fails
        keeps the batch for the next try (and says so once a try)."""
        self.refresh()
        changes, self._changes = self._changes, Changes()
        if not changes:
            return
        try:
            await trio.to_thread.run_sync(self.store.commit, changes, limiter=self._limiter)
        except Exception as exc:
            log.error("could not write the server's records (%s); trying again with the next change", clean_text(_first_line(exc)))
            for name in ("tables", "identities", "linked", "seen", "settings"):
                pending = getattr(self._changes, name)
                for key, value in getattr(changes, name).items():
                    pending.setdefault(key, value)
            self._changes.unlinked |= changes.unlinked - set(self._changes.linked)

    # -- the sweep -----------------------------------------------------------------------------------

    async def _sweeper(self) -> None:
        while True:
            await trio.sleep(self.limits.sweep_every)
            await self.sweep()

    async def sweep(self) -> None:
        """Close the open tables nobody has used for `idle_close`, archive those without a move
        for `archive_after` (wall time)."""
        now = trio.current_time()
        for table in [t for t in self.tables.values() if t.host is not None]:
            if not table.busy() and table.opening is None and now - table.idle_since >= self.limits.idle_close:
                await self._close(table)
        old = self.wall() - self.limits.archive_after
        for table in list(self.tables.values()):
            try:
                last = datetime.fromisoformat(table.activity())
            except ValueError:
                continue
            if last < old and not table.busy() and table.opening is None:  # (an opening: someone is coming)
                await self._close(table)
                table.record.archived = self.now()
                del self.tables[table.id]
                self.people.forget_table(table.id)
                self._dirty.add(table)
                self._poke()
                log.info("archived table %s (%s, no move since %s); its save is kept: %s", table.id, table.record.mode,
                         table.activity(), table.save_path)
