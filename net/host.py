"""The trio host: owns the one true `Game`, guards seats and hidden information.

Shape (see DESIGN.md "Protocol"):

* One task (`_game_loop`) applies every command, fed by a channel, so trio's
  deliberate task-order shuffling can never interleave two mutations.
* Each connection runs in its own task, isolated with ``except*``: whatever a
  peer sends, only that connection ends. Its outgoing frames go through a
  bounded channel; broadcasts use ``send_nowait`` and a peer whose queue is
  full is evicted (it may reconnect with its token) so it never slows the table.
  Answers to a peer's own requests and bad frames are awaited sends, so only
  the peer that floods is slowed.
* Peers only ever receive `Game.view(seat)` (as a welcome/snapshot or as a
  delta against the last view sent), events, lobby info, and at the end the seed.
  Tokens and the table code never leave except a token to its owner in `welcome`.
* A person's seat without a connection is *away*: it stays theirs (their token
  brings them back, even past a changed table code). The table waits for it,
  unless the host hands it to a stand-in bot (`hand_to_bot`, or by itself after
  `away_bot` seconds) or frees it for someone new (`free_seat`).
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass, field
from typing import Any, Literal

import trio

from cthulhu.core import Command, Game, Rejected
from cthulhu.core.bots import make_bot

from .delta import diff, view_hash
from .frames import MAX_FRAME, FrameDecoder, FrameError, FrameTooLarge, encode_frame
from .invite import new_seat_token, new_table_id
from .log import CommandLog, MemoryLog
from .messages import (
    PROTOCOL_VERSION,
    Chat,
    CommandMsg,
    Error,
    Hello,
    Ping,
    Pong,
    ProtocolError,
    SeatInfo,
    SnapshotRequest,
    Table,
    parse_to_host,
)

log = logging.getLogger(__name__)

QUEUE_FRAMES = 256  # per-peer outgoing frames before a peer counts as unable to keep up
MAX_BAD_FRAMES = 50  # a peer that keeps sending garbage is closed
HELLO_TIMEOUT = 10.0
RECV_CHUNK = MAX_FRAME + 4


def _hash_matches(token: str | None, token_hash: str | None) -> bool:
    if token is None or token_hash is None:
        return False
    from .savewriter import token_matches

    return token_matches(token, token_hash)


def _same_secret(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return False
    return hmac.compare_digest(a.encode(), b.encode())


@dataclass(eq=False)
class Peer:
    """One connection: its seat (None: spectator) and its bounded outgoing queue."""

    id: int
    name: str
    seat: int | None
    send: trio.MemorySendChannel[bytes]
    recv: trio.MemoryReceiveChannel[bytes]
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    gone: bool = False
    bad_frames: int = 0

    def push(self, frame: bytes) -> bool:
        """Queue without waiting; False (and the peer is closed) if it cannot keep up."""
        if self.gone:
            return False
        try:
            self.send.send_nowait(frame)
            return True
        except trio.WouldBlock:
            log.info("peer %d (%s) cannot keep up; disconnecting it", self.id, self.name)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        self.close()
        return False

    async def answer(self, frame: bytes) -> None:
        """Queue an answer to this peer's own message, waiting for room (slows only this peer)."""
        if not self.gone:
            await self.send.send(frame)

    def close(self) -> None:
        self.gone = True
        self.scope.cancel()

    def close_with(self, frame: bytes, grace: float = 2.0) -> None:
        """Send a last (fatal) frame, then close: it gets `grace` seconds to leave."""
        if not self.gone:
            try:
                self.send.send_nowait(frame)
            except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            self.send.close()  # the sender ends once the frame is out
        self.gone = True
        self.scope.deadline = min(self.scope.deadline, trio.current_time() + grace)


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
    away_since: float | None = None  # trio clock; for `away_bot`

    @property
    def away(self) -> bool:
        """A person's seat with nobody connected to it."""
        return self.kind == "human" and (self.peer is None or self.peer.gone)

    @property
    def player(self) -> Any:
        """The bot that decides for this seat now, if any."""
        return self.bot if self.kind == "bot" else self.stand_in if self.away else None

    def info(self) -> SeatInfo:
        connected = self.kind == "bot" or (self.kind == "human" and not self.away)
        return SeatInfo(seat=self.index, kind=self.kind, name=self.name, connected=connected, stand_in=self.stand_in is not None)


