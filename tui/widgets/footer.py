"""The footer, fitted to its width: keys shown elsewhere too give way first, so Help and Quit always show.

Textual's footer lays every key out in a row and lets the command palette's key,
docked on the right, cover whatever reaches it: at 80 columns a networked game
(Chat, Table, Undo) lost `q Quit` under it. Here the keys that are also told
elsewhere leave first, in the order of `give_way`: the palette (ctrl+p and `:`
are in the help), Zoom (the focused pane's border says `z zoom`), Pane (the
side pane's border says what Tab shows next), Log (`l`, in the help).
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # (not re-exported; the type of what `Footer.compose` yields)

GIVE_WAY = ("command_palette", "zoom", "cycle", "full_log")


def key_width(widget: Widget) -> int:
    """Cells a footer key takes: ' key description ' (Textual's padding; the palette's border sits in it)."""
    return len(widget.key_display) + len(widget.description) + 3 if isinstance(widget, FooterKey) else 0


class FittedFooter(Footer):
    """A `Footer` that drops keys in `give_way` order (actions, without arguments) until the rest fit."""

    def __init__(self, give_way: tuple[str, ...] = GIVE_WAY) -> None:
        super().__init__()
        self.give_way = give_way
        self._fitted_to = 0

    def compose(self) -> ComposeResult:
        keys = list(super().compose())
        width = self.size.width or self.app.size.width
        self._fitted_to = width
        need = sum(key_width(k) for k in keys)
        for action in self.give_way:
            if need <= width:
                break
            for key in [k for k in keys if isinstance(k, FooterKey) and k.action.split("(")[0] == action]:
                keys.remove(key)
                need -= key_width(key)
        yield from keys

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._fitted_to:
            self.call_after_refresh(self.recompose)
