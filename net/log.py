"""The host's command log: one small interface, kept in memory until a save file takes over.

`savegame.writer.SaveWriter` has the same `append` signature (plus `flush`), so
the host autosaves by being handed one instead of a `MemoryLog`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class CommandLog(Protocol):
    """Called by the host right after each applied command (or take-back), before any peer hears of it."""

    def append(self, seat: int, command: dict[str, Any], state_hash: str) -> None: ...
    def truncate(self, step: int) -> None: ...
    def commands(self) -> list[tuple[int, dict[str, Any]]]: ...


@dataclass(frozen=True, slots=True)
class LogEntry:
    seat: int
    command: dict[str, Any]
    hash: str


@dataclass(slots=True)
class MemoryLog:
    """The default log: entries in memory, nothing on disk."""

    entries: list[LogEntry] = field(default_factory=list)

    def append(self, seat: int, command: dict[str, Any], state_hash: str) -> None:
        self.entries.append(LogEntry(seat, dict(command), state_hash))

    def truncate(self, step: int) -> None:
        """A take-back: keep the first `step` commands, the game as it now stands."""
        del self.entries[step:]

    def commands(self) -> list[tuple[int, dict[str, Any]]]:
        return [(e.seat, e.command) for e in self.entries]

    def flush(self) -> None:
        """Nothing to write; a save-backed log writes its file here."""
