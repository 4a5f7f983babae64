"""The host's door: how many connections, from where, how often, and how many wrong codes.

All bookkeeping per remote address is here, so the host's connection code
reads as a sequence of yes/no questions. Refusals are typed (`Refusal`: a
wire code and a reason) and logged at WARNING through `Quiet`, which turns a
flood of the same kind of refusal (from any number of addresses) into one line
now and a count later.
"""

from __future__ import annotations

import functools
import ipaddress
import itertools
import logging
import resource
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from .budgets import Allowance
from .limits import Limits, TokenBucket

log = logging.getLogger("cthulhu.net.host")

FD_MARGIN = 64  # descriptors kept free for save files, threads, the listener itself
MAX_ADDRESSES = 4096  # remembered addresses; idle ones are forgotten first


@dataclass(frozen=True, slots=True)
class Refusal:
    code: str
    reason: str


CROWDED = Refusal("too_many_connections", "too many connections from your address are waiting to say hello")


def descriptor_room() -> int:
    """Connections this process can hold under its open-file limit."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):  # pragma: no cover - platforms without the limit
        return 1 << 20
    if soft == resource.RLIM_INFINITY:
        return 1 << 20
    return max(1, soft - FD_MARGIN)


@functools.lru_cache(maxsize=MAX_ADDRESSES)
def is_loopback(address: str) -> bool:
    """127.0.0.0/8, ::1 or an IPv4-mapped loopback address: a connection from this very machine."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


K = TypeVar("K", bound=Hashable)


class Crowd(Generic[K]):
    """Who is waiting (connections before their hello or SSH login, pages' passes), per address,
    oldest first, within a cap per address and one in all. Over an address's cap, that address's
    oldest makes room; over the cap in all, the oldest of the address holding the most does. So a
    crowd from a few addresses (or many) never pushes out a newcomer from another address: it only
    ever competes with itself. `extra(address)` is room an address has beyond `per_address`."""

    def __init__(self, per_address: int, total: int, extra: Callable[[str], int] = lambda address: 0) -> None:
        self.per_address = per_address
        self.total = total
        self.extra = extra
        self._order: dict[K, tuple[str, int]] = {}  # key -> (address, arrival number), oldest first
        self._by_address: dict[str, dict[K, None]] = {}  # each address's keys, oldest first
        self._arrivals = itertools.count()

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, key: object) -> bool:
        return key in self._order

    def count(self, address: str) -> int:
        return len(self._by_address.get(address, ()))

    def oldest(self) -> K | None:
        return next(iter(self._order), None)

    def add(self, key: K, address: str) -> list[K]:
        """`key` waits from `address`; returns who must make room for it (oldest first), never `key`
        itself unless its own address has no room at all."""
        self._order[key] = (address, next(self._arrivals))
        mine = self._by_address.setdefault(address, {})
        mine[key] = None
        out = []
        while len(mine) > max(0, self.per_address + self.extra(address)):
            out.append(self._pop(next(iter(mine))))
        while len(self._order) > self.total:
            crowded = max(self._by_address.values(), key=lambda keys: (len(keys), -self._order[next(iter(keys))][1]))
            out.append(self._pop(next(iter(crowded))))
        return out

    def discard(self, key: K) -> None:
        if key in self._order:
            self._pop(key)

    def _pop(self, key: K) -> K:
        address, _ = self._order.pop(key)
        keys = self._by_address[address]
        del keys[key]
        if not keys:
            del self._by_address[address]
        return key


@dataclass(slots=True)
class _Address:
    connections: int = 0
    joins: TokenBucket | None = None
    wrong_codes: int = 0
    blocked_until: float = 0.0

    def forgettable(self, now: float) -> bool:
        """Nothing to remember: no connection, no wait to serve, its join budget back to full.
        (Its count of wrong codes goes with it: past `MAX_ADDRESSES` addresses, per-address
        throttling has done what it can.)"""
        return self.connections == 0 and now >= self.blocked_until and (self.joins is None or self.joins.full(now))


@dataclass(slots=True)
class Quiet:
    """Log the first event of a kind now, then at most one line per `every` seconds with a count
    of the ones held back. Keys are kinds of event, not addresses: an attack from a thousand
    addresses is a few lines, not a thousand."""

    every: float = 10.0
    _last: dict[str, tuple[float, int]] = field(default_factory=dict)

    def warn(self, key: str, now: float, message: str, *args: object) -> None:
        at, held = self._last.get(key, (-1e18, 0))
        if now - at >= self.every:
            suffix = f" ({held} more like this since the last line)" if held else ""
            log.warning(message + suffix, *args)
            self._last[key] = (now, 0)
            if len(self._last) > MAX_ADDRESSES:
                self._last.pop(next(iter(self._last)))
        else:
            self._last[key] = (at, held + 1)


