"""Webhooks: an HTTP POST of a small JSON when a person's move begins at a table with an address.

The server's operator says where notifications may go (`cthulhu server --notify-allow PATTERN`,
repeatable; none: notifications are off; the rules are `server.hookurl`'s). A table's address is
checked against them when the table is made (a refusal is one typed line) and again before every
send, its host resolved then and only an allowed address contacted, so an address the operator no
longer allows after a restart, or a name that now points somewhere else, is never contacted.

Nothing here can hold a table up: `Notifier.notify` only appends to a bounded queue (when it is
full the oldest notice is dropped, and counted); a few sender tasks per server post them, every
try bounded (connect, send and read each within `timeout`) and retried with back-off a bounded
number of times. HTTP/1.1 over trio's TCP stream, and its TLS stream with the default verified
context for https: a POST is a dozen lines, not worth a dependency.
"""

from __future__ import annotations

import logging
import re
import ssl
from collections import OrderedDict, deque
from dataclasses import dataclass
from urllib.parse import urlsplit

import trio

from .hookurl import NotifyPolicy, NotifyRefused, Resolver, Target, resolve_host

log = logging.getLogger(__name__)

QUEUE = 256  # notices waiting (retries included); past it the oldest is dropped
SENDERS = 4  # posts at once, at most one per host: a host that hangs holds up one sender, not the others' notices
ATTEMPTS = 4  # tries of one notice
REFUSED_KEPT = 1024  # addresses remembered as no longer allowed (each said once in the log)
BACKOFF = 2.0  # seconds before the first retry, times 4 before each later one (2, 8, 32)
TIMEOUT = 10.0  # seconds for each of connect, send and read


async def post_json(target: Target, address: str, body: bytes, timeout: float) -> int:
    """POST `body` to `target` at `address` (one it resolved to, already allowed: no name is
    looked up here), HTTP/1.1, one request, `Connection: close`; the response's status. Each of
    connect (with TLS, verified for the URL's host), send and read of the status line takes at
    most `timeout`."""
    with trio.fail_after(timeout):
        tcp = await trio.open_tcp_stream(address, target.port)
    stream: trio.abc.Stream = tcp
    try:
        if target.scheme == "https":
            stream = trio.SSLStream(tcp, ssl.create_default_context(), server_hostname=target.host, https_compatible=True)
            with trio.fail_after(timeout):
                await stream.do_handshake()
        head = (f"POST {target.target} HTTP/1.1\r\nHost: {target.netloc}\r\nUser-Agent: cthulhu-notify\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n")
        with trio.fail_after(timeout):
            await stream.send_all(head.encode("ascii") + body)
        got = b""
        with trio.fail_after(timeout):
            while b"\r\n" not in got and len(got) < 4096:
                chunk = await stream.receive_some(4096)
                if not chunk:
                    break
                got += chunk
        match = re.match(rb"HTTP/1\.[01] (\d{3}) ", got)
        if match is None:
            raise ValueError("not an HTTP response")
        return int(match.group(1))
    finally:
        await trio.aclose_forcefully(stream)


@dataclass
class _Notice:
    url: str
    body: bytes
    tries: int = 0
    due: float = 0.0

    @property
    def host(self) -> str:
        return urlsplit(self.url).netloc.lower()


