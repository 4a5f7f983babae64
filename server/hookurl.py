"""Where a table's notifications may go: webhook URLs checked on their parsed parts, never as text.

The operator allows patterns (`cthulhu server --notify-allow https://hooks.example.org/hooks/*`).
A table's URL is allowed by a pattern when its scheme, host and port are the pattern's exactly
(no glob there: `http://1*.hooks.example/*` is refused as a pattern), and its path matches the
pattern's segment by segment (`*`, `?`, `[..]` inside one segment; a `**` segment stands for any
number of segments). A URL with a user name, a `#fragment`, a `.`/`..` segment (also spelt
`%2e`), an encoded `/` or `\\`, or an empty segment is refused whatever the patterns say: what is
allowed is what the receiver will route, not what a glob over the text happened to match.

A name is resolved again when a notice is sent, and only addresses the patterns allow are
contacted (`Target.addresses`): a public address for a pattern that names a host, or exactly the
address a pattern spells as an IP literal. So a name that points at the server's own loopback or
a private network is refused at send time unless the operator allows that address by number.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from urllib.parse import unquote, urlsplit

import trio

MAX_URL = 1000
_URL_CHARS = re.compile(r"[!#$%&'()*+,\-./0-9:;=?@A-Z\[\]_a-z~]+")  # RFC 3986's, nothing else (no spaces, no controls)
_GLOB = re.compile(r"[*?\[\]]")
_DEFAULT_PORT = {"http": 80, "https": 443}

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]


class NotifyRefused(ValueError):
    """A notification address this server will not use: a wire code and one line."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _bad(reason: str) -> NotifyRefused:
    return NotifyRefused("bad_notify", reason)


