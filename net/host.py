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
  delta against the last view sent), events, the commands applied, lobby info,
  a commitment to the seed, and at the end the seed and its salt (so every peer
  can verify every roll: net/commitment.py). Tokens and the table code never
  leave except a token to its owner in `welcome`.
* A take-back (`undo`) goes through the same task as commands: the game
  refuses it unless the sender is deciding and nothing was revealed since;
  the log is cut back to the game as it now stands and every peer gets a delta.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

import trio

from cthulhu.core import Command, Game, Rejected
from cthulhu.core.bots import make_bot

from .commitment import Dice, public_setup
from .delta import diff, view_hash
from .frames import MAX_FRAME, FrameDecoder, FrameError, FrameTooLarge, encode_frame
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
    Undo,
    parse_to_host,
)

log = logging.getLogger(__name__)

QUEUE_FRAMES = 256  # per-peer outgoing frames before a peer counts as unable to keep up
MAX_BAD_FRAMES = 50  # a peer that keeps sending garbage is closed
HELLO_TIMEOUT = 10.0
RECV_CHUNK = MAX_FRAME + 4
HISTORY_BYTES = 32 * 1024  # commands per `history` frame, well inside MAX_FRAME


def new_table_code() -> str:
    """Short enough to read out loud (8 characters from `secrets`)."""
    return secrets.token_urlsafe(6)


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


