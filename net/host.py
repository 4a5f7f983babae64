"""The trio host: owns the one true `Game`, guards seats and hidden information.

Shape (see DESIGN.md "Protocol"):

* One task (`_game_loop`) applies every command, fed by a channel, so trio's
  deliberate task-order shuffling can never interleave two mutations.
* Each connection runs in its own task, isolated with ``except*``: whatever a
  peer sends, only that connection ends. Its outgoing frames go through an
  `Outbox`: game frames are never dropped, chat is dropped for a peer that
  lags, lobby updates coalesce, and only a peer that is itself not reading is
  evicted (it may reconnect with its token). Answers to a peer's own requests
  and bad frames wait for room in its own outbox, so only a flooder is slowed.
* What a connection may cost is bounded (`net.limits`, `net.gate`): a tiny
  first frame and a hello deadline before trust, small frames and a frame rate
  after it, an idle deadline with a ping, caps per address and in all, a
  growing wait after wrong table codes. Names and chat are cleaned
  (`net.textclean`) before anyone else sees them.
* Saves (`net.autosave`) are written after commands and seat changes only, in a
  worker thread; a full disk is a warning and the game goes on.
* Peers only ever receive `Game.view(seat)` (as a welcome/snapshot or as a
  delta against the last view sent), events (and, after a welcome, a bounded
  recap of the latest: `net.recap`), the commands applied, lobby info,
  a commitment to the seed, and at the end the seed and its salt (so every peer
  can verify every roll: net/commitment.py). Tokens and the table code never
  leave except a token to its owner in `welcome`.
* A take-back (`undo`) goes through the same task as commands: the game
  refuses it unless the sender is deciding and nothing was revealed since;
  the log is cut back to the game as it now stands and every peer gets a delta.
* A person's seat without a connection is *away*: it stays theirs (their token
  brings them back, even past a changed table code). The table waits for it,
  unless the host hands it to a stand-in bot (`hand_to_bot`, or by itself after
  `away_bot` seconds) or frees it for someone new (`free_seat`).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal, Protocol

import trio

from cthulhu.core import Command, Rejected, modes
from cthulhu.core.bots import make_bot
from cthulhu.core.search import SearchBot
from cthulhu.savegame import STAND_IN_LINE

from .autosave import HostSave
from .broadcast import Views
from .clock import ClockState, MoveBegins, StandInMove, resumed, started as clock_started
from .commitment import public_setup
from .frames import FrameDecoder, FrameError, FrameTooLarge, encode_frame
from .gate import CROWDED, Gate, Quiet, Refusal
from .history import Record
from .invite import new_seat_token
from .limits import TokenBucket
from .listen import Doorstep, read_hello, refuse, serve_listeners
from .log import CommandLog
from .messages import (
    PROTOCOL_VERSION,
    Back,
    Chat,
    Clock,
    CommandMsg,
    CreateTable,
    Error,
    GameOverMsg,
    Hello,
    ListTables,
    Lobby,
    Ping,
    Pong,
    ProtocolError,
    Rejected as RejectedMsg,
    SeatInfo,
    SnapshotRequest,
    Table,
    UnexpectedMessage,
    Undo,
    Welcome,
    parse_to_host,
)
from .outbox import Outbox
from .recap import Recap
from .table import Opened, TableSpec
from .thinking import decide_off_loop
from .textclean import clean_chat, clean_name

log = logging.getLogger(__name__)

MAX_BAD_FRAMES = 50  # a peer that keeps sending garbage is closed (a repeated hello counts)


def _hash_matches(token: str | None, token_hash: str | None) -> bool:
    if token is None or token_hash is None:
        return False
    from cthulhu.savegame.writer import token_matches

    return token_matches(token, token_hash)


def _same_secret(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return False
    return hmac.compare_digest(a.encode(), b.encode())


@dataclass(eq=False)
class Peer:
    """One connection: its seat (None: spectator), where it comes from, and its outbox."""

    id: int
    name: str
    seat: int | None
    outbox: Outbox
    address: str = "?"
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    gone: bool = False
    bad_frames: int = 0
    chat: TokenBucket | None = None
    frames: TokenBucket | None = None
    warned_chat: float = -1e18
    quiet: Quiet | None = None  # the host's rate-limited warnings

    async def answer(self, frame: bytes) -> None:
        """Queue an answer to this peer's own message, waiting for room (slows only this peer)."""
        if self.gone or self.outbox.closed:
            return
        if not await self.outbox.put_answer(frame) and not (self.gone or self.outbox.closed):
            self._not_reading()

    def push(self, frame: bytes) -> bool:
        """Queue a game frame without waiting; False (and the peer is closed) if it has stopped reading."""
        if self.gone or self.outbox.closed:
            return False  # on its way out already
        if self.outbox.put(frame):
            return True
        self._not_reading()
        return False

    def warn(self, kind: str, message: str, *args: object) -> None:
        """A WARNING about this peer (a flood of the same kind is one line and a count)."""
        message = "peer %d (%s) at %s " + message
        if self.quiet is not None:
            self.quiet.warn(kind, trio.current_time(), message, self.id, self.name, self.address, *args)
        else:
            log.warning(message, self.id, self.name, self.address, *args)

    def _not_reading(self) -> None:
        self.warn("not reading", "is not reading (%d bytes waiting); disconnected it", self.outbox.backlog)
        self.close()

    def close(self) -> None:
        self.gone = True
        self.scope.cancel()

    def close_with(self, frame: bytes, grace: float = 2.0) -> None:
        """Send a last (fatal) frame, then close: it gets `grace` seconds to leave."""
        if not self.gone and not self.outbox.closed:
            self.outbox.put(frame)
            self.outbox.close()  # the sender ends once the frame is out
        self.gone = True
        self.scope.deadline = min(self.scope.deadline, trio.current_time() + grace)