class Host:
    """Serve one game to peers over TCP.

    `bots` maps seat -> "random"/"heuristic"; those seats are played inside the
    host. With `autostart` the game starts as soon as no seat is open.
    `code` (None: open table) must be presented by every `hello`.
    """

    def __init__(
        self,
        game: Game,
        *,
        code: str | None = None,
        bots: dict[int, str] | None = None,
        log: CommandLog | None = None,
        autostart: bool = True,
        bot_seed: int = 0,
        bot_delay: float = 0.0,
        players: list[Any] | None = None,
        queue_frames: int = QUEUE_FRAMES,
        hello_timeout: float = HELLO_TIMEOUT,
        table_id: str | None = None,
        away_bot: float | None = None,
        stand_in_kind: str = "heuristic",
    ) -> None:
        self.game = game
        self.code = code
        self.table_id = table_id or new_table_id()
        self.away_bot = away_bot
        self.stand_in_kind = stand_in_kind
        self.bot_seed = bot_seed
        self.log: CommandLog = log if log is not None else MemoryLog()
        self.autostart = autostart
        self.bot_delay = bot_delay
        self.queue_frames = queue_frames
        self.hello_timeout = hello_timeout
        self.seats = [Seat(i) for i in range(game.setup.players)]
        for index, kind in (bots or {}).items():
            self._seat_bot(self.seats[index], kind)
        for record in players or []:  # seats of a loaded save: their owners reclaim them by token
            seat = self.seats[record.seat] if 0 <= record.seat < len(self.seats) else None
            if seat is None or seat.kind != "open":
                continue
            if record.token_hash:
                seat.kind, seat.name, seat.token_hash = "human", record.name, record.token_hash
            elif getattr(record, "bot", None):
                self._seat_bot(seat, record.bot)
        self.peers: list[Peer] = []
        self.seq = 0  # deltas broadcast so far; a view at `seq` is what every peer holds
        self.views: dict[int | None, dict[str, Any]] = {}  # last view sent, per seat (None: spectators)
        self.started = trio.Event()
        self.finished = trio.Event()
        self.port: int | None = None
        self.crashes = 0  # connections that ended with an unexpected exception (tests assert 0)
        self.on_delta: Any = None  # optional hook(seq, seat_or_None, view_hash) for tests and figures
        self._next_peer = 0
        self._cmd_send, self._cmd_recv = trio.open_memory_channel[tuple[Peer | None, CommandMsg | None]](64)
        if game.outcome is not None:
            self.finished.set()

    def _seat_bot(self, seat: Seat, kind: str) -> None:
        seat.kind, seat.name, seat.bot_kind = "bot", f"{kind} bot", kind
        seat.bot = make_bot(kind, self.game.setup.mode, self.bot_seed * 1009 + seat.index)

    # ---- lifecycle --------------------------------------------------------

    async def serve(
        self, port: int = 0, bind: str = "127.0.0.1", *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Listen and run the table until cancelled; `task_status.started(port)`."""
        listeners = await trio.open_tcp_listeners(port, host=bind)
        self.port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._game_loop)
            if self.away_bot is not None:
                nursery.start_soon(self._away_watch, self.away_bot)
            await nursery.start(trio.serve_listeners, self._handle, listeners)
            self._maybe_start()
            task_status.started(self.port)

    def start(self) -> None:
        """Start play (a lobby's "start" button; headless hosts start when every seat is taken)."""
        if not self.started.is_set():
            self.started.set()
            self._broadcast_lobby()

    def _maybe_start(self) -> None:
        if self.autostart and all(s.kind != "open" for s in self.seats):
            self.start()

    def flush_log(self) -> None:
        flush = getattr(self.log, "flush", None)
        if flush is not None:
            flush()

    def _record_players(self) -> None:
        """Tell a save-backed log who sits where (token hashes only)."""
        set_players = getattr(self.log, "set_players", None)
        if set_players is None:
            return
        from .savewriter import hash_token

        set_players(
            [
                {"seat": s.index, "name": s.name or "", "token_hash": hash_token(s.token) if s.token else s.token_hash, "bot": s.bot_kind}
                for s in self.seats
                if s.kind != "open"
            ]
        )
        # A peer holds its token from the welcome on: write the seats down now, not
        # only with the next command, or a crash before it would lose them.
        if getattr(self.log, "autosave", False):
            try:
                self.flush_log()
            except Exception:  # e.g. a full disk: the seats are saved with the next command
                log.exception("could not save the seats")

    def table(self) -> Table:
        return Table(
            id=self.table_id,
            mode=self.game.setup.mode,
            seats=[s.info() for s in self.seats],
            started=self.started.is_set(),
            spectators=sum(1 for p in self.peers if p.seat is None),
        )

    # ---- the one task that mutates the game -------------------------------

    async def _game_loop(self) -> None:
        await self.started.wait()
        await self._play_bots()
        async for peer, msg in self._cmd_recv:
            if peer is not None:  # (None, None): seats changed, a bot may have a turn to play
                self._apply_from_peer(peer, msg)
            await self._play_bots()

    def _wake(self) -> None:
        try:
            self._cmd_send.send_nowait((None, None))
        except trio.WouldBlock:
            pass  # commands are queued: the loop plays bots after each of them anyway

    async def _play_bots(self) -> None:
        while self.game.outcome is None:
            prompt = self.game.prompt
            bot = self.seats[prompt.seat].player if prompt is not None else None
            if bot is None:
                return
            command = bot.choose(self.game, prompt.seat)
            self._apply(prompt.seat, command, prompt.version)
            await trio.sleep(self.bot_delay)

    def _apply_from_peer(self, peer: Peer, msg: CommandMsg) -> None:
        if peer.gone or peer.seat is None or self.seats[peer.seat].peer is not peer:
            return  # replaced by a reconnect (or evicted) while the command waited in the channel
        try:
            command = Command.from_wire(msg.command)
            self._apply(peer.seat, command, msg.version)
        except Rejected as exc:
            peer.push(self._rejected(msg.seq, exc.code, exc.reason))
        except Exception:  # a bug in the rules must not take the whole table down with it
            log.exception("applying a command from seat %s failed", peer.seat)
            peer.push(self._error_frame("internal_error", "the host failed to apply that command"))

    def _apply(self, seat: int, command: Command, version: int | None) -> None:
        events = self.game.apply(seat, command, version)  # Rejected propagates; nothing changed
        try:
            self.log.append(seat, command.wire(), self.game.state_hash())
        except Exception:  # e.g. a full disk: keep playing from memory, say so loudly
            log.exception("could not record step %d in the command log", self.game.step)
        self._broadcast_delta([e.wire() for e in events])
        if self.game.outcome is not None:
            self._broadcast_game_over()

    # ---- broadcasting -----------------------------------------------------

    def _broadcast_delta(self, events: list[dict[str, Any]]) -> None:
        self.seq += 1
        by_view: dict[int | None, list[Peer]] = {}
        for peer in self.peers:
            by_view.setdefault(peer.seat, []).append(peer)
        for key in [k for k in self.views if k not in by_view]:
            del self.views[key]
        # Seats that see the same table (the usual case) share one diff, hash and frame.
        made: list[tuple[Any, Any, str, bytes]] = []
        for key, peers in by_view.items():
            new = self.game.view(key)
            old = self.views.get(key)
            for m_old, m_new, m_digest, m_frame in made:
                if m_new == new and m_old == old and m_old is not None:
                    new, digest, frame = m_new, m_digest, m_frame
                    break
            else:
                ops = diff(old, new) if old is not None else [["s", [], new]]
                digest = view_hash(new)
                frame = encode_frame({"t": "delta", "seq": self.seq, "step": self.game.step, "ops": ops, "hash": digest, "events": events})
                made.append((old, new, digest, frame))
            self.views[key] = new
            if self.on_delta is not None:
                self.on_delta(self.seq, key, digest)
            for peer in peers:
                peer.push(frame)

    def _broadcast(self, frame: bytes) -> None:
        for peer in list(self.peers):
            peer.push(frame)

    def _broadcast_lobby(self) -> None:
        self._broadcast(encode_frame({"t": "lobby", "table": self.table().model_dump()}))

    def _game_over_frame(self) -> bytes:
        g = self.game
        return encode_frame({"t": "game_over", "outcome": g.outcome, "seed": g.setup.seed, "step": g.step, "state_hash": g.state_hash()})

    def _broadcast_game_over(self) -> None:
        self._broadcast(self._game_over_frame())
        self.finished.set()

    def _snapshot_frame(self, t: str, peer: Peer, **extra: Any) -> bytes:
        view = self.views.get(peer.seat)
        if view is None:
            view = self.views[peer.seat] = self.game.view(peer.seat)
        return encode_frame({"t": t, **extra, "seq": self.seq, "view": view, "hash": view_hash(view)})

    # ---- connections ------------------------------------------------------

    async def _handle(self, stream: trio.SocketStream) -> None:
        """One connection, isolated: no exception from it reaches `serve_listeners`."""
        peer: Peer | None = None
        try:
            async with stream:
                admitted = await self._handshake(stream)
                if admitted is not None:
                    peer, decoder, early = admitted
                    await self._run_peer(stream, peer, decoder, early)
        except* (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError):
            pass  # the peer went away, or we closed it
        except* Exception:
            self.crashes += 1
            log.exception("connection %s crashed", peer.id if peer else "?")
        finally:
            if peer is not None:
                self._drop(peer)

    async def _send_now(self, stream: trio.SocketStream, frame: bytes) -> None:
        """Before a peer has a queue (handshake refusals): send directly, briefly."""
        with trio.move_on_after(2):
            await stream.send_all(frame)

    @staticmethod
    def _error_frame(code: str, reason: str, *, fatal: bool = False, details: list[str] | None = None) -> bytes:
        return encode_frame(Error(code=code, reason=reason, fatal=fatal, details=details or []).wire())

    async def _handshake(self, stream: trio.SocketStream) -> tuple[Peer, FrameDecoder, list[Any]] | None:
        decoder = FrameDecoder()
        frames: list[Any] = []
        with trio.move_on_after(self.hello_timeout):
            while not frames:
                data = await stream.receive_some(RECV_CHUNK)
                if not data:
                    return None
                try:
                    frames = decoder.feed(data)
                except FrameTooLarge as exc:
                    await self._send_now(stream, self._error_frame(exc.code, exc.reason, fatal=True))
                    return None
        if not frames:
            await self._send_now(stream, self._error_frame("timeout", "no hello in time", fatal=True))
            return None
        first, early = frames[0], frames[1:]
        try:
            if isinstance(first, FrameError):
                raise first
            hello = parse_to_host(first)
            if not isinstance(hello, Hello):
                raise ProtocolError("the first message must be a hello")
        except (FrameError, ProtocolError) as exc:
            details = getattr(exc, "details", None)
            await self._send_now(stream, self._error_frame(exc.code, exc.reason, fatal=True, details=details))
            return None
        refusal = self._refuse(hello)
        if refusal is not None:
            log.info("refused a hello from %r: %s", hello.name, refusal[0])
            await self._send_now(stream, self._error_frame(refusal[0], refusal[1], fatal=True))
            return None
        return self._admit(hello), decoder, early

    def _refuse(self, hello: Hello) -> tuple[str, str] | None:
        if hello.proto != PROTOCOL_VERSION:
            return "protocol_version", f"this host speaks protocol {PROTOCOL_VERSION}, not {hello.proto}"
        seat = self._seat_for_token(hello) if hello.token is not None else None
        # A valid seat token is the stronger secret: its owner comes back even when the host
        # was restarted with another table code.
        if seat is None and self.code is not None and not _same_secret(hello.code, self.code):
            return "bad_code", "wrong table code"
        if hello.token is not None and seat is None:
            return "bad_token", "that seat token is not valid here"
        return None

    def _seat_for_token(self, hello: Hello) -> Seat | None:
        if hello.seat is None:
            candidates = self.seats
        elif 0 <= hello.seat < len(self.seats):
            candidates = [self.seats[hello.seat]]
        else:
            candidates = []
        found = None
        for seat in candidates:  # compare with every seat: timing does not tell which one matched
            if seat.kind != "human":
                continue
            if _same_secret(hello.token, seat.token) or (seat.token is None and _hash_matches(hello.token, seat.token_hash)):
                found = seat
        if found is not None and found.token is None:
            found.token = hello.token  # restored from a save: from now on, compare directly
        return found

    def _admit(self, hello: Hello) -> Peer:
        """Give the hello a seat (or a spectator place) and queue its welcome. No await in here,
        so the welcome's view and `seq` are exactly what the next delta starts from."""
        token: str | None = None
        seat: Seat | None = None
        if hello.token is not None:
            seat = self._seat_for_token(hello)
            assert seat is not None
            if seat.peer is not None:  # the rightful owner is back; the old connection is stale
                seat.peer.close_with(self._error_frame("replaced", "your seat was taken back with its token from another connection", fatal=True))
                self._drop(seat.peer)
            seat.stand_in = seat.away_since = None  # back: their stand-in, if any, leaves the seat
            token = seat.token
        elif not hello.watch:
            open_seats = [s for s in self.seats if s.kind == "open"]
            wanted = [s for s in open_seats if s.index == hello.seat]
            if wanted or open_seats:
                seat = (wanted or open_seats)[0]
                seat.kind, seat.token = "human", new_seat_token()
                token = seat.token
        send, recv = trio.open_memory_channel[bytes](self.queue_frames)
        self._next_peer += 1
        peer = Peer(self._next_peer, hello.name, seat.index if seat else None, send, recv)
        if seat is not None:
            seat.peer, seat.name = peer, hello.name
        self.peers.append(peer)
        table = self.table().model_dump()
        peer.push(self._snapshot_frame("welcome", peer, proto=PROTOCOL_VERSION, seat=peer.seat, token=token, table=table))
        if self.game.outcome is not None:
            peer.push(self._game_over_frame())
        self._broadcast_lobby()
        self._record_players()
        self._maybe_start()
        log.info("peer %d (%s) joined as %s", peer.id, hello.name, "spectator" if seat is None else f"seat {seat.index}")
        return peer

    def _drop(self, peer: Peer) -> None:
        peer.gone = True
        if peer in self.peers:
            self.peers.remove(peer)
            if peer.seat is not None and self.seats[peer.seat].peer is peer:
                self.seats[peer.seat].peer = None
                self.seats[peer.seat].away_since = trio.current_time()
            self._broadcast_lobby()

    # ---- away players -----------------------------------------------------

    def _away_seat(self, index: int) -> Seat:
        if not 0 <= index < len(self.seats) or not self.seats[index].away:
            raise ValueError(f"seat {index + 1} has no away player")
        return self.seats[index]

    def hand_to_bot(self, index: int, kind: str | None = None) -> None:
        """Let a bot play an away player's turns until they come back with their token."""
        seat = self._away_seat(index)
        if seat.stand_in is None:
            seed = self.bot_seed * 1009 + index
            try:
                seat.stand_in = make_bot(kind or self.stand_in_kind, self.game.setup.mode, seed)
            except (ImportError, ValueError):  # a mode without that kind of bot: every mode has "random"
                seat.stand_in = make_bot("random", self.game.setup.mode, seed)
            log.info("seat %d (%s) is away; a bot plays it until they return", index, seat.name)
            self._broadcast_lobby()
            self._wake()

    def free_seat(self, index: int) -> None:
        """Give an away player's seat up: their token stops working, a new joiner may take it."""
        seat = self._away_seat(index)
        log.info("seat %d (%s) freed for a new player", index, seat.name)
        seat.kind, seat.name, seat.token, seat.token_hash, seat.stand_in, seat.away_since = "open", None, None, None, None, None
        self._broadcast_lobby()
        self._record_players()

    async def _away_watch(self, after: float) -> None:
        """`away_bot`: a seat away for `after` seconds is handed to a bot (a headless host has no dialog)."""
        while True:
            now = trio.current_time()
            for seat in self.seats:
                if not seat.away or seat.stand_in is not None:
                    continue
                if seat.away_since is None:
                    seat.away_since = now  # restored from a save: away from the moment we listen
                elif now - seat.away_since >= after:
                    self.hand_to_bot(seat.index)
            await trio.sleep(min(1.0, max(0.05, after / 4)))

    async def _run_peer(self, stream: trio.SocketStream, peer: Peer, decoder: FrameDecoder, early: list[Any]) -> None:
        with peer.scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._sender, stream, peer)
                try:
                    for item in early:
                        await self._on_frame(peer, item)
                    await self._receiver(stream, peer, decoder)
                finally:
                    # Let the sender flush what is queued (e.g. a fatal error), but not for long.
                    peer.send.close()
                    nursery.cancel_scope.deadline = trio.current_time() + 2

    async def _sender(self, stream: trio.SocketStream, peer: Peer) -> None:
        async for frame in peer.recv:
            await stream.send_all(frame)
        if peer.gone:
            peer.scope.cancel()  # `close_with`: the last frame is out, end the connection now

    async def _receiver(self, stream: trio.SocketStream, peer: Peer, decoder: FrameDecoder) -> None:
        while not peer.gone:
            data = await stream.receive_some(RECV_CHUNK)
            if not data:
                return
            try:
                items = decoder.feed(data)
            except FrameTooLarge as exc:
                await peer.answer(self._error_frame(exc.code, exc.reason, fatal=True))
                return
            for item in items:
                if not await self._on_frame(peer, item):
                    return

    async def _on_frame(self, peer: Peer, item: Any) -> bool:
        """Handle one decoded frame; False when the connection should end."""
        try:
            if isinstance(item, FrameError):
                raise item
            msg = parse_to_host(item)
        except (FrameError, ProtocolError) as exc:
            peer.bad_frames += 1
            fatal = peer.bad_frames > MAX_BAD_FRAMES
            await peer.answer(self._error_frame(exc.code, exc.reason, fatal=fatal, details=getattr(exc, "details", None)))
            return not fatal
        if isinstance(msg, CommandMsg):
            if peer.seat is None:
                await peer.answer(self._rejected(msg.seq, "spectator", "spectators watch; they cannot act"))
            elif not self.started.is_set():
                await peer.answer(self._rejected(msg.seq, "not_started", "the game has not started yet"))
            else:
                await self._cmd_send.send((peer, msg))
        elif isinstance(msg, SnapshotRequest):
            await peer.answer(self._snapshot_frame("snapshot", peer))
        elif isinstance(msg, Chat):
            self._broadcast(encode_frame(Chat(text=msg.text, name=peer.name, seat=peer.seat).wire()))
        elif isinstance(msg, Ping):
            await peer.answer(encode_frame(Pong(n=msg.n).wire()))
        elif isinstance(msg, Hello):
            await peer.answer(self._error_frame("unexpected_message", "already said hello"))
        return True

    @staticmethod
    def _rejected(seq: int, code: str, reason: str) -> bytes:
        return encode_frame({"t": "rejected", "seq": seq, "code": code, "reason": reason})
