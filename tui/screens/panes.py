"""The game screen's layout: four panes, the moment card, the Log strip and the toasts, fitted to
the terminal; the focus moving from pane to pane; zooming. Nothing here knows the table: the
game screen (`screens.game`) draws what is in the panes and says when the layout is to be redone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual import events
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets._toast import ToastRack  # (not re-exported: the container Textual puts notifications in)

from ..moments import Moments
from ..options import WIDE_SIZE
from ..english import plural
from ..widgets.chat import ChatInput
from ..widgets.log_strip import LogStrip
from ..widgets.moment_card import MomentCard
from ..widgets.panes import LogPane, MapPane, ViewPane
from ..widgets.prompt_bar import PromptBar

if TYPE_CHECKING:
    from ..app import CthulhuApp

PANES = ("map", "investigators", "story", "log")  # the focus order of Tab
SIDE_PANES = ("investigators", "story", "log")
PANE_TITLES = {"map": "Map", "story": "Story Board", "investigators": "Investigators", "log": "Log"}


class PaneScreen(Screen[None]):
    """The panes' places (see `GameScreen` for the keys that move between them)."""

    def __init__(self) -> None:
        super().__init__()
        self.side = "investigators"  # the side pane a small terminal shows
        self.moments = Moments()  # the big moments since this terminal's last decision (the card shows them)
        self.resized_to: Size | None = None  # from the last Resize event
        self._rows: str | None = None  # the grid rows last set (None: the stylesheet's)

    # Textual types `self.app` as App[object]; its `getters.app(CthulhuApp)` would need the app
    # module, which imports this one, so `cthulhu` casts instead.
    @property
    def cthulhu(self) -> CthulhuApp:
        """The app, typed as ours (Textual's `self.app` is any App)."""
        return cast("CthulhuApp", self.app)

    def on_resize(self, event: events.Resize) -> None:
        self.resized_to = event.size  # the new size (the app's may lag behind the event)
        self.relayout()

    @property
    def compact(self) -> bool:
        w, h = self.resized_to or self.app.size
        return w < WIDE_SIZE[0] or h < WIDE_SIZE[1]

    def relayout(self) -> None:
        compact = self.compact
        self.set_class(compact, "compact")
        for name in SIDE_PANES:
            self.query_one(f"#{name}").set_class(compact and name != self.side, "hidden")
        self.show_moments()
        self.call_after_refresh(self.place_card)  # again once the panes have their new sizes
        self.titles()
        self.fit_rows()
        self.refresh_bindings()

    def moment_rows(self) -> int:
        """The most lines the moment card may take: a quarter of a small terminal, a fifth of a large one."""
        height = (self.resized_to or self.app.size).height
        return max(3, height // 4) if self.compact else max(4, height // 5)

    def place_card(self) -> None:
        """The moment card just above the prompt bar: in the Log strip's place (and at least its height) on
        a small terminal, over the Log pane's foot (its width; a zoomed pane's whole width) on a large one."""
        card = self.query_one(MomentCard)
        if self.compact:
            card.place(0, None, LogStrip.ROWS)
            return
        chat = self.query_one(ChatInput)
        bottom = self.query_one(PromptBar).rows + 1 + 1 + (1 if chat.is_open else 0)  # the bar and its border, the footer, chat
        log = self.query_one(LogPane)
        wide = self.maximized is None and log.display and log.outer_size.width
        card.place(bottom, log.outer_size.width if wide else None, 1)

    def show_moments(self) -> None:
        """The moment card as the moments now are; on a small terminal it stands in the Log strip's place."""
        self.query_one(LogStrip).set_class(not self.compact or self.side == "log" or bool(self.moments.items), "hidden")
        self.place_card()
        self.query_one(MomentCard).show(self.moments.items, self.moment_rows())

    def titles(self) -> None:
        """Each pane's title; the focused one says how it scrolls, a small terminal's side pane what Tab shows next."""
        ascii_mode = self.cthulhu.ascii_mode
        scroll = ("up/down PgUp/PgDn" if ascii_mode else "↑↓ PgUp/PgDn") + " scroll  z zoom"
        focused = self.focused
        for name in PANES:
            pane = self.query_one(f"#{name}")
            if pane is focused:
                subtitle = scroll
            elif self.compact and name == self.side:
                nxt = PANES[(PANES.index(name) + 1) % len(PANES)]
                subtitle = f"tab: {PANE_TITLES[nxt]}"
            else:
                subtitle = ""
            if isinstance(pane, LogPane):  # read back while the story went on: its top border says so
                # (the top: the moment card may lie over the pane's foot)
                title = PANE_TITLES[name]
                if pane.unseen:
                    dash = " - " if ascii_mode else " — "
                    title += f"{dash}{plural(pane.unseen, 'new line')} below" + (f"{dash}End" if pane is focused else "")
                if pane.border_title != title:
                    pane.border_title = title
            if pane.border_subtitle != subtitle:
                pane.border_subtitle = subtitle

    def fit_rows(self) -> None:
        """Wide layout: the Map as tall as its picture, the Log takes the rest below it."""
        body = self.query_one("#body")
        height = body.size.height
        if self.compact or height < 12:
            if self._rows is not None:
                self._rows = None
                body.styles.grid_rows = None
            return
        lines = self.query_one(MapPane).content_lines
        map_h = max(8, min(lines + 2, height - 7))
        story_h = max(4, min(map_h - 4, height * 45 // 100))
        rows = f"{story_h} {map_h - story_h} 1fr"
        if rows != self._rows:
            self._rows = rows
            body.styles.grid_rows = rows
            self.call_after_refresh(self.redraw_panes)

    def redraw_panes(self) -> None:
        """Each pane drawn at the rows the grid gave it. A pane's own resize event usually does this, but
        one the grid resized while the screen was laid out under load was seen to miss it (the Map kept
        a scrollbar's width with nothing to scroll, 1 fresh start in 25 at load 6)."""
        for pane in self.query(ViewPane):
            pane.redraw()

    def on_log_lines_unseen(self, message: LogPane.Unseen) -> None:
        self.titles()

    def place_toasts(self, _: object = None) -> None:
        """Notifications stand on the prompt bar (and the chat line, when open), never over them: Textual
        docks them over the bottom row alone (its footer). Dialogs over this screen keep the same place."""
        guarded = [w.region.y for w in (*self.query(ChatInput), *self.query(PromptBar)) if w.region.height]  # (none once closed)
        if not guarded:
            return
        margin = self.size.height - min(guarded)
        stack = self.app.screen_stack
        for screen in stack[stack.index(self):] if self in stack else [self]:
            for rack in screen.query(ToastRack):
                if rack.styles.margin.bottom != margin:
                    rack.styles.margin = (0, 0, margin, 0)

    def on_screen_suspend(self) -> None:
        self.app.call_after_refresh(self.place_toasts)  # a dialog's own notifications, once it is up

    def on_view_pane_grew(self, message: ViewPane.Grew) -> None:
        self.fit_rows()  # the Map as tall as its picture at its width now (it is drawn after a resize)

    def on_descendant_focus(self, event: Any) -> None:
        """A side pane that gets the focus is the one shown on a small terminal."""
        widget = event.widget
        if widget.id in SIDE_PANES and widget.id != self.side:
            self.side = widget.id
            self.relayout()
        else:
            self.titles()
        if isinstance(widget, ChatInput):
            self.place_card()  # the chat line opened under it

    def on_descendant_blur(self, event: Any) -> None:
        self.titles()
        if isinstance(event.widget, ChatInput):
            self.place_card()

    def focused_pane(self) -> str:
        focused = self.focused
        return focused.id if focused is not None and focused.id in PANES else "map"

    def action_cycle(self, step: int) -> None:
        """Tab / shift+Tab: the focus to the next (previous) pane; a zoomed pane gives way to the next one zoomed."""
        nxt = PANES[(PANES.index(self.focused_pane()) + step) % len(PANES)]
        self.focus_pane(nxt, zoomed=self.maximized is not None)

    def focus_pane(self, name: str, zoomed: bool = False) -> None:
        if name in SIDE_PANES and name != self.side:
            self.side = name
            self.relayout()
        pane = self.query_one(f"#{name}")
        if zoomed:
            self.maximize(pane, container=False)
        pane.focus()

    def action_next_pane(self) -> None:
        self.action_cycle(1)

    def show_pane(self, name: str) -> None:
        if name in PANES:
            self.focus_pane(name)

    def action_zoom(self) -> None:
        """The focused pane to the whole screen, or back."""
        if self.maximized is not None:
            self.minimize()
        else:
            self.maximize(self.query_one(f"#{self.focused_pane()}"), container=False)
        self.call_after_refresh(self.place_card)  # over the zoomed pane, or the Log's foot again

    def action_full_log(self) -> None:
        """The whole Log, zoomed; again to go back."""
        log = self.query_one(LogPane)
        if self.maximized is log:
            self.minimize()
        else:
            self.focus_pane("log", zoomed=True)
        self.call_after_refresh(self.place_card)
