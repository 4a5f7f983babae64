"""The footer, fitted to its width: keys shown elsewhere too give way first, so Help and Quit always show.

Textual's footer lays every key out in a row and lets the command palette's key,
docked on the right, cover whatever reaches it: at 80 columns a networked game
(Chat, Table, Undo) lost `q Quit` under it. Here the keys that are also told
elsewhere leave first, in the order of `give_way`: the palette (ctrl+p and `:`
are in the help), Zoom (the focused pane's border says `z zoom`), Pane (the
side pane's border says what Tab shows next), Log (`l`, in the help).

Textual's footer also rebuilds itself (removes every key widget, mounts new ones and
styles them) whenever the screen's bindings are refreshed, which the game does each
time a key comes or goes (Undo, nearly every decision): that was a tenth of an
update's CPU. This one keeps its key widgets: a key that goes is hidden, one that
comes back is shown again, one that only turns on or off is restyled, and it is
rebuilt only for a key it has never had.
"""

from __future__ import annotations

from collections.abc import Iterator

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # (not re-exported; the type of what `Footer.compose` yields)

GIVE_WAY = ("command_palette", "zoom", "cycle", "full_log")

KeySpec = tuple[str, str, str, str, str, str]  # what a key widget shows and does, but whether it is on


def key_width(widget: Widget) -> int:
    """Cells a footer key takes: ' key description ' (Textual's padding; the palette's border sits in it)."""
    return len(widget.key_display) + len(widget.description) + 3 if isinstance(widget, FooterKey) else 0


def key_spec(key: FooterKey) -> KeySpec:
    classes = "-command-palette" if key.has_class("-command-palette") else ""  # (the only class made here)
    return (key.key, key.key_display, key.description, key.action, str(key.tooltip or ""), classes)


def merged(wanted: list[KeySpec], kept: list[KeySpec]) -> Iterator[KeySpec]:
    """`wanted` in its order, with the `kept` ones it lacks where they stood among the others."""
    rest = list(kept)
    for spec in wanted:
        if spec in rest:
            at = rest.index(spec)
            yield from (s for s in rest[:at] if s not in wanted)
            rest = rest[at + 1 :]
        yield spec
    yield from (s for s in rest if s not in wanted)


class FittedFooter(Footer):
    """A `Footer` that drops keys in `give_way` order (actions, without arguments) until the rest fit,
    and shows, hides and restyles the key widgets it has rather than rebuilding them."""

    def __init__(self, give_way: tuple[str, ...] = GIVE_WAY) -> None:
        super().__init__()
        self.give_way = give_way
        self._fitted_to = 0
        self.rebuilds = 0  # times the key widgets were made anew (tests: availability changes make none)
        self._kept: list[KeySpec] = []  # the keys composed last, shown or hidden, in their order

    def candidates(self) -> list[Widget] | None:
        """The keys Textual's footer composes now (one per action, in the bindings' order, the palette's
        on the right), as new widgets; None for bindings in groups (Textual's own compose, then). Made here
        rather than by `Footer.compose`, which also sets a grid style and so lays the screen out."""
        if not self._bindings_ready:
            return []
        active = self.screen.active_bindings
        first: dict[str, tuple[Binding, bool, str]] = {}
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                if binding.group is not None:
                    return None
                first.setdefault(binding.action, (binding, enabled, tooltip))
        keys: list[Widget] = [
            FooterKey(b.key, self.app.get_key_display(b), b.description, b.action, disabled=not on, tooltip=tip)
            for b, on, tip in first.values()
        ]
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and self.app.COMMAND_PALETTE_BINDING in active:
            _, b, on, _tip = active[self.app.COMMAND_PALETTE_BINDING]
            keys.append(FooterKey(b.key, self.app.get_key_display(b), b.description, b.action, classes="-command-palette",
                                  disabled=not on, tooltip=b.tooltip or b.description))
        return keys

    def planned(self) -> list[Widget] | None:
        """`candidates`, fitted to the width."""
        keys = self.candidates()
        if keys is None:
            return None
        width = self.size.width or self.app.size.width
        self._fitted_to = width
        need = sum(key_width(k) for k in keys)
        for action in self.give_way:
            if need <= width:
                break
            for key in [k for k in keys if isinstance(k, FooterKey) and k.action.split("(")[0] == action]:
                keys.remove(key)
                need -= key_width(key)
        return keys

    def compose(self) -> ComposeResult:
        keys = self.planned()
        self.rebuilds += 1
        if keys is None:
            self._kept = []
            yield from super().compose()  # binding groups (not used here): Textual's own way
            return
        wanted = {key_spec(k): k for k in keys if isinstance(k, FooterKey)}
        self._kept = list(merged(list(wanted), self._kept))
        for spec in self._kept:  # keys that went stay, hidden, for when they come back
            key = wanted.get(spec) or FooterKey(*spec[:4], tooltip=spec[4], classes=spec[5])
            key.display = spec in wanted
            yield key if spec[5] else key.data_bind(compact=Footer.compact)  # (as Textual's: not the palette's key)

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self.refit)  # (as Textual's: once the focus and the screen have settled)

    def refit(self) -> None:
        """Show the keys `planned` says, with the widgets there are; rebuild only for a key never had.
        (An owner that knows its keys changed calls this at once, to draw them in the same frame.)"""
        if not self.is_attached or self.app.screen is not self.screen:
            return  # a screen under a dialog, or going: its keys are asked again when it is on top
        keys = self.planned()
        have = {key_spec(k): k for k in self.query_children(FooterKey)}
        wanted = {key_spec(k): k for k in keys or () if isinstance(k, FooterKey)}
        if keys is None or len(wanted) != len(keys) or [s for s in have if s in wanted] != list(wanted):
            self.call_later(self.recompose)  # a key never had (or in another order); in the footer's own context
            return
        for spec, widget in have.items():
            new = wanted.get(spec)
            if widget.display != (new is not None):
                widget.display = new is not None
            if new is not None and widget._disabled != new._disabled:
                widget._disabled = new._disabled
                widget.set_class(new._disabled, "-disabled")

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._fitted_to:
            self.call_after_refresh(self.refit)
