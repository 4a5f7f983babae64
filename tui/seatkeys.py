"""This machine's seat tokens for one link's table: found, kept and forgotten (`net.seatstore`).

The same command takes a seat back: a joiner's token is kept by the address (at a server of many
tables, by the table), a hosting player's by the table's id, and a visitor's store is their own
(one data folder per visitor and table), so its newest seat is theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cthulhu.net import Welcome
    from cthulhu.net import SeatStore


@dataclass(frozen=True)
class SeatKeys:
    store: SeatStore | None
    address: str
    hosting: bool = False
    table: str | None = None  # hosting: our own table's id
    server_table: str | None = None  # at a server of many tables: the table joined
    visitor: bool = False
    watch: bool = False

    def stored(self, name: str) -> str | None:
        """The token this machine keeps for `name` at this table, if any."""
        if self.store is None or self.watch:
            return None
        try:
            if self.hosting:
                entry = self.store.find(name=name, table=self.table, hosting=True) if self.table else None
            elif self.server_table is not None:  # one of a server's tables: this machine's seat there
                entry = self.store.find(name=None, address=self.address, table=self.server_table)
            elif self.visitor:
                entry = next(iter(self.store.entries()), None)
            else:
                entry = self.store.find(name=name, address=self.address)
        except OSError:
            return None
        return entry.token if entry is not None else None

    def identity(self) -> str | None:
        """At a server of many tables: the key this machine is known by there (its name, "my tables")."""
        if self.server_table is None or self.store is None:
            return None
        try:
            return self.store.identity(self.address)
        except OSError:
            return None

    def remember(self, name: str, welcome: Welcome) -> str | None:
        """Keep a welcome's token; why it could not be kept (None: kept, or nothing to keep)."""
        if self.store is None or welcome.seat is None or not welcome.token:
            return None
        try:
            self.store.remember(address=self.address, table=welcome.table.id, name=name, seat=welcome.seat, token=welcome.token,
                                hosting=self.hosting)
        except OSError as exc:
            return f"could not keep the seat token on this machine: {exc.strerror or exc}"
        return None

    def forget(self, token: str | None) -> None:
        if self.store is not None and token:
            try:
                self.store.forget(token)
            except OSError:
                pass
