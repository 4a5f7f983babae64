"""A door's visitor idle in a server's lobby is let go (`join --lobby-idle`, set by the doors).

Every visitor through a server's SSH or web door is a process and a place in the doors' limits;
in the lobby nobody waits for them, so a session left open there (or held open on purpose from a
few addresses) would keep the doors shut for everyone else. At a table the table's own rules
apply (a seat waits for its player), so only time spent on the lobby's screen counts, and any
key there starts the count again.
"""

from __future__ import annotations

from collections.abc import Callable

from cthulhu.net import format_duration


class LobbyIdle:
    """When the last key came, and whether the visitor has been in the lobby too long since."""

    def __init__(self, limit: float, now: Callable[[], float]) -> None:
        self.limit = limit
        self.now = now
        self.last = now()

    def key(self) -> None:
        self.last = self.now()

    def over(self, in_lobby: bool) -> bool:
        """Time to let the visitor go: in the lobby, no key for `limit` seconds (leaving the lobby
        for a table and coming back starts the count again)."""
        if not in_lobby:
            self.last = self.now()
            return False
        return self.now() - self.last >= self.limit

    def farewell(self) -> str:
        return (f"You were in the lobby for {format_duration(self.limit)} without a key, so the door let you go "
                "to make room for others; come back any time.")

    @property
    def check_every(self) -> float:
        """How often to look: a twentieth of the limit, between 0.5 and 15 seconds."""
        return max(0.5, min(15.0, self.limit / 20))