def _ip(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


@dataclass(frozen=True)
class Target:
    """A webhook URL in parts: what is connected to, and what is sent."""

    url: str
    scheme: str
    host: str  # lower case; an IPv6 address without its brackets
    port: int
    netloc: str  # the Host header
    segments: tuple[str, ...]  # the path's, as written (between the slashes)
    query: str

    @property
    def target(self) -> str:
        """The request line's target: the path and query exactly as allowed."""
        return "/" + "/".join(self.segments) + (f"?{self.query}" if self.query else "")

    def same_place(self, other: "Target") -> bool:
        """Scheme, host and port equal (an IP literal compared as an address)."""
        if (self.scheme, self.port) != (other.scheme, other.port):
            return False
        mine, theirs = _ip(self.host), _ip(other.host)
        return mine == theirs if mine is not None or theirs is not None else self.host == other.host


def parse_url(url: str, *, what: str = "a notification address") -> Target:
    """An http(s) URL that passes the rules above, or `NotifyRefused("bad_notify", ...)`."""
    if not 1 <= len(url) <= MAX_URL or not _URL_CHARS.fullmatch(url):
        raise _bad(f"{what} is a URL of up to {MAX_URL} plain characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise _bad(f"{what} is not a URL") from None
    if parts.scheme not in _DEFAULT_PORT or not parts.hostname:
        raise _bad(f"{what} is an http:// or https:// URL with a host")
    if "@" in parts.netloc:
        raise _bad(f"{what} carries no user name or password (put a token in its path)")
    if port == 0:
        raise _bad(f"{what} needs a real port")
    if "#" in url:
        raise _bad(f"{what} has no #fragment")
    segments = tuple(parts.path.split("/")[1:]) if parts.path else ()
    for n, segment in enumerate(segments):
        plain = unquote(segment)
        if plain in (".", "..") or "/" in plain or "\\" in plain or (not segment and n != len(segments) - 1):
            raise _bad(f"{what} has no '.' or '..' path segment, no encoded slash and no empty segment")
    return Target(url, parts.scheme, parts.hostname.lower(), port or _DEFAULT_PORT[parts.scheme], parts.netloc,
                  segments, parts.query)


def _path_matches(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_path_matches(rest, path[n:]) for n in range(len(path) + 1))
    return bool(path) and fnmatchcase(path[0], head) and _path_matches(rest, path[1:])


@dataclass(frozen=True)
class HookPattern:
    """One `--notify-allow`: a place (scheme, host, port: exact) and a path glob per segment."""

    place: Target

    @classmethod
    def of(cls, pattern: str) -> "HookPattern":
        """The pattern, or `ValueError` with one line (a glob, a user name or a `?` query in its
        host part, a `.`/`..` segment in its path)."""
        problem = (f"--notify-allow {pattern!r}: a pattern is an http:// or https:// URL whose host and port are "
                   "written out (globs only in the path), e.g. https://hooks.example.org/hooks/*")
        head = re.fullmatch(r"(https?://(?:[^/?#*\[\]@]+|\[[0-9A-Fa-f:.]+\](?::[0-9]+)?))(/[^#]*)?", pattern)
        if head is None:
            raise ValueError(problem)
        try:
            place = parse_url(head.group(1) + "/", what="a pattern")
        except NotifyRefused as exc:
            raise ValueError(f"--notify-allow {pattern!r}: {exc.reason}") from None
        segments = tuple((head.group(2) or "/").split("/")[1:])
        if any(unquote(s) in (".", "..") for s in segments):
            raise ValueError(f"--notify-allow {pattern!r}: a pattern has no '.' or '..' path segment")
        return cls(Target(pattern, place.scheme, place.host, place.port, place.netloc, segments, ""))

    def allows(self, target: Target) -> bool:
        return self.place.same_place(target) and not target.query and _path_matches(self.place.segments, target.segments)

    @property
    def address(self) -> Address | None:
        """The address the pattern spells out, if its host is an IP literal."""
        return _ip(self.place.host)


async def resolve_host(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to now (the system's resolver, off the event loop)."""
    found = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


@dataclass(frozen=True)
class NotifyPolicy:
    """Where this server may send notifications (`HookPattern`s; none: notifications are off)."""

    patterns: tuple[HookPattern, ...] = ()

    @property
    def on(self) -> bool:
        return bool(self.patterns)

    def check(self, url: str) -> Target:
        """The parsed `url` if notifications may go there; `NotifyRefused` (typed, one line) otherwise."""
        if not self.on:
            raise NotifyRefused("notify_off", "this server sends no notifications (its operator allows no address: "
                                              "cthulhu server --notify-allow PATTERN)")
        target = parse_url(url)
        if not any(p.allows(target) for p in self.patterns):
            raise NotifyRefused("notify_not_allowed", "this server's operator does not allow notifications to that address")
        return target

    def address_allowed(self, target: Target, address: str) -> bool:
        """May `address` (`target.host` resolved) be contacted for `target`? A public address when
        a pattern that names a host allows it; any other only when a pattern spells exactly that
        address (an IP literal) with the target's scheme and port."""
        ip = _ip(address.split("%")[0])
        if ip is None:
            return False
        if ip.is_global and any(p.address is None and p.allows(target) for p in self.patterns):
            return True
        return any(p.address == ip and (p.place.scheme, p.place.port) == (target.scheme, target.port) for p in self.patterns)

    async def addresses(self, target: Target, resolve: Resolver = resolve_host) -> list[str]:
        """The addresses to try for `target` now, each one the patterns allow; `NotifyRefused`
        if its host resolves to none of them (or to nothing)."""
        literal = _ip(target.host)
        found = [str(literal)] if literal is not None else await resolve(target.host, target.port)
        good = [a for a in found if self.address_allowed(target, a)]
        if not good:
            raise NotifyRefused("notify_not_allowed", f"{target.host} resolves to no address this server's operator allows "
                                                      f"({', '.join(found[:4]) or 'none'})")
        return good


def allowed(patterns: Iterable[str]) -> NotifyPolicy:
    """The policy of `--notify-allow` (each pattern checked; `ValueError` with one line)."""
    return NotifyPolicy(tuple(HookPattern.of(p) for p in patterns))
