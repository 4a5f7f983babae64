"""The trio host: owns the one true `Game`, guards seats and hidden information.

Shape (see DESIGN.md "Protocol"):

* One task (`_game_loop`) applies every command, fed by a channel, so trio's
  deliberate task-order shuffling can never interleave two mutations.
* Each connection runs in its own task, isolated, its cost bounded (`table.door` lets it
  in, `table.peers` serves it); names and chat are cleaned (`net.textclean`) before anyone
  else sees them.
* Saves (`table.autosave`) are written after commands and seat changes only, in
  a worker thread, before any peer is told; a full disk is a warning.
* Peers only ever receive `Game.view(seat)` (as a welcome/snapshot or as a
  delta against the last view sent), events (and, after a welcome, the story so
  far: `table.story`), the commands applied, lobby info, a commitment to the
  seed, and at the end the seed and its salt (so every peer can verify every
  roll). Tokens and the table code never leave except a token to its owner.
* A take-back (`undo`) goes through the same task as commands: the game
  refuses it unless the sender is deciding and nothing was revealed since;
  the log is cut back to the game as it now stands and every peer gets a delta.
* The host is made of parts that own their state and decide; it acts on what
  they decide: `Seats` (who sits where, tokens, away players, stand-ins:
  `table.seats`), `TurnClock` (whose decision runs, its deadline, the stand-in
  policy: `table.turnclock`), `Story` (what a joiner is told), `Door` (the way in, the
  peers inside: `table.door`) and one connection's tasks (`table.peers`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import nullcontext
from datetime import datetime, timezone
from typing import Any, Literal

import trio

from cthulhu.core import Command, Rejected, modes
from cthulhu.core.bots import make_bot
from cthulhu.core.search import SearchBot
from cthulhu.net import encode_frame
from cthulhu.net import Gate, Refusal
from cthulhu.net import Doorstep, serve_listeners
from cthulhu.net import (
    Back,
    Clock,
    CommandMsg,
    Hello,
    Lobby,
    SnapshotRequest,
    Table,
    Undo,
)
from cthulhu.net import clean_name
from cthulhu.net import decide_off_loop
from cthulhu.savegame import STAND_IN_LINE

from .autosave import HostSave
from .broadcast import Views
from .door import Door, Greeted
from .events import HostEvents
from .log import CommandLog
from .peers import Peer, Said, error_frame, rejected_frame
from .resolve import Opened
from .seats import Seat, Seats, SeatsChanged
from .spec import TableSpec
from .standin import StandInPolicy
from .story import Story
from .turnclock import ClockOut, ClockState, Kept, StandInMove, TurnClock

log = logging.getLogger(__name__)

StandInWhy = Literal["away", "clock", "skip"]


class Host:
    """Serve one table to its peers: the game, its seats and bots, its record and its limits.

    Built by `table.open_table` from a `TableSpec` (nothing else builds one), then served on TCP
    (`serve`) or on any stream (`handle`). `saves.on_trouble(reason or None)` hears when saving
    fails and works again."""

    def __init__(self, spec: TableSpec, opened: Opened, *, gate: Gate | None = None, events: HostEvents | None = None,
                 wall: Callable[[], datetime] | None = None, kept: Kept | None = None) -> None:
        """`gate`: the admission this table shares with others (a server's: its limits per address
        hold across tables); `events`: who keeps records of it; `wall`: the UTC clock its deadlines
        are told in; `kept`: its clock and stand-ins as a server kept them before a restart."""
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
        self.saves = HostSave(opened.writer, fsync=spec.save is None or spec.save.fsync, hold=spec.save is not None and spec.save.hold,
                              on_hold=lambda why: self._broadcast_lobby(), unsaved=opened.unsaved)
        self.warning = opened.warning  # for whoever opened the table (a saves folder it could not write)
        # The commitment every welcome carries: the save's own (it outlives this process), else a new one.
        self.dice = opened.dice
        # Every command so far (for joiners to verify the dice) and the recap: what each joiner is told.
        self.story = Story(game, self.log, self.dice)
        self.limits = spec.limits
        self.gate = gate if gate is not None else Gate(self.limits, trio.current_time)
        self.seats = Seats(game.setup.players, self.stand_in_for)
        for index, kind in spec.bots.items():
            self.seats.seat_bot(index, kind)
        self.seats.restore(opened.players, modes.get(game.setup.mode).bot_kinds)  # a loaded save's: owners reclaim them by token
        self.door = Door(self, self.limits, self.gate, self._heard)
        self.peers = self.door.peers  # (the door's own list: who is inside, in order of arrival)
        self.seq = 0  # deltas broadcast so far; a view at `seq` is what every peer holds
        self.views = Views(game)  # the last view sent, one per projection (seats that see the same share it)
        self.told = game.step  # the step every peer has been told of (so on disk): what a server's lobby lists
        self.started = trio.Event()
        self.finished = trio.Event()
        # Unset while a step is applied but not yet saved and told: welcomes wait for it (`_told`).
        self._settled = trio.Event()
        self._settled.set()
        self.port: int | None = None
        self.closing = False  # `close_table` has begun: the connections ending now are not seat news
        self.on_delta: Callable[[int, int | None, str], None] | None = None  # (seq, seat or None, view hash): tests, figures
        self.events = events
        self.pace = spec.pace
        self.turn_clock = TurnClock(spec.pace, game.setup.mode, wall or (lambda: datetime.now(timezone.utc)), kept)
        self.turn_clock.restore(self.seats, self.stand_in_for)
        self._decision_dirty = trio.Event()
        self._lobby_dirty = trio.Event()
        self._cmd_send, self._cmd_recv = trio.open_memory_channel[tuple[Peer | None, CommandMsg | Undo | ClockOut | None]](64)
        if game.outcome is not None:
            self.finished.set()
        self._record_players()  # the bots' seats are in the save from its first write (a server's rebuild reads them)

    @property
    def clock(self) -> ClockState | None:
        """The decision whose clock runs (or ran out: `paused`); turn-based tables only."""
        return self.turn_clock.state

    @property
    def crashes(self) -> int:
        """Connections that ended with an unexpected exception (tests assert 0)."""
        return self.door.crashes

    @property
    def turns(self) -> StandInPolicy:
        return self.turn_clock.turns

    @property
    def stand_in_kind(self) -> str:
        return self.spec.stand_ins.kind or modes.get(self.game.setup.mode).default_bot

    def stand_in_for(self, index: int, kind: str | None = None) -> Any:
        """The bot that plays seat `index` (by default the table's stand-in kind), seeded for that seat."""
        return make_bot(kind or self.stand_in_kind, self.game.setup.mode, self.bot_seed * 1009 + index)

    # ---- lifecycle --------------------------------------------------------

    async def serve(self, port: int = 0, bind: str = "127.0.0.1", *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen on TCP and run the table until cancelled; `task_status.started(port)`."""
        listeners = await trio.open_tcp_listeners(port, host=bind)
        self.port = listeners[0].socket.getsockname()[1]
        full = error_frame("host_full", "the host has no room for more connections", fatal=True)
        await serve_listeners(listeners, Doorstep(self.limits, self.gate), self.run, self.door.accepted, full, task_status=task_status)

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
        if self.spec.autostart and self.seats.full:
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
        await self.door.close(error_frame("host_closed", reason, fatal=True, details=["saved"] if saved else None), grace)

    def flush_log(self) -> bool:
        """Write the save now, fsynced, from any thread (the final save). False if the disk refused (reported once)."""
        return self.saves.save_blocking()

    def _record_players(self) -> bool:
        """Tell the log who sits where (token hashes only). True if that changed anything."""
        players = self.seats.changed_record()
        if players is not None:
            self.log.set_players(players)
        return players is not None

    def table(self) -> Table:
        return Table(id=self.table_id, mode=self.game.setup.mode, seats=[s.info() for s in self.seats], started=self.started.is_set(),
                     spectators=self.door.spectators, clock=self.clock_info(), held=self.saves.holding)

    def clock_info(self) -> Clock | None:
        """The turn clock as peers see it (None: a live table)."""
        return self.turn_clock.wire(trio.current_time())

    # ---- the one task that mutates the game -------------------------------

    async def _game_loop(self) -> None:
        await self.started.wait()
        await self._play_bots()
        async for peer, msg in self._cmd_recv:
            if isinstance(msg, ClockOut):
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
        while self.turn_clock.bot_to_play(self.game, self.seats) is not None:
            await self.bot_pause()
            prompt, bot = self.game.prompt, self.turn_clock.bot_to_play(self.game, self.seats)
            if prompt is None or bot is None:
                return  # the seat changed hands (or the table paused) while the bot waited
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
            peer.push(rejected_frame(msg.seq, exc.code, exc.reason))
        except Exception:  # a bug in the rules must not take the whole table down with it
            log.exception("applying a command from seat %s failed", peer.seat)
            peer.push(error_frame("internal_error", "the host failed to apply that command"))

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
        self._turn_moved(seat if stand_in is None and self.seats[seat].kind == "human" else None)
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
        told = [e.wire() for e in events]
        self.story.step(seat, wire, told, stand_in=stand_in is not None)
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
            peer.push(rejected_frame(msg.seq, exc.code, exc.reason))
            return
        except Exception:  # a bug in the rules must not take the whole table down with it
            log.exception("taking back a decision of seat %s failed", peer.seat)
            peer.push(error_frame("internal_error", "the host failed to take that back"))
            return
        step = self.game.step
        self._turn_moved(peer.seat)
        try:
            self.log.truncate(step)
        except Exception:  # a log that cannot follow the game is a bug: say so, keep playing
            log.exception("could not cut the command log back to step %d", step)
        else:
            await self.saves.save()  # the save holds the game as it now stands before anyone hears of it
        self.story.cut(step)
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

    def _seats_changed(self, changed: SeatsChanged | None) -> None:
        """What `Seats` decided, told: the lobby hears it, the game loop looks again."""
        if changed is not None:
            self._broadcast_lobby()
            self._wake()

    async def _lobby_loop(self) -> None:
        while True:
            await self._lobby_dirty.wait()
            self._lobby_dirty = trio.Event()
            self.door.lobby(encode_frame(Lobby(table=self.table()).wire()))
            await trio.sleep(self.limits.lobby_interval)

    def _game_over_frame(self) -> bytes:
        return self.story.game_over()

    def _broadcast_game_over(self) -> None:
        self._broadcast(self._game_over_frame())
        self.finished.set()

    # ---- the turn clock ---------------------------------------------------

    def _turn_moved(self, person: int | None) -> None:
        """After a step or a take-back (by the person at seat `person`, if any), the stand-ins follow."""
        if self.turn_clock.moved(self.game, self.seats, person):
            self._broadcast_lobby()

    async def _clock_loop(self) -> None:
        """Follow who must decide; when a clock runs out, the game loop applies the table's policy."""
        while True:
            self._decision_dirty = trio.Event()
            followed = self.turn_clock.follow(self.game, self.seats, self.started.is_set(), trio.current_time())
            if followed is not None and followed.lobby:
                self._lobby_dirty.set()
            if followed is not None and followed.began is not None and self.events is not None:
                self.events.move_begins(self.turn_clock.begins(self.game, self.seats, followed.began))
            clock, due = self.clock, self.turn_clock.due
            with trio.move_on_at(due) if due is not None else nullcontext():  # a live table's steps: no deadline to set and clear
                await self._decision_dirty.wait()
            if clock is not None and due is not None and trio.current_time() >= due and clock is self.clock:
                await self._cmd_send.send((None, ClockOut(clock.seat, clock.step)))
                while self.clock is clock and not clock.paused and not self._decision_dirty.is_set():
                    await self._decision_dirty.wait()  # the game loop takes it from here

    async def _clock_out(self, out: ClockOut) -> None:
        """In the game loop: the clock of `out` ran out; if that decision is still waiting, the policy."""
        ran_out = self.turn_clock.ran_out(out, self.game, self.seats, self.started.is_set(), self.stand_in_for(out.seat))
        if ran_out is not None and ran_out.skip is not None:
            await self._apply(out.seat, ran_out.skip, ran_out.version, stand_in="skip")
        elif ran_out is not None:
            self._broadcast_lobby()  # its seat shows the stand-in (or the pause); the loop plays it next

    # ---- connections ------------------------------------------------------

    async def handle(self, stream: trio.abc.Stream, address: str, first: bytes = b"", *, greeted: Greeted | None = None) -> None:
        """One connection from `address` (what the per-address limits count), on any stream, until it
        ends; isolated: no exception from it reaches the caller. The table must be running. `first`:
        what it has sent already (a TCP connection's first frame, read on the doorstep: `net.listen`);
        `greeted`: its hello, read already (by a server, to find the table), and what came after it."""
        await self.door.connection(stream, address, first, greeted)

    def verdict(self, hello: Hello) -> Refusal | None:
        """The seats' say on a hello at the door (`Room`)."""
        return self.seats.refusal(hello, self.table_id, self.code, self.door.spectators, self.limits.max_spectators)

    async def settle(self) -> None:
        while not self._settled.is_set():
            await self._settled.wait()

    async def keep_seats(self) -> None:
        await self.saves.save()

    def admit(self, hello: Hello, address: str = "?") -> tuple[Peer, bool]:
        """Give the hello a seat (or a spectator place) and queue its welcome. No await in here,
        so the welcome's view and `seq` are exactly what the next delta starts from.
        Returns the peer and whether the seats changed (then they must be saved)."""
        name = clean_name(hello.name)
        admitted = self.seats.take(hello)
        if admitted.stale is not None:  # the rightful owner is back; the old connection is stale
            admitted.stale.close_with(error_frame("replaced", "your seat was taken back with its token from another connection", fatal=True))
            self.leave(admitted.stale)
        seat = admitted.seat
        peer = self.door.enter(name, seat.index if seat else None, address)
        if seat is not None:
            seat.peer, seat.name = peer, name
            if self.turns.returned(seat):  # a person is here: an idle table goes on
                self._wake()
        self._maybe_start(quietly=True)  # the last to sit down is welcomed to a game under way, not a waiting table
        for frame in self.story.joining(peer.seat, admitted.token, self.table(), self.views, self.seq, self._seen(hello, seat), self.told):
            peer.push(frame)
        if self.game.outcome is not None:
            peer.push(self._game_over_frame())
        self._broadcast_lobby()
        if self.events is not None:
            self.events.admitted(peer, hello)
        seat_changed = seat is not None and self._record_players()
        if seat_changed and seat is not None and seat.index not in self.own_seats:
            self.saves.keep()
        if seat is not None:  # seat news, one line each (spectators come and go unlogged: they can be many)
            log.info("%s %s seat %d (from %s)", name, "is back at" if admitted.back else "sat down at", seat.index + 1, address)
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

    def leave(self, peer: Peer) -> None:
        if self.door.out(peer):
            if self.events is not None:
                self.events.left(peer)
            left = self.seats.left(peer, self.told, trio.current_time())
            if left and peer.seat is not None and self.game.outcome is None and not self.closing:
                log.info("%s left seat %d; it waits for them", peer.name, peer.seat + 1)
            self._broadcast_lobby()

    async def _heard(self, peer: Peer, msg: Said) -> None:
        """What a peer said that is the table's to act on (`table.peers` answers the rest)."""
        if isinstance(msg, (CommandMsg, Undo)):
            if peer.seat is None:
                await peer.answer(rejected_frame(msg.seq, "spectator", "spectators watch; they cannot act"))
            elif not self.started.is_set():
                await peer.answer(rejected_frame(msg.seq, "not_started", "the game has not started yet"))
            elif (isinstance(msg, Undo) and self._settled.is_set() and not self._cmd_send.statistics().current_buffer_used
                  and (no := self.game.undo_refusal(peer.seat, 1, msg.version)) is not None):
                await peer.answer(rejected_frame(msg.seq, no.code, no.reason))  # nothing under way: the game task's answer, at once
            else:
                await self._cmd_send.send((peer, msg))
        elif isinstance(msg, Back):
            # A connected player takes their seat from its stand-in (or ends an idle pause).
            if peer.seat is not None and self.seats[peer.seat].peer is peer and self.turns.returned(self.seats[peer.seat]):
                log.info("%s is back at seat %d; the stand-in leaves, the table goes on", peer.name, peer.seat + 1)
                self._broadcast_lobby()
                self._wake()
        elif isinstance(msg, SnapshotRequest):
            await peer.answer(self.views.snapshot(peer.seat, self.seq))

    # ---- away players -----------------------------------------------------

    def hand_to_bot(self, index: int, kind: str | None = None) -> None:
        """Let a bot play an away player's turns until they come back with their token."""
        self._seats_changed(self.seats.hand_to_bot(index, kind))

    def start_with_bots(self, kind: str | None = None) -> None:
        """Start before every seat is taken (the table dialog's "start now"): a bot plays each open
        seat for the whole game, as `--bots` would have."""
        if self.started.is_set():
            raise ValueError("the game has already started")
        self._seats_changed(self.seats.fill_with_bots(kind or self.stand_in_kind))  # the loop writes them down, the bots play
        self.start()

    def free_seat(self, index: int) -> None:
        """Give an away player's seat up: their token stops working, a new joiner may take it."""
        self._seats_changed(self.seats.free(index))  # the game loop writes the seats down

    async def _away_watch(self, after: float) -> None:
        """`StandIns.after`: a seat away for `after` seconds is handed to a bot (a headless host has no dialog)."""
        while True:
            for index in self.seats.overdue(trio.current_time(), after):
                self.hand_to_bot(index)
            await trio.sleep(min(1.0, max(0.05, after / 4)))
