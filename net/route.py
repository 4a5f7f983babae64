"""Where a client's next connection goes when a server of several processes answers `redirect`.

A table of a `cthulhu server` fleet is run by one process at a time (its lease holder); any other
process answers a hello for it with `redirect{host, port, tls_port}`. A client follows at once,
with the same hello, and comes back to the address it was given (its *home*: the one typed, a
balancer or a DNS name) whenever a connection is lost or cannot be made, so a table that moved
again (its owner stopped or died) is found from there. The drivers (`net.client.play_seat`, the
app's `NetLink`) share this; it does no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .messages import Redirect

MAX_HOPS = 4  # redirects in a row with no welcome, no lost connection between: a loop, not a hand-off


class RedirectRefused(Exception):
    """A redirect the client does not follow; the message is one line for the player."""


@dataclass
class Route:
    """The home address and where the next connection goes (`host`, `port`). `tls`: the client
    is on TLS, so it follows only to a TLS port (never down to plain TCP)."""

    home_host: str
    home_port: int
    tls: bool = False
    host: str = field(init=False)
    port: int = field(init=False)
    hops: int = 0

    def __post_init__(self) -> None:
        self.host, self.port = self.home_host, self.home_port

    @property
    def away(self) -> bool:
        """The next connection goes where a redirect said, not home."""
        return (self.host, self.port) != (self.home_host, self.home_port)

    def follow(self, msg: Redirect) -> None:
        """The host answered `msg`: the next connection goes there. `RedirectRefused` after too
        many in a row (processes sending the table round in circles) or to no TLS port on TLS."""
        self.hops += 1
        if self.hops > MAX_HOPS:
            raise RedirectRefused(f"the server sent this table from process to process {MAX_HOPS} times without taking it; try again later")
        port = msg.tls_port if self.tls else msg.port
        if port is None:
            raise RedirectRefused(f"the table is at {msg.host}, a process of this server without TLS; not following over plain TCP")
        self.host, self.port = msg.host, port

    def arrived(self) -> None:
        """Welcomed: the redirects that led here were a route, not a loop."""
        self.hops = 0

    def lost(self) -> None:
        """The connection was lost or could not be made: the next one goes home, which knows
        where the table is now."""
        self.host, self.port = self.home_host, self.home_port
        self.hops = 0

    def where(self) -> str:
        return f"{self.host}:{self.port}"
