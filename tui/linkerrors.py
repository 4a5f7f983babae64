"""Why a table link did not open: refused by the host (with its wire code), unreachable, or a
server's lobby where a table was expected."""

from __future__ import annotations

from cthulhu.net import Error


class LinkError(Exception):
    """The host refused us or could not be reached; the message says why."""


class ServerLobby(LinkError):
    """The address is a server of many tables and no table was named: its lobby is the way in."""


class Unreachable(LinkError):
    """Nothing answers at the address yet (friends often run `cthulhu join` before the host is up).
    Raised only before any seat is connected, so `open()` may simply be tried again."""


class Refused(LinkError):
    """The host refused our hello: `code` is its wire code (`bad_code`, `table_full`, ...)."""

    def __init__(self, closed: Error) -> None:
        super().__init__(f"the host refused us: {closed.reason}")
        self.code = closed.code
        self.reason = closed.reason


def refusal(closed: Error) -> LinkError:
    """The error for a hello the host refused with `closed`."""
    return ServerLobby(closed.reason) if closed.code == "server_lobby" else Refused(closed)
