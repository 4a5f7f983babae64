"""What one connection may cost the host: sizes, deadlines, caps and rates, in one place.

Trust grows in steps. Before a valid `hello` a connection has proved nothing,
so its first frame is tiny and tightly shaped (a hello is a flat map of a few
short strings); after it, a peer still only ever sends small messages
(commands, chat, pings), so its frames stay far below what the host sends.
msgpack pre-allocates a list for every array header it reads, so the array and
map lengths are capped *in the decoder* (checked at each header), never after.

`TokenBucket` is the rate limit used for chat, frames and joins: `rate` tokens a
second up to `burst`; the clock is passed in (trio's), so tests can drive it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class DecodeLimits:
    """Bounds on one frame body, enforced while msgpack decodes it."""

    frame: int  # body bytes
    str_len: int  # bytes in one string
    array_len: int  # items in one array (msgpack pre-allocates this many)
    map_len: int  # pairs in one map
    depth: int  # containers inside containers, the top-level map counting as 1
    values: int | None = None
    """Values in the whole frame (every map, array, key and scalar), counted with the depth by a
    walk over the bytes before msgpack builds anything (`frames.check_bytes`). None: not walked
    (the host's own frames are large and checked after decoding)."""


# A hello is {t, proto, name (<= 40 chars), code, seat, token and ident (<= 64 chars each), watch, table
# (<= 32 chars), lobby}: 10 keys, no containers, 21 values (at most ~450 bytes with a name of 4-byte
# characters); a map of 12 keys is 25.
FIRST_FRAME = DecodeLimits(frame=640, str_len=256, array_len=4, map_len=12, depth=2, values=25)
# Commands ({"kind", a few scalar or short-list arguments}), chat (<= 500 chars), pings, snapshot requests.
# The largest real command frame is 17 values ({"t", "seq", "version", "command": {"kind": "pay", 3 more}}): 64 is
# plenty, and bounds what any frame costs to decode and to handle (a 4 KB frame could hold 4,000).
PEER_FRAME = DecodeLimits(frame=4096, str_len=2048, array_len=16, map_len=16, depth=8, values=64)
# What a host sends: views, deltas and snapshots (measured: <= 12 KB, lists <= 30 items, maps <= 25 keys,
# strings <= 170 bytes, depth 7), with a wide margin.
HOST_FRAME = DecodeLimits(frame=64 * 1024, str_len=8 * 1024, array_len=1024, map_len=256, depth=32)


@dataclass(frozen=True, slots=True)
class Limits:
    """Everything a host bounds per connection. The defaults suit a LAN table; tests shorten the clocks."""

    first_frame: DecodeLimits = FIRST_FRAME
    peer_frame: DecodeLimits = PEER_FRAME
    # deadlines (seconds)
    hello_timeout: float = 10.0  # connect -> a valid hello
    idle_timeout: float = 45.0  # no whole frame for this long -> the host pings
    pong_timeout: float = 20.0  # ... and closes if no whole frame follows the ping
    send_timeout: float = 60.0  # one write to a peer that stays blocked this long: it is not reading
    # caps on connections
    max_connections: int = 512  # open connections in all (also kept below the descriptor limit)
    # Connections that have not sent their first frame yet wait on the doorstep (`net.listen`): no task
    # each, only a socket; over either cap the oldest of the most crowded address makes room. (In all it is
    # also kept to a quarter of the open files.)
    max_unverified: int = 512
    max_unverified_per_address: int = 8
    max_per_address: int = 16  # open connections from one address
    # The host's own front doors (`host --ssh/--web`) run one interface per visitor, and every one of
    # them connects from loopback: loopback may hold this many connections more. The doors cap their
    # visitors themselves, per real client address and in all (`cthulhu.serve.admission`).
    door_visitors: int = 0
    max_spectators: int = 64  # watchers (seats are never refused for room)
    # rates: (per second, burst)
    frames: tuple[float, int] = (100.0, 200)  # whole frames from one peer; beyond this it is read slower
    # ... and from all connections of one network (an IPv4 /24, an IPv6 /64) together, then from every
    # connection at once (`net.budgets.Allowance`): strangers' floods cost the other tables a bounded share
    prefix_frames: tuple[float, int] = (200.0, 400)
    all_frames: tuple[float, int] = (2000.0, 4000)
    chat: tuple[float, int] = (1.0, 5)  # chat lines from one peer; beyond this they are dropped
    # One table's crowd together (`table.peers.Serving`): its watchers' frames past their own rates (a
    # watcher only chats and pings, so a crowd of them is read no faster than this, whatever networks it
    # comes from), and the chat lines the table relays to everyone. So a hostile table's crowd costs the
    # other tables of a server a fixed share, not one per network it has.
    watcher_frames: tuple[float, int] = (20.0, 60)
    table_chat: tuple[float, int] = (5.0, 15)
    joins: tuple[float, int] = (5.0, 60)  # hellos from one address; beyond this they are refused
    # code guessing: free wrong codes per address, then a wait that doubles up to the cap
    free_code_tries: int = 3
    code_delay: tuple[float, float] = (1.0, 60.0)
    # one peer's outgoing backlog
    max_backlog: int = 1024 * 1024  # bytes of game frames queued for a peer that does not read: evict
    lag_backlog: int = 64 * 1024  # bytes queued at which chat for that peer is dropped
    max_chat_queued: int = 32  # chat lines queued for one peer; more are dropped
    lobby_interval: float = 0.1  # lobby updates within this long go out as one

    def but(self, **changes: Any) -> "Limits":
        """A copy with some fields changed (tests and benches)."""
        return replace(self, **changes)


# A token short by no more than the rounding of float seconds is a token: else `wait` could answer a
# time too small to move the clock (0.35 + 2.8e-17 is 0.35), and a loop of wait and take would never
# end on trio's virtual clock (issue 35: a lobby spinning in its frame budget).
ROUNDING = 1e-9


@dataclass(slots=True)
class TokenBucket:
    """`rate` tokens a second, at most `burst` saved up."""

    rate: float
    burst: int
    tokens: float
    at: float  # when `tokens` was last brought up to date

    @classmethod
    def of(cls, spec: tuple[float, int], now: float) -> "TokenBucket":
        """A full bucket from a (rate, burst) pair of `Limits`."""
        return cls(spec[0], spec[1], float(spec[1]), now)

    def _refill(self, now: float) -> None:
        if now > self.at:
            self.tokens = min(float(self.burst), self.tokens + (now - self.at) * self.rate)
        self.at = now

    def take(self, now: float) -> bool:
        """Spend a token if there is one."""
        self._refill(now)
        if self.tokens >= 1.0 - ROUNDING:
            self.tokens = max(0.0, self.tokens - 1.0)
            return True
        return False

    def wait(self, now: float) -> float:
        """Seconds until a token is there (0: one is there now). Never a wait too short for the
        clock to move: a token short by a rounding error is a token."""
        self._refill(now)
        return 0.0 if self.tokens >= 1.0 - ROUNDING else (1.0 - self.tokens) / self.rate

    def full(self, now: float) -> bool:
        """Saved up to its burst: forgetting it would give nothing back."""
        self._refill(now)
        return self.tokens >= self.burst
