"""The "since you left" dialog: what a player back at the table missed, before the prompt."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..link import SinceLeft
from ..safe import safe_text
from ..since import since_text


class SinceScreen(ModalScreen[None]):
    """Scrolls (arrows, PgUp/PgDn, Home/End); Enter or escape goes to the table and its prompt."""

    BINDINGS = [Binding("escape,enter,space", "dismiss", "To the table")]

    DEFAULT_CSS = "#textual-toastrack Toast { visibility: hidden; }"  # no toast over what was missed: it waits (the Log has it too)

    def __init__(self, since: SinceLeft, view: dict[str, Any], mine: Iterable[int] = ()) -> None:
        super().__init__()
        self.since = since
        self.view = view
        self.mine = frozenset(mine)  # this terminal's seats: every stand-in decision for them is told

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="since"):
            yield Static("Since you left", classes="title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(safe_text(since_text(self.since, self.view, self.mine)), id="since-body")
            yield Static("\nEnter / escape  to the table     arrows, PgUp, PgDn  scroll", classes="keys")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)