class Notifier:
    """The server's notifications: a bounded queue and `senders` tasks (`run`) posting from it."""

    def __init__(self, policy: NotifyPolicy, *, queue: int = QUEUE, senders: int = SENDERS, attempts: int = ATTEMPTS,
                 backoff: float = BACKOFF, timeout: float = TIMEOUT, resolve: Resolver = resolve_host) -> None:
        """`resolve`: a host's addresses now (the system's resolver; a test's own table)."""
        self.policy = policy
        self.resolve = resolve
        self.limit = queue
        self.senders = senders
        self.attempts = attempts
        self.backoff = backoff
        self.timeout = timeout
        self.sent = self.failed = self.dropped = 0
        self._queue: deque[_Notice] = deque()
        self._busy: set[str] = set()  # hosts a sender is posting to now
        self._wake = trio.Event()
        self._refused: OrderedDict[str, None] = OrderedDict()  # addresses no longer allowed, said once each (bounded)

    @property
    def idle(self) -> bool:
        """Nothing waits to be posted and nothing is being posted."""
        return not self._queue and not self._busy

    @property
    def in_flight(self) -> frozenset[str]:
        """The hosts being posted to now."""
        return frozenset(self._busy)

    def notify(self, url: str, body: bytes) -> None:
        """Queue a POST of `body` to `url`; never waits (a full queue lets its oldest go, counted)."""
        self._put(_Notice(url, body))

    def _put(self, notice: _Notice) -> None:
        if len(self._queue) >= self.limit:
            self._queue.popleft()
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 100 == 0:
                log.warning("notifications: the queue is full; %d dropped so far (the oldest first)", self.dropped)
        self._queue.append(notice)
        self._wake.set()  # every sender waiting wakes; later waits wait for the next notice
        self._wake = trio.Event()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            for _ in range(self.senders):
                nursery.start_soon(self._sender)
            task_status.started()

    def _next(self, now: float) -> _Notice | float | None:
        """The first notice due to a host nobody is posting to (taken off the queue), else when the
        next one is due (None: none waits, or only for a busy host: its sender's end wakes the rest)."""
        soonest: float | None = None
        for n, notice in enumerate(self._queue):
            if notice.host in self._busy:
                continue
            if notice.due <= now:
                del self._queue[n]
                return notice
            soonest = notice.due if soonest is None else min(soonest, notice.due)
        return soonest

    async def _sender(self) -> None:
        while True:
            got = self._next(trio.current_time())
            if isinstance(got, _Notice):
                self._busy.add(got.host)
                try:
                    await self._send(got)
                finally:
                    self._busy.discard(got.host)
                    self._wake.set()  # its host's next notice may go now
                    self._wake = trio.Event()
                continue
            with trio.move_on_at(got if got is not None else float("inf")):  # a retry's time, or a new notice
                await self._wake.wait()

    async def _send(self, notice: _Notice) -> None:
        notice.tries += 1
        try:
            target = self.policy.check(notice.url)  # the operator's word now, not when the table was made
            problem, final = await self._try(target, notice.body)
        except NotifyRefused as exc:
            self.failed += 1
            if notice.url not in self._refused:  # once per address, not once per notice
                self._refused[notice.url] = None
                if len(self._refused) > REFUSED_KEPT:
                    self._refused.popitem(last=False)
                log.warning("notifications: a table's address is no longer allowed (%s); its notices are not sent", exc)
            return
        if problem is None:
            self.sent += 1
            return
        if final or notice.tries >= self.attempts:
            self.failed += 1
            log.warning("notifications: gave up on one after %d tries (%s)", notice.tries, problem)
            return
        notice.due = trio.current_time() + self.backoff * 4 ** (notice.tries - 1)
        self._put(notice)

    async def _try(self, target: Target, body: bytes) -> tuple[str | None, bool]:
        """One try: (what went wrong or None, whether trying again is pointless). `NotifyRefused`
        when the host resolves to no address the operator allows."""
        try:
            with trio.fail_after(self.timeout):
                addresses = await self.policy.addresses(target, self.resolve)  # what the name means now
            status = await self._post(target, addresses, body)
        except NotifyRefused:
            raise
        except (OSError, trio.TooSlowError, trio.BrokenResourceError, ssl.SSLError, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}"[:200], False
        if 200 <= status < 300:
            return None, True
        return f"the answer was HTTP {status}", 400 <= status < 500 and status not in (408, 429)

    async def _post(self, target: Target, addresses: list[str], body: bytes) -> int:
        """The POST to the first of `addresses` that takes a connection."""
        for address in addresses[:-1]:
            try:
                return await post_json(target, address, body, self.timeout)
            except (OSError, trio.TooSlowError):
                continue
        return await post_json(target, addresses[-1], body, self.timeout)