@dataclass(eq=False)
class Seat:
    index: int
    kind: Literal["open", "human", "bot"] = "open"
    name: str | None = None
    token: str | None = None  # in memory only: never logged, never broadcast
    token_hash: str | None = None  # a seat restored from a save knows only its token's hash
    bot: Any = None
    peer: Peer | None = None

    def info(self) -> SeatInfo:
        connected = self.kind == "bot" or (self.peer is not None and not self.peer.gone)
        return SeatInfo(seat=self.index, kind=self.kind, name=self.name, connected=connected)


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
        dice: Dice | None = None,
    ) -> None:
        self.game = game
        self.code = code
        self.log: CommandLog = log if log is not None else MemoryLog()
        # The commitment every welcome carries: the save's own (it outlives this process), else a new one.
        self.dice = dice or getattr(self.log, "dice", None) or Dice.new(game.setup.seed)
        # Every command so far, for peers that join mid-game to verify from the setup (None: unknown).
        record = self.log.commands() if hasattr(self.log, "commands") else []
        self.record: list[tuple[int, dict[str, Any]]] | None = list(record) if len(record) == game.step else None
        self.autostart = autostart
        self.bot_delay = bot_delay
        self.queue_frames = queue_frames
        self.hello_timeout = hello_timeout
        self.seats = [Seat(i) for i in range(game.setup.players)]
        for index, kind in (bots or {}).items():
            seat = self.seats[index]
            seat.kind, seat.name = "bot", f"{kind} bot"
            seat.bot = make_bot(kind, game.setup.mode, bot_seed * 1009 + index)
        for record in players or []:  # seats of a loaded save: their owners reclaim them by token
            seat = self.seats[record.seat] if 0 <= record.seat < len(self.seats) else None
            if seat is not None and seat.kind == "open" and record.token_hash:
                seat.kind, seat.name, seat.token_hash = "human", record.name, record.token_hash
        self.peers: list[Peer] = []
        self.seq = 0  # deltas broadcast so far; a view at `seq` is what every peer holds
        self.views: dict[int | None, dict[str, Any]] = {}  # last view sent, per seat (None: spectators)
        self.started = trio.Event()
        self.finished = trio.Event()
        self.port: int | None = None
        self.crashes = 0  # connections that ended with an unexpected exception (tests assert 0)
        self.on_delta: Any = None  # optional hook(seq, seat_or_None, view_hash) for tests and figures
        self._next_peer = 0
        self._cmd_send, self._cmd_recv = trio.open_memory_channel[tuple[Peer, CommandMsg | Undo]](64)
        if game.outcome is not None:
            self.finished.set()

    # ---- lifecycle --------------------------------------------------------

    async def serve(
        self, port: int = 0, bind: str = "127.0.0.1", *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Listen and run the table until cancelled; `task_status.started(port)`."""
        listeners = await trio.open_tcp_listeners(port, host=bind)
        self.port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._game_loop)
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
                {"seat": s.index, "name": s.name or "", "token_hash": hash_token(s.token) if s.token else s.token_hash}
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
            if isinstance(msg, Undo):
                self._undo_from_peer(peer, msg)
            else:
                self._apply_from_peer(peer, msg)
            await self._play_bots()

    async def _play_bots(self) -> None:
        while self.game.outcome is None:
            prompt = self.game.prompt
            if prompt is None or self.seats[prompt.seat].kind != "bot":
                return
            command = self.seats[prompt.seat].bot.choose(self.game, prompt.seat)
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
        wire = command.wire()
        try:
            self.log.append(seat, wire, self.game.state_hash())
        except Exception:  # e.g. a full disk: keep playing from memory, say so loudly
            log.exception("could not record step %d in the command log", self.game.step)
        if self.record is not None:
            self.record.append((seat, wire))
        self._broadcast_delta([e.wire() for e in events], [seat, wire])
        if self.game.outcome is not None:
            self._broadcast_game_over()

    def _undo_from_peer(self, peer: Peer, msg: Undo) -> None:
        """A take-back from the deciding seat: the game decides whether it may; the log follows."""
        if peer.gone or peer.seat is None or self.seats[peer.seat].peer is not peer:
            return
        try:
            events = self.game.undo(peer.seat, 1, msg.version)
        except Rejected as exc:
            peer.push(self._rejected(msg.seq, exc.code, exc.reason))
            return
        except Exception:  # a bug in the rules must not take the whole table down with it
            log.exception("taking back a decision of seat %s failed", peer.seat)
            peer.push(self._error_frame("internal_error", "the host failed to take that back"))
            return
        step = self.game.step
        try:
            self.log.truncate(step)
        except Exception:
            log.exception("could not cut the command log back to step %d", step)
        if self.record is not None:
            del self.record[step:]
        self._broadcast_delta([e.wire() for e in events], None)

    # ---- broadcasting -----------------------------------------------------

    def _broadcast_delta(self, events: list[dict[str, Any]], cmd: list[Any] | None) -> None:
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
                frame = encode_frame(
                    {"t": "delta", "seq": self.seq, "step": self.game.step, "ops": ops, "hash": digest, "events": events, "cmd": cmd}
                )
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
        return encode_frame(
            {"t": "game_over", "outcome": g.outcome, "seed": g.setup.seed, "step": g.step, "state_hash": g.state_hash(), "salt": self.dice.salt.hex()}
        )

    def _history_frames(self) -> list[bytes]:
        """The commands so far, in frames of bounded size, for a peer that joins mid-game."""
        if not self.record:
            return []
        frames, chunk, size, start = [], [], 0, 0
        for n, (seat, wire) in enumerate(self.record):
            entry = [seat, wire]
            chunk.append(entry)
            size += len(encode_frame({"t": "x", "e": entry}))
            if size >= HISTORY_BYTES or n == len(self.record) - 1:
                frames.append(encode_frame({"t": "history", "start": start, "entries": chunk}))
                start, chunk, size = n + 1, [], 0
        return frames

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
        if self.code is not None and not _same_secret(hello.code, self.code):
            return "bad_code", "wrong table code"
        if hello.token is not None and self._seat_for_token(hello) is None:
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
            if seat.peer is not None:
                seat.peer.close()  # the rightful owner is back; the old connection is stale
                self._drop(seat.peer)
            token = seat.token
        elif not hello.watch:
            open_seats = [s for s in self.seats if s.kind == "open"]
            wanted = [s for s in open_seats if s.index == hello.seat]
            if wanted or open_seats:
                seat = (wanted or open_seats)[0]
                seat.kind, seat.token = "human", secrets.token_urlsafe(24)
                token = seat.token
        send, recv = trio.open_memory_channel[bytes](self.queue_frames)
        self._next_peer += 1
        peer = Peer(self._next_peer, hello.name, seat.index if seat else None, send, recv)
        if seat is not None:
            seat.peer, seat.name = peer, hello.name
        self.peers.append(peer)
        table = self.table().model_dump()
        welcome = dict(proto=PROTOCOL_VERSION, seat=peer.seat, token=token, table=table)
        welcome.update(commit=self.dice.commit, setup=public_setup(self.game.setup))
        peer.push(self._snapshot_frame("welcome", peer, **welcome))
        for frame in self._history_frames():
            peer.push(frame)
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
            self._broadcast_lobby()

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
        if isinstance(msg, (CommandMsg, Undo)):
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
