"""Budgets shared by many connections: per address prefix (kept so that churning addresses cannot
reset them), and for everyone at once (waited for in turn).

A stranger with many addresses usually has them in one network, and budgets kept per exact
address are as many budgets as addresses: so those that strangers can multiply (new tables, new
identities, frames) are kept per prefix, an IPv4 address's /24 and an IPv6 address's /64.
`PrefixBudgets` holds at most `size` of them and forgets one only once it is full again (when
forgetting gives nothing back); while every bucket it keeps is spent, newcomers share one
overflow bucket. So 5,000 addresses of other networks never hand a spent budget back.

`SharedBudget` is one token bucket for the whole process, waited for first come, first served
(trio's locks are fair): whoever asks, each asker in turn gets the next token, so a crowd of
sessions takes no more in all than the budget, and a newcomer waits behind at most one request
of each of them. `Allowance` is what every connection's frames cost: its prefix's bucket, then
the shared one.
"""

from __future__ import annotations

import functools
import ipaddress
import select
from collections import OrderedDict
from collections.abc import Callable

import trio

from .limits import TokenBucket

_HUNG_UP = getattr(select, "POLLRDHUP", 0) | select.POLLHUP | select.POLLERR if hasattr(select, "poll") else 0

MAX_PREFIXES = 4096


@functools.lru_cache(maxsize=MAX_PREFIXES)
def prefix_of(address: str) -> str:
    """The network an address's budgets are kept for: its /24 (IPv4, an IPv4-mapped IPv6 address
    too) or /64 (IPv6); anything that is no IP address is its own."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    bits = 24 if isinstance(ip, ipaddress.IPv4Address) else 64
    return str(ipaddress.ip_network(f"{ip}/{bits}", strict=False))


class PrefixBudgets:
    """A `(rate, burst)` token bucket per address prefix, at most `size` of them (see the module)."""

    def __init__(self, spec: tuple[float, int], clock: Callable[[], float], size: int = MAX_PREFIXES) -> None:
        self.spec = spec
        self.clock = clock
        self.size = size
        self.buckets: OrderedDict[str, TokenBucket] = OrderedDict()  # least recently used first
        self.overflow: TokenBucket | None = None  # for newcomers while every kept bucket is spent

    def bucket(self, address: str) -> TokenBucket:
        key = prefix_of(address)
        bucket = self.buckets.get(key)
        if bucket is not None:
            self.buckets.move_to_end(key)
            return bucket
        now = self.clock()
        if len(self.buckets) >= self.size:
            oldest, old = next(iter(self.buckets.items()))
            if not old.full(now):
                if self.overflow is None:
                    self.overflow = TokenBucket.of(self.spec, now)
                return self.overflow
            del self.buckets[oldest]
        bucket = self.buckets[key] = TokenBucket.of(self.spec, now)
        return bucket

    def take(self, address: str) -> bool:
        """Spend one of the prefix's tokens if it has one."""
        return self.bucket(address).take(self.clock())


async def _spend(bucket: TokenBucket) -> None:
    while not bucket.take(trio.current_time()):
        await trio.sleep(bucket.wait(trio.current_time()))


class SharedBudget:
    """One `(rate, burst)` bucket for everyone, its tokens handed out in turn. `taken` counts them."""

    def __init__(self, spec: tuple[float, int]) -> None:
        self.spec = spec
        self.bucket: TokenBucket | None = None  # made on first use (trio's clock)
        self.lock = trio.Lock()
        self.taken = 0

    def ready(self) -> bool:
        """A token is there and nobody waits for one: `spend` would not wait."""
        if self.bucket is None:
            self.bucket = TokenBucket.of(self.spec, trio.current_time())
        return not self.lock.locked() and self.bucket.wait(trio.current_time()) == 0.0

    async def spend(self) -> None:
        if self.bucket is None:
            self.bucket = TokenBucket.of(self.spec, trio.current_time())
        if not self.lock.locked() and self.bucket.take(trio.current_time()):
            self.taken += 1  # a token there and nobody waiting: no checkpoint (a lock handed on is one a scheduling round)
            return
        async with self.lock:
            await _spend(self.bucket)
            self.taken += 1


class Allowance:
    """What frames cost, past each connection's own rate: `per_prefix` from its network's bucket
    (`PrefixBudgets`), then `total` from everyone's (`SharedBudget`)."""

    def __init__(self, per_prefix: tuple[float, int], total: tuple[float, int], clock: Callable[[], float]) -> None:
        self.prefixes = PrefixBudgets(per_prefix, clock)
        self.shared = SharedBudget(total)
        self._turns: dict[str, trio.Lock] = {}  # a network's connections waiting for its tokens, in turn

    async def wait_for_prefix(self, address: str, bucket: TokenBucket) -> None:
        """Wait for a token of the network's bucket behind its other waiting connections (one
        wakes per token, not every one of them)."""
        key = prefix_of(address)
        lock = self._turns.setdefault(key, trio.Lock())
        try:
            async with lock:
                await _spend(bucket)
        finally:
            if not lock.locked() and not lock.statistics().tasks_waiting:
                self._turns.pop(key, None)


def gone(stream: trio.abc.Stream) -> bool:
    """The other end has closed (or reset) the connection, whatever it sent before is still unread:
    a socket's hang-up, asked of the kernel without reading (False for other streams)."""
    sock = getattr(stream, "socket", None)
    if sock is None or not _HUNG_UP:
        return False
    try:
        poller = select.poll()
        poller.register(sock.fileno(), _HUNG_UP)
        return bool(poller.poll(0))
    except (OSError, ValueError):
        return True


async def pace(stream: trio.abc.Stream, address: str, own: TokenBucket | None, allowance: Allowance,
               crowd: SharedBudget | None = None) -> bool:
    """Before handling a connection's next frame: a token of its own rate (`own`), then one of its
    crowd's (a table's watchers together), then the allowance's; False if it must wait and its other
    end has gone meanwhile: what a departed flooder left in the socket's buffer is dropped, not read
    at the allowance's cost."""
    now = trio.current_time()
    if own is not None and not own.take(now):
        if gone(stream):
            return False
        await _spend(own)
    if crowd is not None:
        if not crowd.ready() and gone(stream):
            return False
        await crowd.spend()
    bucket = allowance.prefixes.bucket(address)
    if not bucket.take(trio.current_time()):
        if gone(stream):
            return False
        await allowance.wait_for_prefix(address, bucket)
    await allowance.shared.spend()
    return True


async def lobby_pace(stream: trio.abc.Stream, own: TokenBucket, budget: SharedBudget) -> bool:
    """Before a lobby request: a token of the session's own rate, then one of every session's
    budget (in turn); False if it had to wait and its other end has gone."""
    if not own.take(trio.current_time()):
        if gone(stream):
            return False
        await _spend(own)
    await budget.spend()
    return True
