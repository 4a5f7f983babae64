"""The host's command log: every applied command and take-back, before any peer hears of it.

`MemoryLog` keeps it in memory; `savegame.SaveWriter` is the same log kept for a save file (the
host's `HostSave` writes its bytes, off the event loop). `open_table` chooses which a table gets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class CommandLog(Protocol):
    """Everything the host asks of its log: the steps as they happen, and the seats."""

    sealed: list[int]  # the steps a stand-in bot decided

    def append(self, seat: int, command: dict[str, Any], state_hash: str) -> None: ...
    def truncate(self, step: int) -> None:
        """A take-back: keep the first `step` commands, the game as it now stands."""
    def commands(self) -> list[tuple[int, dict[str, Any]]]:
        """The log as (seat, command wire) pairs: a peer that joins mid-game is sent them."""
    def set_players(self, players: list[dict[str, Any]]) -> None:
        """Who sits where (names, token hashes, bots), for a save to give the seats back."""
    def seal(self, step: int) -> None:
        """A stand-in bot decided `step`: no take-back crosses it, after a reload too."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    seat: int
    command: dict[str, Any]
    hash: str


@dataclass(slots=True)
class MemoryLog:
    """The log of a table without a save file (`--no-save`): entries and seats in memory only."""

    entries: list[LogEntry] = field(default_factory=list)
    players: list[dict[str, Any]] = field(default_factory=list)
    sealed: list[int] = field(default_factory=list)

    def append(self, seat: int, command: dict[str, Any], state_hash: str) -> None:
        self.entries.append(LogEntry(seat, dict(command), state_hash))

    def truncate(self, step: int) -> None:
        del self.entries[step:]
        self.sealed = [k for k in self.sealed if k <= step]

    def commands(self) -> list[tuple[int, dict[str, Any]]]:
        return [(e.seat, e.command) for e in self.entries]

    def set_players(self, players: list[dict[str, Any]]) -> None:
        self.players = list(players)

    def seal(self, step: int) -> None:
        self.sealed.append(step)
