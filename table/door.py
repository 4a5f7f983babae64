"""A table's door: the way in for one connection, who is inside, and the way out for all of them.

* Each connection runs in its own task, isolated with ``except*``: whatever a peer sends, only
  that connection ends (`table.peers` serves it once it is in).
* What a connection may cost is bounded before it is in: the gate the table shares (`net.gate`:
  caps per address, floods, wrong codes) and a hello within its deadline (`net.listen`).
* A refused hello gets one fatal error frame (there is no queue yet); an admitted one is seated by
  the table behind the door (`Room`), which decides everything about seats and what a joiner is told.

`Door` owns the peers inside (in order of arrival), their numbering and the count of connections
that crashed; it decides a hello's refusal at the door (the gate's, then the room's).
"""

from __future__ import annotations

import logging
from typing import Protocol

import trio

from cthulhu.net import FrameDecoder, Gate, Hello, Limits, Refusal, peer_address, read_hello, refuse

from .peers import Hear, Peer, Serving, error_frame, serve_peer

log = logging.getLogger("cthulhu.table.host")

Greeted = tuple[Hello, FrameDecoder]  # a connection's hello, and what came after it still to decode


class Room(Protocol):
    """The table behind the door (the host), as the door asks it."""

    code: str | None  # its table code (None: an open table)

    def verdict(self, hello: Hello) -> Refusal | None:
        """Why this hello may not have a place here (the seats' say), or None."""

    async def settle(self) -> None:
        """Until the game is where every peer has been told it is."""

    def admit(self, hello: Hello, address: str) -> tuple[Peer, bool]:
        """Seat the hello (or give it a spectator's place) and queue its welcome; whether the seats changed."""

    async def keep_seats(self) -> None:
        """The seats on disk (a welcome holding a seat token leaves only after)."""

    def leave(self, peer: Peer) -> None:
        """The peer's connection ended."""


class Door:
    """The connections of one table: `peers` inside, `crashes` (tests assert 0)."""

    def __init__(self, room: Room, limits: Limits, gate: Gate, hear: Hear) -> None:
        """`hear`: where what a peer says that is the table's to act on goes."""
        self.room = room
        self.limits = limits
        self.gate = gate
        self.serving = Serving(limits, gate.allowance, hear, self.chat)
        self.peers: list[Peer] = []
        self.crashes = 0  # connections that ended with an unexpected exception
        self._numbered = 0

    @property
    def spectators(self) -> int:
        return sum(1 for p in self.peers if p.seat is None)

    def enter(self, name: str, seat: int | None, address: str) -> Peer:
        """A hello the room admitted (at `seat`; None: watching) comes in, numbered."""
        self._numbered += 1
        peer = Peer.new(self._numbered, name, seat, address, self.limits, self.gate.quiet)
        self.peers.append(peer)
        return peer

    def out(self, peer: Peer) -> bool:
        """The peer is gone; True if it was inside until now."""
        peer.gone = True
        if peer not in self.peers:
            return False
        self.peers.remove(peer)
        return True

    async def accepted(self, stream: trio.SocketStream, first: bytes) -> None:
        """A TCP connection past the doorstep (`net.listen.serve_listeners`)."""
        await self.connection(stream, peer_address(stream), first, None)

    async def connection(self, stream: trio.abc.Stream, address: str, first: bytes, greeted: Greeted | None) -> None:
        """One connection from `address` until it ends (see `Host.handle`); no exception from it gets out."""
        peer: Peer | None = None
        try:
            async with stream:
                refusal = self.gate.connect(address)
                if refusal is not None:
                    await refuse(stream, error_frame(refusal.code, refusal.reason, fatal=True))  # (no queue yet)
                    return
                try:
                    greeted = greeted or await read_hello(stream, address, first, self.limits, self.gate)
                    admitted = await self._handshake(stream, address, greeted) if greeted is not None else None
                    if admitted is not None:
                        peer, decoder, seat_changed = admitted
                        if seat_changed:
                            await self.room.keep_seats()  # the welcome holds a seat token
                        await serve_peer(stream, peer, decoder, self.serving)
                finally:
                    self.gate.disconnect(address)
        except* (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError):
            pass  # the peer went away, or we closed it
        except* Exception:
            self.crashes += 1
            log.exception("connection %s crashed", peer.id if peer else "?")
        finally:
            if peer is not None:
                self.room.leave(peer)

    async def _handshake(self, stream: trio.abc.Stream, address: str, greeted: Greeted) -> tuple[Peer, FrameDecoder, bool] | None:
        """Admit the hello or refuse it."""
        hello, decoder = greeted
        refusal = self.gate.hello(address) or self._refusal(hello, address)  # the gate logs its own
        if refusal is not None:
            await refuse(stream, error_frame(refusal.code, refusal.reason, fatal=True))  # (no queue yet)
            return None
        decoder.limits = self.limits.peer_frame  # trusted a little more from now on
        # Until the game is where every peer has been told it is: a welcome (built without a
        # checkpoint from here on) never shows a step whose save is still being written.
        await self.room.settle()
        peer, seat_changed = self.room.admit(hello, address)
        return peer, decoder, seat_changed

    def _refusal(self, hello: Hello, address: str) -> Refusal | None:
        """Why this hello may not sit down (logged, a flood of the same in one line), or None."""
        refusal = self.room.verdict(hello)
        if refusal is not None and refusal.code == "bad_code":
            self.gate.wrong_code(address)  # counts, throttles and logs
        elif refusal is not None:
            self.gate.quiet.warn(f"hello {refusal.code}", trio.current_time(), "refused a hello from %s: %s", address, refusal.reason)
        elif self.room.code is not None:
            self.gate.right_code(address)
        return refusal

    def chat(self, frame: bytes) -> None:
        for peer in self.peers:
            if not peer.gone:
                peer.outbox.put_chat(frame)  # dropped for a peer that lags, never a reason to evict

    def lobby(self, frame: bytes) -> None:
        for peer in self.peers:
            if not peer.gone:
                peer.outbox.put_lobby(frame)

    async def close(self, frame: bytes, grace: float) -> None:
        """`frame` to every peer, last; waits at most `grace` seconds for them all to be out."""
        for peer in list(self.peers):
            peer.close_with(frame, grace)
        with trio.move_on_after(grace):
            while self.peers:  # each leaves once its last frame is out
                await trio.sleep(0.01)
