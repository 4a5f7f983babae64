"""The table over the network: `PeerSession`s driven by asyncio streams, and the embedded host.

Textual runs on asyncio, the host on trio. They never share a loop or call each
other: the embedded host runs `trio.run` in its own thread and the app reaches
it only through a loopback socket, exactly as a LAN peer would. Stopping it is a
non-blocking `run_sync_soon(cancel)` into trio plus a join done off the UI
thread, so nothing can deadlock (see DESIGN "Pitfalls").

Hot-seat players at one terminal each get their own connection (one seat per
connection is the protocol's rule); the first connection's updates drive the
screen, the others only carry their seat's commands.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cthulhu.net.client import ConnectionTrouble, PeerSession
from cthulhu.net.tokenfile import forget_token, read_token, write_token
from cthulhu.net.messages import Chat, Delta, Error, GameOverMsg, Lobby, Rejected, Snapshot, Table, Welcome

from .link import QueuedUpdates, Update

RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0, 4.0)


class LinkError(Exception):
    """The host refused us or could not be reached; the message says why."""


@dataclass
class _Conn:
    session: PeerSession
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    task: asyncio.Task | None = None
    welcomed: asyncio.Event = field(default_factory=asyncio.Event)
    wanted_seat: int | None = None


class NetLink(QueuedUpdates):
    """A `TableLink` to a host at host:port (one connection per local seat)."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str = "player",
        code: str | None = None,
        seats: list[int | None] | None = None,
        watch: bool = False,
        seed: int | None = None,
        embedded: "EmbeddedHost | None" = None,
        chat: bool | None = None,
        token_file: Path | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.name = name
        self.code = code
        self.watch = watch
        self.seed = seed
        self.embedded = embedded
        self.chat_ok = embedded is None if chat is None else chat
        """Others may be at the table (a joined host, or ours with open seats): offer chat."""
        self.token_file = token_file
        """Where this (single) seat's token is kept between runs; see `cthulhu.net.tokenfile`."""
        self.local_seats: frozenset[int] = frozenset()
        self._wanted = list(seats) if seats else [None]
        self._conns: list[_Conn] = []
        self._queue: asyncio.Queue[Update | None] = asyncio.Queue()
        self._closed = False
        self.bytes_in = 0
        self._seats_seen: dict[int, tuple[str, str | None, bool]] = {}

    # -- connecting -----------------------------------------------------------

    async def open(self) -> Update:
        for n, wanted in enumerate(self._wanted):
            name = self.name if len(self._wanted) == 1 else f"{self.name} {n + 1}"
            kept = read_token(self.token_file) if self.token_file is not None and not self.watch else None
            session = PeerSession(name, code=self.code, seat=kept[0] if kept else wanted, token=kept[1] if kept else None, watch=self.watch)
            conn = await self._open_conn(session, primary=n == 0)
            if kept and conn.session.closed is not None and conn.session.closed.code == "bad_token":
                forget_token(self.token_file)  # another table's token: sit down as a newcomer
                conn = await self._open_conn(PeerSession(name, code=self.code, seat=wanted, watch=self.watch), primary=n == 0)
            if conn.session.closed is not None:
                raise LinkError(f"the host refused us: {conn.session.closed.reason}")
        self.local_seats = frozenset(c.session.seat for c in self._conns if c.session.seat is not None)
        view = self._conns[0].session.mirror.view or {}
        seats = ", ".join(str(s + 1) for s in sorted(self.local_seats)) or "none (watching)"
        where = "the table in this process" if self.embedded is not None else "the table"
        return Update(view, notice=f"Joined {where} at {self.host}:{self.port}; your seat(s): {seats}.")

    async def _open_conn(self, session: PeerSession, primary: bool) -> _Conn:
        conn = _Conn(session, wanted_seat=session.seat)
        await self._connect(conn)
        self._conns.append(conn)
        conn.task = asyncio.create_task(self._read(conn, primary=primary))
        try:
            await asyncio.wait_for(conn.welcomed.wait(), 10)
        except asyncio.TimeoutError:
            raise LinkError(f"no welcome from {self.host}:{self.port}") from None
        if session.closed is not None:  # refused: this connection is over
            self._conns.remove(conn)
            if conn.writer is not None:
                conn.writer.close()
        return conn

    async def _connect(self, conn: _Conn) -> None:
        try:
            conn.reader, conn.writer = await asyncio.open_connection(self.host, self.port)
        except OSError as exc:
            raise LinkError(f"cannot reach {self.host}:{self.port}: {exc.strerror or exc}") from None
        await self._flush(conn)

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
            if not data:
                if self._closed or conn.session.closed is not None or conn.session.game_over is not None:
                    conn.welcomed.set()
                    return
                if not await self._reconnect(conn, primary):
                    return
                continue
            self.bytes_in += len(data)
            try:
                messages = conn.session.receive_data(data)
            except Exception as exc:  # the host's framing is broken: drop and reconnect
                if primary:
                    await self._queue.put(Update(self._view(), notice=f"bad data from the host ({exc}); reconnecting"))
                conn.writer.close()
                continue
            await self._flush(conn)
            self._deliver(conn, messages, primary)

    def _deliver(self, conn: _Conn, messages: list[Any], primary: bool) -> None:
        session = conn.session
        for msg in messages:
            if isinstance(msg, Welcome):
                conn.welcomed.set()
                if primary and self.token_file is not None and msg.token:
                    write_token(self.token_file, msg.seat, msg.token)
                if primary:
                    self._seat_news(msg.table)
                if primary and self._queue_ready:
                    self._queue.put_nowait(Update(self._view(), notice="connected to the table"))
            elif isinstance(msg, Error) and msg.fatal:
                conn.welcomed.set()
                self._queue.put_nowait(Update(self._view(), rejected=f"the host closed the connection: {msg.reason}"))
            elif isinstance(msg, Rejected):
                self._queue.put_nowait(Update(self._view(), rejected=msg.reason))
            elif not primary:
                continue
            elif isinstance(msg, Delta):
                if not session.mirror.stale:
                    self._queue.put_nowait(Update(self._view(), list(msg.events)))
                else:
                    self._queue.put_nowait(Update(self._view(), list(msg.events), notice="resynchronising with the host"))
            elif isinstance(msg, Snapshot):
                self._queue.put_nowait(Update(self._view()))
            elif isinstance(msg, Chat):
                self._queue.put_nowait(Update(self._view(), chat=(msg.name or "?", msg.text)))
            elif isinstance(msg, Lobby):
                for news in self._seat_news(msg.table):
                    self._queue.put_nowait(Update(self._view(), notice=news))
            elif isinstance(msg, GameOverMsg):
                self.seed = msg.seed
                self._queue.put_nowait(Update(self._view(), notice=f"The host reveals the seed: {msg.seed}."))
            elif isinstance(msg, ConnectionTrouble):
                self._queue.put_nowait(Update(self._view(), notice=f"a garbled message from the host: {msg.error}"))

    def _seat_news(self, table: Table) -> list[str]:
        """Sentences for the seats that changed since the host last told us (none the first time)."""
        first = not self._seats_seen
        news = []
        for s in table.seats:
            now = (s.kind, s.name, s.connected)
            before = self._seats_seen.get(s.seat)
            self._seats_seen[s.seat] = now
            if first or before == now or s.kind == "bot":
                continue
            who = s.name or "a player"
            if s.kind == "human" and s.connected:
                news.append(f"{who} {'is back at' if before and before[1] == s.name else 'sits at'} seat {s.seat + 1}.")
            elif s.kind == "human":
                news.append(f"{who} left seat {s.seat + 1}; the seat waits for them.")
            elif s.kind == "open" and before is not None:
                news.append(f"Seat {s.seat + 1} is open.")
        return news

    def lobby_info(self) -> dict[str, Any]:
        """What the table dialog shows: where to join, the code, and the host's latest seat list."""
        session = self._conns[0].session if self._conns else None
        if self.embedded is not None:
            bind = self.embedded.bind
            address = f"{'THIS-MACHINE' if bind in ('0.0.0.0', '', '::') else bind}:{self.port}"
        else:
            address = f"{self.host}:{self.port}"
        return {
            "address": address,
            "code": self.code,
            "hosting": self.embedded is not None,
            "local_seats": sorted(self.local_seats),
            "table": session.table if session is not None else None,
        }

    @property
    def _queue_ready(self) -> bool:
        return bool(self.local_seats) or self.watch

    async def _reconnect(self, conn: _Conn, primary: bool) -> bool:
        """Lost the host: try again with our seat token; tell the player what is going on."""
        if primary:
            await self._queue.put(Update(self._view(), notice="Lost the connection to the host; reconnecting..."))
        old = conn.session
        for delay in RECONNECT_DELAYS:
            await asyncio.sleep(delay)
            if self._closed:
                return False
            conn.session = PeerSession(old.name, code=self.code, seat=old.seat, token=old.token, watch=self.watch)
            try:
                await self._connect(conn)
                return True
            except LinkError:
                continue
        if primary:
            await self._queue.put(Update(self._view(), rejected="the host is gone; your seat token could not reconnect"))
        return False

    def _view(self) -> dict[str, Any]:
        """The deciding local seat's view when it has one, else the first connection's."""
        views = {c.session.seat: c.session.mirror for c in self._conns}
        first = self._conns[0].session.mirror if self._conns else None
        prompt = first.prompt if first is not None else None
        if prompt is not None and prompt.get("seat") in views:
            mirror = views[prompt.get("seat")]
            if mirror.view is not None and not mirror.stale and mirror.seq == first.seq:
                return mirror.view
        return (first.view if first is not None else None) or {}

    # -- the TableLink surface -------------------------------------------------

    async def send(self, seat: int, command: dict[str, Any], version: int | None) -> None:
        for conn in self._conns:
            if conn.session.seat == seat:
                conn.session.send_command(command, version)
                try:
                    await self._flush(conn)
                except OSError as exc:
                    await self._queue.put(Update(self._view(), rejected=f"not sent, the connection is down: {exc}"))
                return
        await self._queue.put(Update(self._view(), rejected=f"seat {seat + 1} is not played at this terminal"))

    async def chat(self, text: str) -> None:
        if self._conns:
            self._conns[0].session.chat(text)
            await self._flush(self._conns[0])

    async def save(self) -> str | None:
        if self.embedded is not None:
            return await self.embedded.save()
        return None

    @property
    def autosave(self) -> Any:
        return self.embedded.writer if self.embedded is not None else None

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
    ) -> None:
        self.game = game
        self.bots = bots or {}
        self.writer = writer
        self.bot_seed = bot_seed
        self.bind = bind
        self.wanted_port = port
        self.code = code
        self.port: int | None = None
        self.host: Any = None
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
                self.host = Host(self.game, code=self.code, bots=self.bots, log=self.writer, bot_seed=self.bot_seed)
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
            raise LinkError(f"the embedded host did not start: {self.error!r}")
        return self.port

    async def stop(self) -> None:
        """Cancel the host (its autosave is already on disk) and wait for the thread."""
        if self._token is not None and self._scope is not None and self._thread.is_alive():
            try:
                self._token.run_sync_soon(self._scope.cancel)
            except RuntimeError:
                pass  # trio already finished
        if self._thread.is_alive():
            await asyncio.to_thread(self._thread.join, 5)
        await asyncio.to_thread(self._final_save)

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


