"""The one-line chat input of a networked game.

Hidden until the player presses the chat key; Enter sends the line to the table
(the host relays it to every peer, us included, so it reaches our Log the same
way as everyone else's), Escape closes it without sending.
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Input

from cthulhu.net import CHAT_MAX as MAX_CHAT  # what the host relays of one line


class ChatInput(Input):
    # Compact: one row and no border, focused or not (Input's own focus rule draws a border three rows
    # tall, which in one row left only the border to be seen, never the words being typed).
    DEFAULT_CSS = """
    ChatInput { display: none; }
    ChatInput.-textual-compact { padding: 0 1; background: $boost; }
    ChatInput.open { display: block; }
    """

    class Said(Message):
        """The player sent a line (already stripped, never empty)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="Say something to the table (Enter sends, Esc closes)", max_length=MAX_CHAT, id=id, compact=True)

    @property
    def is_open(self) -> bool:
        return self.has_class("open")

    def open(self) -> None:
        self.value = ""
        self.add_class("open")
        self.focus()

    def close(self) -> None:
        self.remove_class("open")
        self.value = ""
        self.screen.set_focus(None)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        self.close()
        if text:
            self.post_message(self.Said(text))

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.close()