class Gate:
    """Admission for one host. `clock` is trio's (or a test's)."""

    def __init__(self, limits: Limits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        files = descriptor_room()
        # Those that have said nothing yet wait in a crowd of their own, at most a quarter of the open files.
        self.waiting: Crowd[Hashable] = Crowd(limits.max_unverified_per_address, min(limits.max_unverified, max(32, files // 4)),
                                              extra=lambda address: limits.door_visitors if is_loopback(address) else 0)
        self._turn_away: dict[Hashable, Callable[[], None]] = {}
        self.max_open = min(limits.max_connections, max(1, files - self.waiting.total))
        self.open = 0
        self.quiet = Quiet()
        self.allowance = Allowance(limits.prefix_frames, limits.all_frames, clock)  # every connection's frames, past its own rate
        self._addresses: OrderedDict[str, _Address] = OrderedDict()

    def _entry(self, address: str) -> _Address:
        entry = self._addresses.get(address)
        if entry is None:
            entry = self._addresses[address] = _Address()
            if len(self._addresses) > MAX_ADDRESSES:  # forget the least recently seen idle one
                now = self.clock()
                for key, old in self._addresses.items():
                    if old is not entry and old.forgettable(now):
                        del self._addresses[key]
                        break
        else:
            self._addresses.move_to_end(address)
        return entry

    # -- connections --------------------------------------------------------------

    def connect(self, address: str) -> Refusal | None:
        """A new connection from `address`: None (counted; call `disconnect` later) or why not."""
        entry = self._entry(address)
        if self.open >= self.max_open:
            refusal = Refusal("host_full", "the host has no room for more connections")
        elif entry.connections >= self.limits.max_per_address + (self.limits.door_visitors if is_loopback(address) else 0):
            refusal = Refusal("too_many_connections", "too many connections from your address")
        else:
            entry.connections += 1
            self.open += 1
            return None
        self.quiet.warn(f"connect {refusal.code}", self.clock(), "refused a connection from %s: %s", address, refusal.reason)
        return refusal

    def disconnect(self, address: str) -> None:
        entry = self._addresses.get(address)
        if entry is not None and entry.connections > 0:
            entry.connections -= 1
        self.open = max(0, self.open - 1)

    def unverified(self, key: Hashable, address: str, turn_away: Callable[[], None]) -> None:
        """A connection from `address` that has not sent its first frame yet. If the crowd of them
        is too big, someone's oldest is turned away (`turn_away` is called for it, once)."""
        self._turn_away[key] = turn_away
        for old in self.waiting.add(key, address):
            self.quiet.warn("unverified", self.clock(), "too many connections without a hello; closed the one waiting longest "
                                                        "from the address with the most")
            self._turn_away.pop(old)()

    def verified(self, key: Hashable) -> None:
        """Its first frame has come (or it is gone): it waits no more."""
        self.waiting.discard(key)
        self._turn_away.pop(key, None)

    # -- hellos ---------------------------------------------------------------------

    def hello(self, address: str) -> Refusal | None:
        """Before a hello is looked at: the address's join rate and code-guess penalty."""
        entry = self._entry(address)
        now = self.clock()
        if now < entry.blocked_until:
            wait = entry.blocked_until - now
            self.quiet.warn("throttled", now, "ignored a hello from %s: still throttled for wrong table codes", address)
            return Refusal("throttled", f"too many wrong table codes; try again in {wait:.0f} s")
        if entry.joins is None:
            # The doors' visitors all say hello from loopback, each one a person the door admitted (and
            # whose arrivals it paces): there, each door visitor has an address's allowance of its own.
            many = 1 + (self.limits.door_visitors if is_loopback(address) else 0)
            rate, burst = self.limits.joins
            entry.joins = TokenBucket.of((rate * many, burst * many), now)
        if not entry.joins.take(now):
            self.quiet.warn("joins", now, "refused a hello from %s: joining too often", address)
            return Refusal("slow_down", "joining too often; try again in a few seconds")
        return None

    def wrong_code(self, address: str) -> None:
        entry = self._entry(address)
        entry.wrong_codes += 1
        over = entry.wrong_codes - self.limits.free_code_tries
        if over <= 0:
            self.quiet.warn("wrong code", self.clock(), "wrong table code from %s", address)
            return
        base, cap = self.limits.code_delay
        delay = min(cap, base * 2 ** (over - 1))
        entry.blocked_until = self.clock() + delay
        self.quiet.warn("code throttle", self.clock(), "wrong table code from %s (%d so far); its next try waits %.0f s", address, entry.wrong_codes, delay)

    def right_code(self, address: str) -> None:
        entry = self._entry(address)
        entry.wrong_codes = 0
        entry.blocked_until = 0.0
