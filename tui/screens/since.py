"""The "since you left" dialog: what a player back at the table missed, before the prompt."""

from __future__ import annotations

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

    def __init__(self, since: SinceLeft, view: dict[str, Any]) -> None:
        super().__init__()
        self.since = since
        self.view = view

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="since"):
            yield Static("Since you left", classes="title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(safe_text(since_text(self.since, self.view)), id="since-body")
            yield Static("\nEnter / escape  to the table     arrows, PgUp, PgDn  scroll", classes="keys")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)
