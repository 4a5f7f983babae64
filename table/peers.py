"""One connection to a table, after its hello: its outbox, and the two tasks that serve it.

The sender writes what the peer's `Outbox` holds (a peer that reads nothing for `send_timeout`
is closed: it may reconnect with its token). The receiver decodes frames at the peer's own rate
and from the gate's shared allowance, answers pings and bad frames itself, pings a peer silent
past the idle deadline and closes it if it stays silent, relays chat at `limits.chat` lines a
second, and hands everything else that is a peer's to say (a command, a take-back, `back`, a
snapshot request) to the host (`Serving.hear`). Only the host mutates the table.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from cthulhu.net import Allowance, SharedBudget, pace
from cthulhu.net import FrameDecoder, FrameError, FrameTooLarge, encode_frame
from cthulhu.net import Quiet
from cthulhu.net import Limits, TokenBucket
from cthulhu.net import (
    Back,
    Chat,
    CommandMsg,
    CreateTable,
    Error,
    Hello,
    ListTables,
    Ping,
    Pong,
    ProtocolError,
    Rejected,
    SnapshotRequest,
    Undo,
    UnexpectedMessage,
    parse_to_host,
)
from cthulhu.net import clean_chat

from .outbox import Outbox

log = logging.getLogger("cthulhu.table.host")

MAX_BAD_FRAMES = 50  # a peer that keeps sending garbage is closed (a repeated hello counts)

Said = CommandMsg | Undo | Back | SnapshotRequest  # what the host is handed of a peer's frames
Hear = Callable[["Peer", Said], Awaitable[None]]


def error_frame(code: str, reason: str, *, fatal: bool = False, details: list[str] | None = None) -> bytes:
    return encode_frame(Error(code=code, reason=reason, fatal=fatal, details=details or []).wire())


def rejected_frame(seq: int, code: str, reason: str) -> bytes:
    return encode_frame(Rejected(seq=seq, code=code, reason=reason).wire())


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

    @classmethod
    def new(cls, id: int, name: str, seat: int | None, address: str, limits: Limits, quiet: Quiet) -> Peer:
        """A newly admitted connection, its outbox and its rates from the table's `limits`."""
        outbox = Outbox(max_backlog=limits.max_backlog, lag_backlog=limits.lag_backlog, max_chat=limits.max_chat_queued)
        now = trio.current_time()
        return cls(id, name, seat, outbox, address, chat=TokenBucket.of(limits.chat, now), frames=TokenBucket.of(limits.frames, now),
                   quiet=quiet)

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


@dataclass
class Serving:
    """What serving one peer needs of its table: its limits, the gate's shared allowance, where
    what the peer says goes (`hear`), and where its cleaned chat lines go (`chat`); and the table's
    own budgets: its watchers' frames together, and the chat lines it relays in all."""

    limits: Limits
    allowance: Allowance
    hear: Hear
    chat: Callable[[bytes], None]
    watchers: SharedBudget = field(init=False)
    lines: TokenBucket | None = None  # made on first use (trio's clock: a table may be built outside trio)

    def __post_init__(self) -> None:
        self.watchers = SharedBudget(self.limits.watcher_frames)

    def take_line(self, now: float) -> bool:
        """Spend one of the table's chat lines if it has one."""
        if self.lines is None:
            self.lines = TokenBucket.of(self.limits.table_chat, now)
        return self.lines.take(now)


async def serve_peer(stream: trio.abc.Stream, peer: Peer, decoder: FrameDecoder, serving: Serving) -> None:
    """The peer's sender and receiver until the connection ends (or the peer is closed)."""
    with peer.scope:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_sender, stream, peer, serving.limits)
            try:
                await _receiver(stream, peer, decoder, serving)
            finally:
                # Let the sender flush what is queued (e.g. a fatal error), but not for long.
                peer.outbox.close()
                nursery.cancel_scope.deadline = trio.current_time() + 2


async def _sender(stream: trio.abc.Stream, peer: Peer, limits: Limits) -> None:
    # One scope for every write, its deadline set only while a write waits (a scope entered per
    # write cost each peer more than the write itself, once per delta).
    with trio.CancelScope() as stuck:
        while (data := await peer.outbox.take()) is not None:
            stuck.deadline = trio.current_time() + limits.send_timeout
            await stream.send_all(data)
            stuck.deadline = math.inf
    if stuck.cancelled_caught:
        peer.warn("not reading", "read nothing for %.0f s; disconnected it", limits.send_timeout)
        peer.close()
        return
    if peer.gone:
        peer.scope.cancel()  # `close_with`: the last frame is out, end the connection now


async def _receiver(stream: trio.abc.Stream, peer: Peer, decoder: FrameDecoder, serving: Serving) -> None:
    """Frames in, at most `limits.frames` a second; a peer silent past the idle deadline is
    pinged, and closed if it still says nothing (bytes that never finish a frame do not count)."""
    limits = serving.limits
    heard = trio.current_time()
    pinged: float | None = None
    data: bytes | bytearray = b""  # first decode what came with the hello, under the new limits
    while not peer.gone:
        try:
            items = decoder.feed(data)
        except FrameTooLarge as exc:
            await peer.answer(error_frame(exc.code, exc.reason, fatal=True))
            return
        if items:
            heard, pinged = trio.current_time(), None
        for item in items:  # each at the peer's own rate and from the shared allowance; a departed flooder's rest is dropped
            crowd = serving.watchers if peer.seat is None else None
            if not await pace(stream, peer.address, peer.frames, serving.allowance, crowd) or not await _on_frame(peer, item, serving):
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


async def _on_frame(peer: Peer, item: Any, serving: Serving) -> bool:
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
        await peer.answer(error_frame(exc.code, exc.reason, fatal=fatal, details=details))
        return not fatal
    if isinstance(msg, (CommandMsg, Undo, Back, SnapshotRequest)):
        await serving.hear(peer, msg)
    elif isinstance(msg, Chat):
        await _on_chat(peer, msg, serving)
    elif isinstance(msg, Ping):
        await peer.answer(encode_frame(Pong(n=msg.n).wire()))
    return True


async def _on_chat(peer: Peer, msg: Chat, serving: Serving) -> None:
    """Relay a cleaned chat line, at most `limits.chat` a second per peer and `limits.table_chat` for
    the whole table (the rest are dropped, and the sender told so once a second)."""
    now = trio.current_time()
    if peer.chat is not None and not peer.chat.take(now):
        await _chat_refused(peer, now, "too many chat lines at once; some were not sent")
        return
    if not serving.take_line(now):
        await _chat_refused(peer, now, "the table's chat is busy; some lines were not sent")
        return
    text = clean_chat(msg.text)
    if text:
        serving.chat(encode_frame(Chat(text=text, name=peer.name, seat=peer.seat).wire()))


async def _chat_refused(peer: Peer, now: float, reason: str) -> None:
    if now - peer.warned_chat >= 1.0:  # one answer a second, not one per line
        peer.warned_chat = now
        await peer.answer(error_frame("rate_limited", reason))
