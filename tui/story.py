"""What this terminal's Log has told of a table's story, so the host's recap adds only the rest.

A link follows it as news arrives (the setup's events with a first welcome, each delta's step);
a recap then gives the steps the Log has not told (all of them to a joiner; after a dropped
connection, those played meanwhile), and "since you left" what a player back at the table missed.
"""

from __future__ import annotations

from typing import Any

from cthulhu.net import RecapMsg, SinceMsg

from .link import SinceLeft


def _steps_after(recap: RecapMsg, step: int) -> list[list[Any]]:
    """The recap's entries after `step`, as `[step, events]` (entries of another shape are left out)."""
    return [[entry[0], [e for e in entry[1] if isinstance(e, dict)]] for entry in recap.entries
            if len(entry) == 2 and isinstance(entry[0], int) and entry[0] > step and isinstance(entry[1], list)]


class Story:
    """The last step whose events reached the Log, and the last recap with the step told before it."""

    def __init__(self) -> None:
        self.told = -1
        self._recap: tuple[RecapMsg, int] | None = None

    def opening(self) -> None:
        """The setup's own events (step 0) came with the first welcome: the recap need not tell them again."""
        self.told = max(self.told, 0)

    def moved(self, step: int) -> None:
        self.told = step

    def recap(self, msg: RecapMsg) -> list[dict[str, Any]]:
        """The events of the steps this Log has not told yet, oldest first."""
        told = self.told
        self._recap = (msg, told)
        self.told = max(told, msg.step)
        return [event for _, events in _steps_after(msg, told) for event in events]

    def since(self, msg: SinceMsg) -> SinceLeft | None:
        """What happened since this player last saw the table, from the recap just received (None:
        not the recap it follows, or nothing the Log has not told)."""
        if self._recap is None or self._recap[0].step != msg.step:
            return None
        recap, told = self._recap
        after = max(msg.seen, told)
        entries = _steps_after(recap, after)
        stand_in = {pair[0]: pair[1] for pair in msg.stand_in if len(pair) == 2 and pair[0] > after}
        older = max(0, msg.older - (after - msg.seen))
        if not entries and not older:
            return None
        return SinceLeft(seen=after, step=msg.step, entries=entries, stand_in=stand_in, older=older)
