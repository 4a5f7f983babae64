"""Webhooks: an HTTP POST of a small JSON when a person's move begins at a table with an address.

The server's operator says where notifications may go (`cthulhu server --notify-allow PATTERN`,
URL globs, repeatable; none: notifications are off). A table's address is checked against them
when the table is made (a refusal is one typed line) and again before every send, so an address
the operator no longer allows after a restart is never contacted.

Nothing here can hold a table up: `Notifier.notify` only appends to a bounded queue (when it is
full the oldest notice is dropped, and counted); a few sender tasks per server post them, every
try bounded (connect, send and read each within `timeout`) and retried with back-off a bounded
number of times. HTTP/1.1 over trio's TCP stream, and its TLS stream with the default verified
context for https: a POST is a dozen lines, not worth a dependency.
"""

from __future__ import annotations

import json
import logging
import re
import ssl
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from fnmatch import fnmatchcase
from urllib.parse import SplitResult, urlsplit

import trio

from cthulhu.net.textclean import clean_name

log = logging.getLogger(__name__)

MAX_URL = 1000
QUEUE = 256  # notices waiting (retries included); past it the oldest is dropped
SENDERS = 4  # posts at once, at most one per host: a host that hangs holds up one sender, not the others' notices
ATTEMPTS = 4  # tries of one notice
BACKOFF = 2.0  # seconds before the first retry, times 4 before each later one (2, 8, 32)
TIMEOUT = 10.0  # seconds for each of connect, send and read
_URL_CHARS = re.compile(r"[!#$%&'()*+,\-./0-9:;=?@A-Z\[\]_a-z~]+")  # RFC 3986's, nothing else (no spaces, no controls)


class NotifyRefused(ValueError):
    """A notification address this server will not use: a wire code and one line."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def parse_url(url: str) -> SplitResult:
    """An http(s) URL with a host, or `NotifyRefused("bad_notify", ...)`."""
    if not 1 <= len(url) <= MAX_URL or not _URL_CHARS.fullmatch(url):
        raise NotifyRefused("bad_notify", f"a notification address is a URL of up to {MAX_URL} plain characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise NotifyRefused("bad_notify", "that notification address is not a URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NotifyRefused("bad_notify", "a notification address is an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise NotifyRefused("bad_notify", "a notification address carries no user name or password (put a token in its path)")
    if port == 0:
        raise NotifyRefused("bad_notify", "a notification address needs a real port")
    return parts


@dataclass(frozen=True)
class NotifyPolicy:
    """Where this server may send notifications: URL globs (`https://hooks.example.org/*`)."""

    patterns: tuple[str, ...] = ()

    @property
    def on(self) -> bool:
        return bool(self.patterns)

    def check(self, url: str) -> str:
        """`url` if notifications may go there; `NotifyRefused` (typed, one line) otherwise."""
        if not self.on:
            raise NotifyRefused("notify_off", "this server sends no notifications (its operator allows no address: "
                                              "cthulhu server --notify-allow PATTERN)")
        parse_url(url)
        if not any(fnmatchcase(url, pattern) for pattern in self.patterns):
            raise NotifyRefused("notify_not_allowed", "this server's operator does not allow notifications to that address")
        return url


def _plain(name: str | None) -> str:
    """A player's name for a chat message: cleaned, and nothing a chat could read as markup,
    a mention or a link (`<`, `@`, `*`, `[` ...)."""
    kept = "".join(ch for ch in clean_name(name or "") if ch.isalnum() or ch in " .'-")
    return " ".join(kept.split()) or "a player"


def move_notice(table: str, seat: int, player: str | None, turn: int | None, deadline: datetime | None) -> dict[str, object]:
    """The JSON posted when `seat`'s move begins (`seat` counts from 0, as in `tables --json`)."""
    when = deadline.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if deadline is not None else None
    who = _plain(player)
    text = f"It is {who}'s move (seat {seat + 1}) at table {table}" + (f", turn {turn}" if turn is not None else "")
    text += f"; their clock runs out at {deadline.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC." if deadline is not None else "."
    return {"table": table, "seat": seat, "player": clean_name(player or "") or None, "turn": turn, "deadline": when, "text": text}


async def post_json(url: str, body: bytes, timeout: float) -> int:
    """POST `body` to `url` (HTTP/1.1, one request, `Connection: close`); the response's status.
    Each of connect (with TLS), send and read of the status line takes at most `timeout`."""
    parts = parse_url(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    with trio.fail_after(timeout):
        tcp = await trio.open_tcp_stream(host, port)
    stream: trio.abc.Stream = tcp
    try:
        if parts.scheme == "https":
            stream = trio.SSLStream(tcp, ssl.create_default_context(), server_hostname=host, https_compatible=True)
            with trio.fail_after(timeout):
                await stream.do_handshake()
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = (f"POST {target} HTTP/1.1\r\nHost: {parts.netloc}\r\nUser-Agent: cthulhu-notify\r\n"
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
                 backoff: float = BACKOFF, timeout: float = TIMEOUT) -> None:
        self.policy = policy
        self.limit = queue
        self.senders = senders
        self.attempts = attempts
        self.backoff = backoff
        self.timeout = timeout
        self.sent = self.failed = self.dropped = 0
        self._queue: deque[_Notice] = deque()
        self._busy: set[str] = set()  # hosts a sender is posting to now
        self._wake = trio.Event()

    @property
    def in_flight(self) -> frozenset[str]:
        """The hosts being posted to now."""
        return frozenset(self._busy)

    def notify(self, url: str, notice: dict[str, object]) -> None:
        """Queue `notice` for `url`; never waits (a full queue lets its oldest go, counted)."""
        self._put(_Notice(url, json.dumps(notice, sort_keys=True).encode()))

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
            self.policy.check(notice.url)  # the operator's word now, not when the table was made
        except ValueError as exc:
            self.failed += 1
            log.warning("notifications: not sent to a table's address any more allowed (%s)", exc)
            return
        try:
            status = await post_json(notice.url, notice.body, self.timeout)
            problem = None if 200 <= status < 300 else f"the answer was HTTP {status}"
            final = problem is None or (400 <= status < 500 and status not in (408, 429))
        except (OSError, trio.TooSlowError, trio.BrokenResourceError, ssl.SSLError, ValueError) as exc:
            problem, final = f"{type(exc).__name__}: {exc}"[:200], False
        if problem is None:
            self.sent += 1
            return
        if final or notice.tries >= self.attempts:
            self.failed += 1
            log.warning("notifications: gave up on one after %d tries (%s)", notice.tries, problem)
            return
        notice.due = trio.current_time() + self.backoff * 4 ** (notice.tries - 1)
        self._put(notice)


def allowed(patterns: Iterable[str]) -> NotifyPolicy:
    """The policy of `--notify-allow` (each pattern checked to be an http(s) URL glob)."""
    out = []
    for pattern in patterns:
        if not re.match(r"https?://[^/*?\[\]]", pattern):
            raise ValueError(f"--notify-allow {pattern!r}: a pattern is an http:// or https:// URL (glob) with its host, "
                             "e.g. https://hooks.example.org/*")
        out.append(pattern)
    return NotifyPolicy(tuple(out))