class HostEvents(Protocol):
    """What a table tells whoever keeps records of it (a server's lobby and store). Called inside
    the table's trio tasks, never awaited: each must only note what happened."""

    def admitted(self, peer: Peer, hello: Hello) -> None:
        """`peer` was welcomed (to `peer.seat`, or to watch) for this hello."""

    def left(self, peer: Peer) -> None:
        """`peer`'s connection ended."""

    def changed(self) -> None:
        """The game moved on, or the seats or the start changed."""

    def move_begins(self, move: MoveBegins) -> None:
        """A person's seat must now decide (on a turn-based table, with its clock's deadline)."""

    def stood_in(self, move: StandInMove) -> None:
        """A bot decided for a person's seat (their stand-in, or their clock's skip)."""

    def seen(self, hello: Hello) -> int | None:
        """The last step this hello's person was told at this table (None: not known here; the
        host's memory of a seat token is used)."""


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
    away_since: float | None = None  # trio clock; for `away_bot`
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


class Host:
    """Serve one table to its peers: the game, its seats and bots, its record and its limits.

    Built by `net.table.open_table` from a `TableSpec` (nothing else builds one), then served on
    TCP (`serve`) or on any stream (`handle`). `bots` seats are played inside the host; with
    `autostart` the game starts as soon as no seat is open; every hello must present `code`
    (None: an open table). `saves.on_trouble(reason or None)` hears when saving fails and works again.
    """

    def __init__(self, spec: TableSpec, opened: Opened, *, gate: Gate | None = None) -> None:
        """`gate`: the admission this table shares with others (a server's, so that its limits per
        address hold across all its tables); by default the table's own."""
        game = opened.game
        self.spec = spec
        self.game = game
        # Seats this process's own terminal plays (`cthulhu play`, the hosting player's; set by the
        # terminal that opened the table): taking them is no reason to write a save before the first
        # command; anyone else's seat is (their token must outlive a crash).
        self.own_seats: frozenset[int] = frozenset()
        self.code = opened.code
        self.table_id = opened.table_id
        self.bot_seed = game.setup.seed if spec.bot_seed is None else spec.bot_seed
        self.thinking = spec.thinking  # how long search bots think per decision (off the loop)
        self.log: CommandLog = opened.log
        self.saves = HostSave(opened.writer, fsync=spec.save is None or spec.save.fsync)
        self.warning = opened.warning  # for whoever opened the table (a saves folder it could not write)
        # The commitment every welcome carries: the save's own (it outlives this process), else a new one.
        self.dice = opened.dice
        # Every command so far, for peers that join mid-game to verify from the setup (None: unknown).
        record = self.log.commands()
        self.record: Record | None = Record(record) if len(record) == game.step else None
        # The story so far, for every welcome: replayed from the commands (a loaded game), else from now on.
        self.recap = Recap.replayed(game, self.record, sealed=self.log.sealed) if self.record is not None else Recap()
        self._recap_frame: tuple[tuple[int, int], bytes] | None = None  # ((recap version, step), its frame)
        self.limits = spec.limits
        self.gate = gate if gate is not None else Gate(self.limits, trio.current_time)
        self.seats = [Seat(i) for i in range(game.setup.players)]
        mode = modes.get(game.setup.mode)
        for index, kind in spec.bots.items():
            self._seat_bot(self.seats[index], kind)
        for player in opened.players:  # seats of a loaded save: their owners reclaim them by token
            saved = self.seats[player.seat] if 0 <= player.seat < len(self.seats) else None
            if saved is None or saved.kind != "open":
                continue
            if player.token_hash:
                saved.kind, saved.name, saved.token_hash = "human", clean_name(player.name) or "player", player.token_hash
            elif player.bot in mode.bot_kinds:
                self._seat_bot(saved, player.bot)
        self.peers: list[Peer] = []
        self.seq = 0  # deltas broadcast so far; a view at `seq` is what every peer holds
        self.views = Views(game)  # the last view sent, one per projection (seats that see the same share it)
        self.told = game.step  # the step every peer has been told of (so on disk): what a server's lobby lists
        self.started = trio.Event()
        self.finished = trio.Event()
        # Unset while a step is applied but not yet saved and told: welcomes wait for it (`_told`).
        self._settled = trio.Event()
        self._settled.set()
        self.port: int | None = None
        self.crashes = 0  # connections that ended with an unexpected exception (tests assert 0)
        self.closing = False  # `close_table` has begun: the connections ending now are not seat news
        self.on_delta: Callable[[int, int | None, str], None] | None = None  # (seq, seat or None, view hash): tests, figures
        self.events: HostEvents | None = None  # a server's records follow the table through these
        self.pace = spec.pace
        self.wall: Callable[[], datetime] = lambda: datetime.now(timezone.utc)  # a server gives its own (tests: a fixed one)
        self.clock: ClockState | None = None  # the decision whose clock runs (or ran out: `paused`); turn-based only
        self.kept_clock: dict[str, Any] | None = None  # a server's record of the clock before a restart (`ClockState.saved`)
        self._deciding: tuple[int, int] | None = None  # (seat, step) of the person's decision told last (`move_begins`)
        self._decision_dirty = trio.Event()
        self._next_peer = 0
        self._recorded: list[dict[str, Any]] | None = None  # the seats as last handed to the log
        self._lobby_dirty = trio.Event()
        self._cmd_send, self._cmd_recv = trio.open_memory_channel[tuple[Peer | None, CommandMsg | Undo | _ClockOut | None]](64)
        if game.outcome is not None:
            self.finished.set()

    @property
    def stand_in_kind(self) -> str:
        return self.spec.stand_ins.kind or modes.get(self.game.setup.mode).default_bot

    def _seat_bot(self, seat: Seat, kind: str) -> None:
        seat.kind, seat.name, seat.bot_kind = "bot", f"{kind} bot", kind
        seat.bot = make_bot(kind, self.game.setup.mode, self.bot_seed * 1009 + seat.index)

    # ---- lifecycle --------------------------------------------------------

    async def serve(
        self, port: int = 0, bind: str = "127.0.0.1", *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Listen on TCP and run the table until cancelled; `task_status.started(port)`."""
        listeners = await trio.open_tcp_listeners(port, host=bind)
        self.port = listeners[0].socket.getsockname()[1]
        full = self._error_frame("host_full", "the host has no room for more connections", fatal=True)
        await serve_listeners(listeners, Doorstep(self.limits, self.gate), self.run, self._accepted, full, task_status=task_status)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The table's own tasks until cancelled: the game loop, the lobby news, the away watch.
        `serve` runs them beside its listeners; anything else that has streams (a test's in-memory
        pairs, a server of many tables) runs them and hands each connection to `handle`."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._game_loop)
            nursery.start_soon(self._lobby_loop)
            if self.spec.stand_ins.after is not None:
                nursery.start_soon(self._away_watch, self.spec.stand_ins.after)
            nursery.start_soon(self._clock_loop)
            self._maybe_start()
            task_status.started()

    def start(self) -> None:
        """Start play (a lobby's "start" button; headless hosts start when every seat is taken)."""
        if not self.started.is_set():
            self.started.set()
            self._broadcast_lobby()

    def _maybe_start(self, *, quietly: bool = False) -> None:
        """Start once no seat is open. `quietly`: only mark it started (a welcome being written
        says so itself, and the lobby broadcast after it tells everyone else)."""
        if self.spec.autostart and all(s.kind != "open" for s in self.seats):
            if quietly:
                self.started.set()
            else:
                self.start()

    async def close_table(self, grace: float = 1.0) -> None:
        """The host closes the table on purpose (quit, Ctrl+C, SIGTERM): every peer is told so, in a
        fatal `host_closed` error, before its connection ends (a joiner then stops reconnecting and
        says why, instead of "connection lost"). Waits at most `grace` seconds for the words to leave."""
        if self.game.outcome is not None:
            return  # the ending was the last word
        self.closing = True
        saved = self.saves.enabled and self.saves.path is not None
        reason = ("the host closed the table; it is saved, and the same join command takes your seat back "
                  "when it is open again") if saved else "the host closed the table"
        frame = self._error_frame("host_closed", reason, fatal=True, details=["saved"] if saved else None)
        for peer in list(self.peers):
            peer.close_with(frame, grace)
        with trio.move_on_after(grace):
            while self.peers:  # each leaves once its last frame is out
                await trio.sleep(0.01)

    def flush_log(self) -> bool:
        """Write the save now, fsynced, from any thread (the final save). False if the disk refused (reported once)."""
        return self.saves.save_blocking()

    def _record_players(self) -> bool:
        """Tell the log who sits where (token hashes only). True if that changed anything."""
        from cthulhu.savegame.writer import hash_token

        players = [
            {"seat": s.index, "name": s.name or "", "token_hash": hash_token(s.token) if s.token else s.token_hash, "bot": s.bot_kind}
            for s in self.seats
            if s.kind != "open"
        ]
        if players == self._recorded:
            return False
        self._recorded = players
        self.log.set_players(players)
        return True

    def table(self) -> Table:
        return Table(
            id=self.table_id,
            mode=self.game.setup.mode,
            seats=[s.info() for s in self.seats],
            started=self.started.is_set(),
            spectators=sum(1 for p in self.peers if p.seat is None),
            clock=self.clock_info(),
        )

    def clock_info(self) -> Clock | None:
        """The turn clock as peers see it (None: a live table)."""
        if self.pace.turn_time is None:
            return None
        c = self.clock
        left = c.left(trio.current_time()) if c is not None else None
        return Clock(turn_time=int(self.pace.turn_time), on_timeout=self.pace.on_timeout, seat=c.seat if c is not None else None,
                     deadline=c.deadline.isoformat(timespec="seconds") if c is not None and c.deadline is not None else None,
                     left_ms=None if left is None else int(left * 1000), paused=c is not None and c.paused)

    # ---- the one task that mutates the game -------------------------------

    async def _game_loop(self) -> None:
        await self.started.wait()
        await self._play_bots()
        async for peer, msg in self._cmd_recv:
            if isinstance(msg, _ClockOut):
                await self._clock_out(msg)
            elif peer is not None and msg is not None:  # (None, None): seats changed, a bot may have a turn to play
                if isinstance(msg, Undo):
                    await self._undo_from_peer(peer, msg)
                else:
                    await self._apply_from_peer(peer, msg)
            elif self._record_players():  # a seat was freed: on disk before anyone takes it
                await self.saves.save()
            await self._play_bots()

    def _wake(self) -> None:
        try:
            self._cmd_send.send_nowait((None, None))
        except trio.WouldBlock:
            pass  # commands are queued: the loop plays bots after each of them anyway

    async def _play_bots(self) -> None:
        while self.game.outcome is None:
            prompt = self.game.prompt
            if prompt is None:
                return
            if self.seats[prompt.seat].player is None:
                return
            await self.bot_pause()
            prompt = self.game.prompt
            if prompt is None or self.game.outcome is not None:
                return
            bot = self.seats[prompt.seat].player
            if bot is None:
                return  # the seat changed hands while the bot waited
            if isinstance(bot, SearchBot):
                # It thinks in a worker thread: the loop goes on serving everyone meanwhile.
                command = await decide_off_loop(bot, self.game, prompt.seat, self.thinking)
                if self.seats[prompt.seat].player is not bot:
                    continue  # its player came back while it thought: the move is theirs to make
            else:
                command = bot.choose(self.game, prompt.seat)
            seat = self.seats[prompt.seat]
            why: StandInWhy | None = None if seat.kind != "human" else "clock" if seat.clocked_out else "away"
            await self._apply(prompt.seat, command, prompt.version, stand_in=why)

    async def bot_pause(self) -> None:
        """The wait before each bot move, not after it: people see the move that came before it
        (a person's too), at a pace they can follow (`TableSpec.bot_delay`)."""
        await trio.sleep(self.spec.bot_delay)

    async def _apply_from_peer(self, peer: Peer, msg: CommandMsg) -> None:
        if peer.gone or peer.seat is None or self.seats[peer.seat].peer is not peer:
            return  # replaced by a reconnect (or evicted) while the command waited in the channel
        try:
            command = Command.from_wire(msg.command)
            await self._apply(peer.seat, command, msg.version)
        except Rejected as exc:
            peer.push(self._rejected(msg.seq, exc.code, exc.reason))
        except Exception:  # a bug in the rules must not take the whole table down with it
            log.exception("applying a command from seat %s failed", peer.seat)
            peer.push(self._error_frame("internal_error", "the host failed to apply that command"))

    async def _apply(self, seat: int, command: Command, version: int | None, *, stand_in: StandInWhy | None = None) -> None:
        """Apply, save (off the event loop), then tell every peer: a step anyone saw is on disk.
        `stand_in`: a bot decided for a person (away, or out of time), who may not take that back."""
        self._settled = trio.Event()
        try:
            await self._apply_and_tell(seat, command, version, stand_in)
        finally:
            self._settled.set()

    async def _apply_and_tell(self, seat: int, command: Command, version: int | None, stand_in: StandInWhy | None) -> None:
        events = self.game.apply(seat, command, version)  # Rejected propagates; nothing changed
        if stand_in:
            self.game.seal_undo(STAND_IN_LINE)
        wire = command.wire()
        try:
            self.log.append(seat, wire, self.game.state_hash())
            if stand_in:
                self.log.seal(self.game.step)  # in the same write: a reload draws the same line
        except Exception:  # a log that cannot follow the game is a bug: say so, keep playing
            log.exception("could not record step %d in the command log", self.game.step)
        else:
            await self.saves.save()  # a full disk is reported once and retried with the next step
        if self.record is not None:
            self.record.append(seat, wire)
        told = [e.wire() for e in events]
        self.recap.add(self.game.step, told, stand_in=seat if stand_in is not None else None)
        self._broadcast_delta(told, [seat, wire], stand_in=stand_in is not None)
        if stand_in is not None and self.events is not None:
            self.events.stood_in(StandInMove(seat, self.seats[seat].name, self.game.step, wire, stand_in))
        if self.game.outcome is not None:
            self._broadcast_game_over()

    async def _undo_from_peer(self, peer: Peer, msg: Undo) -> None:
        """A take-back from the deciding seat: the game decides whether it may; the log follows."""
        if peer.gone or peer.seat is None or self.seats[peer.seat].peer is not peer:
            return
        self._settled = trio.Event()
        try:
            await self._undo_and_tell(peer, msg)
        finally:
            self._settled.set()

    async def _undo_and_tell(self, peer: Peer, msg: Undo) -> None:
        assert peer.seat is not None
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
        except Exception:  # a log that cannot follow the game is a bug: say so, keep playing
            log.exception("could not cut the command log back to step %d", step)
        else:
            await self.saves.save()  # the save holds the game as it now stands before anyone hears of it
        if self.record is not None:
            self.record.cut(step)
        self.recap.cut(step)
        self._broadcast_delta([e.wire() for e in events], None)

    # ---- broadcasting -----------------------------------------------------

    def _broadcast_delta(self, events: list[dict[str, Any]], cmd: list[Any] | None, *, stand_in: bool = False) -> None:
        self.seq += 1
        self.told = self.game.step
        self._decision_dirty.set()
        if self.events is not None:
            self.events.changed()
        seats = {peer.seat: None for peer in self.peers}  # in order; None: spectators
        frames = self.views.delta(seats, self.seq, events, cmd, stand_in=stand_in)
        if self.on_delta is not None:
            for seat, (digest, _frame) in frames.items():
                self.on_delta(self.seq, seat, digest)
        for peer in self.peers:
            peer.push(frames[peer.seat][1])

    def _broadcast(self, frame: bytes) -> None:
        """A game frame to everyone (never dropped)."""
        for peer in list(self.peers):
            peer.push(frame)

    def _broadcast_lobby(self) -> None:
        """Seats or spectators changed: the lobby task tells everyone, many changes in one frame."""
        self._lobby_dirty.set()
        self._decision_dirty.set()
        if self.events is not None:
            self.events.changed()

    async def _lobby_loop(self) -> None:
        while True:
            await self._lobby_dirty.wait()
            self._lobby_dirty = trio.Event()
            frame = encode_frame(Lobby(table=self.table()).wire())
            for peer in self.peers:
                if not peer.gone:
                    peer.outbox.put_lobby(frame)
            await trio.sleep(self.limits.lobby_interval)

    def _broadcast_chat(self, frame: bytes) -> None:
        for peer in self.peers:
            if not peer.gone:
                peer.outbox.put_chat(frame)  # dropped for a peer that lags, never a reason to evict

    def _game_over_frame(self) -> bytes:
        g = self.game
        return encode_frame(GameOverMsg(outcome=g.outcome, seed=g.setup.seed, step=g.step, state_hash=g.state_hash(), salt=self.dice.salt.hex()).wire())

    def _recap(self) -> bytes:
        """The `recap` frame of the story so far, built once for each change of it (joins come in floods)."""
        key = (self.recap.version, self.game.step)
        if self._recap_frame is None or self._recap_frame[0] != key:
            self._recap_frame = (key, self.recap.frame(self.game.step))
        return self._recap_frame[1]

    def _broadcast_game_over(self) -> None:
        self._broadcast(self._game_over_frame())
        self.finished.set()

    def _welcome_frame(self, peer: Peer, token: str | None) -> bytes:
        """The peer's seat and token, the table, the view and the commitment; at step 0 also the
        events of the setup itself (dealing, placing), so every seat can tell how the game began."""
        sent = self.views.now(peer.seat)
        g = self.game
        opening = [e.wire() for e in g.start_events] if g.step == 0 else []
        welcome = Welcome(proto=PROTOCOL_VERSION, seat=peer.seat, token=token, table=self.table(), seq=self.seq, view=sent.view,
                          hash=sent.hash, commit=self.dice.commit, setup=public_setup(g.setup), events=opening)
        return encode_frame(welcome.wire())

    # ---- the turn clock ---------------------------------------------------

    def _person_deciding(self) -> tuple[int, int] | None:
        """(seat, step) when a person's seat must decide and no bot plays it; else None."""
        game = self.game
        if game.outcome is not None or not self.started.is_set():
            return None
        prompt = game.prompt
        if prompt is None or not 0 <= prompt.seat < len(self.seats):
            return None
        seat = self.seats[prompt.seat]
        if seat.kind != "human" or seat.player is not None:
            return None
        return prompt.seat, game.step

    def _follow_decision(self) -> None:
        """A person's decision began (tell the owner; start its clock), or none is under way (stop it)."""
        now = self._person_deciding()
        if now == self._deciding:
            return
        self._deciding = now
        if now is None:
            if self.clock is not None:
                self.clock = None
                self._lobby_dirty.set()
            return
        seat, step = now
        if self.pace.turn_time is not None:
            t, wall = trio.current_time(), self.wall()
            kept, self.kept_clock = self.kept_clock, None
            self.clock = resumed(kept, seat, step, t, wall) or clock_started(seat, step, self.pace.turn_time, t, wall)
            self._lobby_dirty.set()
        if self.events is not None:
            turn = modes.get(self.game.setup.mode).summary
            number = turn(self.game).get("turn") if turn is not None else None
            deadline = self.clock.deadline if self.clock is not None else None
            self.events.move_begins(MoveBegins(seat, self.seats[seat].name, step, number if isinstance(number, int) else None, deadline))

    async def _clock_loop(self) -> None:
        """Follow who must decide; when a clock runs out, the game loop applies the table's policy."""
        while True:
            self._decision_dirty = trio.Event()
            self._follow_decision()
            clock = self.clock
            due = clock.due if clock is not None and not clock.paused else None
            with trio.move_on_at(due if due is not None else float("inf")):
                await self._decision_dirty.wait()
            if clock is not None and due is not None and trio.current_time() >= due and clock is self.clock:
                await self._cmd_send.send((None, _ClockOut(clock.seat, clock.step)))
                while self.clock is clock and not clock.paused and not self._decision_dirty.is_set():
                    await self._decision_dirty.wait()  # the game loop takes it from here

    async def _clock_out(self, out: "_ClockOut") -> None:
        """In the game loop: the clock of `out` ran out; if that decision is still waiting, the policy."""
        if self._person_deciding() != (out.seat, out.step) or self.clock is None:
            return
        seat = self.seats[out.seat]
        policy = self.pace.on_timeout
        log.info("seat %d (%s) ran out of time at step %d: %s", out.seat + 1, seat.name, out.step, policy)
        if policy == "pause":
            self.clock.paused, self.clock.due, self.clock.deadline = True, None, None
            self._broadcast_lobby()
            return
        bot = make_bot(self.stand_in_kind, self.game.setup.mode, self.bot_seed * 1009 + out.seat)
        if policy == "skip":
            prompt = self.game.prompt
            assert prompt is not None
            skips = modes.get(self.game.setup.mode).skips
            passes = [o.command for o in prompt.options if o.command.kind in skips]
            # No pass among the legal choices (the rules ask for a real one): the stand-in makes this one.
            command = passes[0] if passes else bot.choose(self.game, out.seat)
            await self._apply(out.seat, command, prompt.version, stand_in="skip")
            return
        seat.stand_in, seat.clocked_out = bot, True
        self._broadcast_lobby()  # its seat shows the stand-in; the loop plays it next

    def _back(self, peer: Peer) -> None:
        """`back`: a connected player whose clock ran out takes their seat from its stand-in."""
        if peer.seat is None or self.seats[peer.seat].peer is not peer:
            return
        seat = self.seats[peer.seat]
        if seat.clocked_out:
            seat.stand_in, seat.clocked_out = None, False
            log.info("%s is back at seat %d; the stand-in leaves", seat.name, seat.index + 1)
            self._broadcast_lobby()

    # ---- connections ------------------------------------------------------

    async def _accepted(self, stream: trio.SocketStream, first: bytes) -> None:
        await self.handle(stream, _address_of(stream), first)

    async def handle(self, stream: trio.abc.Stream, address: str, first: bytes = b"") -> None:
        """One connection from `address` (what the per-address limits count), on any stream, until
        it ends; isolated: no exception from it reaches the caller. The table must be running.
        `first`: what it has sent already (a TCP connection's whole first frame, read while it
        waited on the doorstep: `net.listen`)."""
        peer: Peer | None = None
        try:
            async with stream:
                refusal = self.gate.connect(address)
                if refusal is not None:
                    await self._refuse_now(stream, refusal)
                    return
                try:
                    admitted = await self._handshake(stream, address, first)
                    if admitted is not None:
                        peer, decoder, seat_changed = admitted
                        if seat_changed:
                            # The welcome holds a seat token: it leaves only once the seat is on disk.
                            await self.saves.save()
                        await self._run_peer(stream, peer, decoder)
                finally:
                    self.gate.disconnect(address)
        except* (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError):
            pass  # the peer went away, or we closed it
        except* Exception:
            self.crashes += 1
            log.exception("connection %s crashed", peer.id if peer else "?")
        finally:
            if peer is not None:
                self._drop(peer)

    async def _told(self) -> None:
        """Until the game is where every peer has been told it is: a welcome (built without a
        checkpoint from here on) never shows a step whose save is still being written."""
        while not self._settled.is_set():
            await self._settled.wait()

    async def _send_now(self, stream: trio.abc.Stream, frame: bytes) -> None:
        """Before a peer has a queue, a fatal refusal: sent directly, then the connection is closed."""
        await refuse(stream, frame)

    async def _refuse_now(self, stream: trio.abc.Stream, refusal: Refusal) -> None:
        await self._send_now(stream, self._error_frame(refusal.code, refusal.reason, fatal=True))

    @staticmethod
    def _error_frame(code: str, reason: str, *, fatal: bool = False, details: list[str] | None = None) -> bytes:
        return encode_frame(Error(code=code, reason=reason, fatal=fatal, details=details or []).wire())

    async def _handshake(self, stream: trio.abc.Stream, address: str, first: bytes) -> tuple[Peer, FrameDecoder, bool] | None:
        """The first frame (already in `first`, or read within the hello deadline: `read_hello`);
        admit it or refuse it."""
        got = await read_hello(stream, address, first, self.limits, self.gate)
        if got is None:
            return None
        hello, decoder = got
        refusal = self.gate.hello(address) or self._refuse(hello, address)  # the gate logs its own
        if refusal is not None:
            await self._refuse_now(stream, refusal)
            return None
        decoder.limits = self.limits.peer_frame  # trusted a little more from now on
        await self._told()
        peer, seat_changed = self._admit(hello, address)
        return peer, decoder, seat_changed

    def _refuse(self, hello: Hello, address: str) -> Refusal | None:
        """Why this hello may not sit down (logged, a flood of the same in one line), or None."""
        # A valid seat token is the stronger secret: its owner comes back even to a host
        # restarted with another table code.
        owner = hello.token is not None and self._seat_for_token(hello) is not None
        if hello.proto != PROTOCOL_VERSION:
            refusal = Refusal("protocol_version", f"this host speaks protocol {PROTOCOL_VERSION}, not {hello.proto}")
        elif hello.lobby:
            refusal = Refusal("not_a_server", "this host serves one table and has no lobby; join it without --table")
        elif hello.table is not None and hello.table != self.table_id:
            refusal = Refusal("no_such_table", "this host serves one table, and not that one; join it without --table")
        elif not owner and self.code is not None and not _same_secret(hello.code, self.code):
            self.gate.wrong_code(address)  # counts, throttles and logs
            return Refusal("bad_code", "wrong table code")
        elif not clean_name(hello.name):
            refusal = Refusal("bad_name", "a name needs at least one printable character")
        elif hello.token is not None and not owner:
            refusal = Refusal("bad_token", "that seat token is not valid here")
        elif self._would_watch(hello) and sum(1 for p in self.peers if p.seat is None) >= self.limits.max_spectators:
            refusal = Refusal("table_full", "no room for more spectators at this table")
        else:
            if self.code is not None:
                self.gate.right_code(address)
            return None
        self.gate.quiet.warn(f"hello {refusal.code}", trio.current_time(), "refused a hello from %s: %s", address, refusal.reason)
        return refusal

    def _would_watch(self, hello: Hello) -> bool:
        return hello.token is None and (hello.watch or not any(s.kind == "open" for s in self.seats))

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

    def _admit(self, hello: Hello, address: str = "?") -> tuple[Peer, bool]:
        """Give the hello a seat (or a spectator place) and queue its welcome. No await in here,
        so the welcome's view and `seq` are exactly what the next delta starts from.
        Returns the peer and whether the seats changed (then they must be saved)."""
        name = clean_name(hello.name)
        token: str | None = None
        seat: Seat | None = None
        if hello.token is not None:
            seat = self._seat_for_token(hello)
            assert seat is not None
            if seat.peer is not None:  # the rightful owner is back; the old connection is stale
                stale, seat.peer = seat.peer, None  # (so the seat is not "left": its owner is here)
                stale.close_with(self._error_frame("replaced", "your seat was taken back with its token from another connection", fatal=True))
                self._drop(stale)
            seat.stand_in = seat.away_since = None  # back: their stand-in, if any, leaves the seat
            seat.clocked_out = False
            token = seat.token
        elif not hello.watch:
            open_seats = [s for s in self.seats if s.kind == "open"]
            wanted = [s for s in open_seats if s.index == hello.seat]
            if wanted or open_seats:
                seat = (wanted or open_seats)[0]
                seat.kind, seat.token = "human", new_seat_token()
                token = seat.token
        limits = self.limits
        outbox = Outbox(max_backlog=limits.max_backlog, lag_backlog=limits.lag_backlog, max_chat=limits.max_chat_queued)
        self._next_peer += 1
        now = trio.current_time()
        peer = Peer(self._next_peer, name, seat.index if seat else None, outbox, address,
                    chat=TokenBucket.of(limits.chat, now), frames=TokenBucket.of(limits.frames, now), quiet=self.gate.quiet)
        if seat is not None:
            seat.peer, seat.name = peer, name
        self.peers.append(peer)
        self._maybe_start(quietly=True)  # the last to sit down is welcomed to a game under way, not a waiting table
        peer.push(self._welcome_frame(peer, token))
        for frame in self.record.frames() if self.record is not None else ():
            peer.push(frame)
        peer.push(self._recap())
        seen = self._seen(hello, seat)
        if seen is not None and seen < self.told:
            peer.push(encode_frame(self.recap.since(seen, self.told).wire()))
        if self.game.outcome is not None:
            peer.push(self._game_over_frame())
        self._broadcast_lobby()
        if self.events is not None:
            self.events.admitted(peer, hello)
        seat_changed = seat is not None and self._record_players()
        if seat_changed and seat is not None and seat.index not in self.own_seats:
            self.saves.keep()
        if seat is not None:  # seat news, one line each (spectators come and go unlogged: they can be many)
            log.info("%s %s seat %d (from %s)", name, "is back at" if hello.token is not None else "sat down at", seat.index + 1, address)
        else:
            log.debug("peer %d (%s) at %s watches", peer.id, name, address)
        return peer, seat_changed

    def _seen(self, hello: Hello, seat: Seat | None) -> int | None:
        """The last step this hello's player saw here: the server's record of the person, else the
        seat's (its token came back), else None (new here: the recap is all the story there is)."""
        seen = self.events.seen(hello) if self.events is not None else None
        if seen is None and seat is not None and hello.token is not None:
            seen = seat.seen
        return seen

    def _drop(self, peer: Peer) -> None:
        peer.gone = True
        if peer in self.peers:
            self.peers.remove(peer)
            if self.events is not None:
                self.events.left(peer)
            if peer.seat is not None and self.seats[peer.seat].peer is peer:
                self.seats[peer.seat].peer = None
                self.seats[peer.seat].away_since = trio.current_time()
                self.seats[peer.seat].seen = self.told
                if self.game.outcome is None and not self.closing:
                    log.info("%s left seat %d; it waits for them", peer.name, peer.seat + 1)
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
            seat.stand_in = make_bot(kind or self.stand_in_kind, self.game.setup.mode, seed)
            log.info("seat %d (%s) is away; a bot plays it until they return", index, seat.name)
            self._broadcast_lobby()
            self._wake()

    def start_with_bots(self, kind: str | None = None) -> None:
        """Start before every seat is taken (the table dialog's "start now"): a bot plays each open
        seat for the whole game, as `--bots` would have."""
        if self.started.is_set():
            raise ValueError("the game has already started")
        filled = [seat.index for seat in self.seats if seat.kind == "open"]
        for index in filled:
            self._seat_bot(self.seats[index], kind or self.stand_in_kind)
        log.info("started with bots in seats %s", [n + 1 for n in filled])
        self.start()
        self._wake()  # the game loop writes the seats down and lets the bots play

    def free_seat(self, index: int) -> None:
        """Give an away player's seat up: their token stops working, a new joiner may take it."""
        seat = self._away_seat(index)
        log.info("seat %d (%s) freed for a new player", index, seat.name)
        seat.kind, seat.name, seat.token, seat.token_hash, seat.stand_in, seat.away_since, seat.seen = "open", None, None, None, None, None, None
        seat.clocked_out = False
        self._broadcast_lobby()
        self._wake()  # the game loop writes the seats down

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

    async def _run_peer(self, stream: trio.abc.Stream, peer: Peer, decoder: FrameDecoder) -> None:
        with peer.scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._sender, stream, peer)
                try:
                    await self._receiver(stream, peer, decoder)
                finally:
                    # Let the sender flush what is queued (e.g. a fatal error), but not for long.
                    peer.outbox.close()
                    nursery.cancel_scope.deadline = trio.current_time() + 2

    async def _sender(self, stream: trio.abc.Stream, peer: Peer) -> None:
        while (data := await peer.outbox.take()) is not None:
            with trio.move_on_after(self.limits.send_timeout) as stuck:
                await stream.send_all(data)
            if stuck.cancelled_caught:
                peer.warn("not reading", "read nothing for %.0f s; disconnected it", self.limits.send_timeout)
                peer.close()
                return
        if peer.gone:
            peer.scope.cancel()  # `close_with`: the last frame is out, end the connection now

    async def _receiver(self, stream: trio.abc.Stream, peer: Peer, decoder: FrameDecoder) -> None:
        """Frames in, at most `limits.frames` a second; a peer silent past the idle deadline is
        pinged, and closed if it still says nothing (bytes that never finish a frame do not count)."""
        limits = self.limits
        heard = trio.current_time()
        pinged: float | None = None
        data: bytes | bytearray = b""  # first decode what came with the hello, under the new limits
        while not peer.gone:
            try:
                items = decoder.feed(data)
            except FrameTooLarge as exc:
                await peer.answer(self._error_frame(exc.code, exc.reason, fatal=True))
                return
            if items:
                heard, pinged = trio.current_time(), None
            for item in items:
                await self._pace(peer)
                if not await self._on_frame(peer, item):
                    return
            deadline = heard + limits.idle_timeout if pinged is None else pinged + limits.pong_timeout
            with trio.move_on_at(deadline) as idle:
                data = await stream.receive_some(limits.peer_frame.frame + 4)
                if not data:
                    return
            if idle.cancelled_caught:
                data = b""
                if pinged is not None:
                    peer.warn("silent", "was silent for %.0f s; disconnected it", trio.current_time() - heard)
                    return
                pinged = trio.current_time()
                peer.push(encode_frame(Ping(n=peer.id).wire()))

    async def _pace(self, peer: Peer) -> None:
        """Spend one of the peer's frame tokens, waiting for one if it sends faster than allowed."""
        bucket = peer.frames
        if bucket is None:
            return
        while not bucket.take(trio.current_time()):
            await trio.sleep(bucket.wait(trio.current_time()))

    async def _on_frame(self, peer: Peer, item: Any) -> bool:
        """Handle one decoded frame; False when the connection should end."""
        try:
            if isinstance(item, FrameError):
                raise item
            msg = parse_to_host(item)
            if isinstance(msg, Hello):
                raise UnexpectedMessage("already said hello")
            if isinstance(msg, (ListTables, CreateTable)):
                raise UnexpectedMessage("a table has no lobby: ask the server's lobby (a hello with lobby set)")
        except (FrameError, ProtocolError) as exc:
            peer.bad_frames += 1
            fatal = peer.bad_frames > MAX_BAD_FRAMES
            if fatal:
                peer.warn("bad frames", "sent %d bad frames; disconnected it", peer.bad_frames)
            details = exc.details if isinstance(exc, ProtocolError) else None
            await peer.answer(self._error_frame(exc.code, exc.reason, fatal=fatal, details=details))
            return not fatal
        if isinstance(msg, (CommandMsg, Undo)):
            if peer.seat is None:
                await peer.answer(self._rejected(msg.seq, "spectator", "spectators watch; they cannot act"))
            elif not self.started.is_set():
                await peer.answer(self._rejected(msg.seq, "not_started", "the game has not started yet"))
            else:
                await self._cmd_send.send((peer, msg))
        elif isinstance(msg, Back):
            self._back(peer)
        elif isinstance(msg, SnapshotRequest):
            await peer.answer(self.views.snapshot(peer.seat, self.seq))
        elif isinstance(msg, Chat):
            await self._on_chat(peer, msg)
        elif isinstance(msg, Ping):
            await peer.answer(encode_frame(Pong(n=msg.n).wire()))
        return True

    async def _on_chat(self, peer: Peer, msg: Chat) -> None:
        """Relay a cleaned chat line, at most `limits.chat` a second per peer (the rest are dropped)."""
        now = trio.current_time()
        if peer.chat is not None and not peer.chat.take(now):
            if now - peer.warned_chat >= 1.0:  # one answer a second, not one per line
                peer.warned_chat = now
                await peer.answer(self._error_frame("rate_limited", "too many chat lines at once; some were not sent"))
            return
        text = clean_chat(msg.text)
        if text:
            self._broadcast_chat(encode_frame(Chat(text=text, name=peer.name, seat=peer.seat).wire()))

    @staticmethod
    def _rejected(seq: int, code: str, reason: str) -> bytes:
        return encode_frame(RejectedMsg(seq=seq, code=code, reason=reason).wire())


StandInWhy = Literal["away", "clock", "skip"]


@dataclass(frozen=True, slots=True)
class _ClockOut:
    """Into the game loop: the clock of `seat`'s decision at `step` ran out."""

    seat: int
    step: int


def _address_of(stream: trio.SocketStream) -> str:
    try:
        return str(stream.socket.getpeername()[0])
    except (OSError, IndexError, TypeError):
        return "?"
