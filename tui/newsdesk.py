"""A link's news on its way to the screen: one queue of small typed updates (`tui.link`), each over
the view on screen and the link's own state line (reconnecting..., waiting for seats), which stays
until news says otherwise.

The first news is the link's answer to `open()`; what a recap says before it (the story so far,
what happened since the player left) waits and goes with it, as nothing is on screen to tell it
over until then.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from cthulhu.net import PeerSession

from .link import Noticed, Opened, Update

U = TypeVar("U", bound=Update)


class Newsdesk:
    """The queue (None ends it), the state line (`status`), and whether the first news is out (`opened`)."""

    def __init__(self, view: Callable[[], dict[str, Any]]) -> None:
        """`view`: the view on screen now (empty before any)."""
        self.queue: asyncio.Queue[Update | None] = asyncio.Queue()
        self.status: str | None = None
        self.opened: Opened | None = None
        self.early: list[Update] = []  # a recap's news that came before `open()` gave the first (it goes with that)
        self._view = view

    def put(self, kind: type[U], *, status: Any = ..., source: PeerSession | None = None, **payload: Any) -> None:
        """Queue news of `kind` over the latest view; `status` (the link's own state line) stays unless given.
        `source`: the session the news came on, whose view stands in while `open()` is still seating us
        (a finished game's `game_over` comes with its welcome, before any connection is ours)."""
        if status is not ...:
            self.status = status
        view = self._view() or (source.mirror.view if source is not None and source.mirror.view is not None else {})
        self.queue.put_nowait(kind(view=view, status=self.status, **payload))

    def notice(self, text: str, *, headline: bool = False, source: PeerSession | None = None) -> None:
        self.put(Noticed, text=text, headline=headline, source=source)

    def story(self, kind: type[U], **payload: Any) -> None:
        """A recap's news: with the first news while `open()` has not given it yet, else now."""
        told = kind(view=self._view(), status=self.status, **payload)
        self.early.append(told) if self.opened is None else self.queue.put_nowait(told)

    def ready(self, seated: bool) -> bool:
        """News goes on the queue once `open()` has given the first (before, there is no view to put
        in it: a watcher's welcome used to queue news with an empty view); `seated`: the link has a
        seat here, or watches."""
        return self.opened is not None and seated