async def embedded_link(options: Any) -> NetLink:
    """`cthulhu play`: a host in this process on a loopback port, and this terminal's seats joined to it."""
    from cthulhu.core import Game

    writer = None
    if options.load is not None:
        from .link import load_game

        game, save = load_game(options.load)
        try:
            from cthulhu.net.savewriter import SaveWriter

            writer = SaveWriter.resume(Path(options.load), save, game, fsync=False)
        except ImportError:
            writer = None
    else:
        setup = options.setup()
        game = Game.new(setup)
        if options.saves_dir is not None:
            try:
                from cthulhu.net.savedir import new_save_path
                from cthulhu.net.savewriter import SaveWriter

                writer = SaveWriter(new_save_path(options.saves_dir, f"{setup.mode}-{setup.seed}"), game, fsync=False)
            except ImportError:
                writer = None
    seats = game.setup.players
    from .link import usable_bot

    kind = usable_bot(options.bot_kind, game.setup.mode)
    bot_seats = {seat: kind for seat in range(seats - options.bots, seats)} if options.bots else {}
    humans = [s for s in range(seats) if s not in bot_seats]
    if options.remote_seats:  # hosting for a LAN: the last humans' seats stay open for others to join
        humans = humans[: max(1, len(humans) - options.remote_seats)]
    bind = options.host_bind or "127.0.0.1"
    embedded = EmbeddedHost(game, bots=bot_seats, writer=writer, bot_seed=game.setup.seed, bind=bind, port=options.host_port, code=options.code)
    port = await embedded.start()
    return NetLink("127.0.0.1" if bind in ("0.0.0.0", "") else bind, port, name=options.name, code=options.code, seats=humans, seed=game.setup.seed, embedded=embedded, chat=bool(options.remote_seats))


def join_link(options: Any) -> NetLink:
    """`cthulhu join`: this terminal as a peer of a host elsewhere (reconnects with its seat token)."""
    host, port = options.join
    return NetLink(host, port, name=options.name, code=options.code, seats=[options.join_seat], watch=options.watch, token_file=options.token_file)
