"""What a table server allows: its limits besides each connection's (`net.limits.Limits`), in one place."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from cthulhu.net import Limits


@dataclass(frozen=True, kw_only=True)
class ServerLimits:
    """What a server allows, besides each connection's `Limits` (`table`, also the shared gate's)."""

    table: Limits = field(default_factory=lambda: Limits(max_connections=4096))
    lobby_frames: tuple[float, int] = (4.0, 20)  # lobby requests from one connection (per second, burst)
    lobby_all: tuple[float, int] = (100.0, 200)  # lobby requests from all connections together, in turn
    creates: tuple[float, int] = (1 / 30, 10)  # new tables from one network (/24, /64)
    identities: tuple[float, int] = (0.1, 20)  # new identities from one network (past it: anonymous)
    max_tables: int = 10_000  # live tables in all that someone has sat at
    max_untouched: tuple[int, int] = (10, 1000)  # tables nobody sat at yet, from one network and in all
    untouched_expiry: tuple[float, float] = (600.0, 3600.0)  # seconds they are kept (made anonymously, by an identity)
    max_created: int = 50  # unfinished tables one identity created
    idle_close: float = 300.0  # seconds an open table nobody is at stays open
    sweep_every: float = 30.0
    archive_after: timedelta = timedelta(days=30)  # of wall time without a move
    flush_every: float = 0.2
