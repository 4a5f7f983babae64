"""The game: four panes, the prompt bar, and the loop that reads updates from the table link.

Updates arrive in an async worker on Textual's own asyncio loop, so handling one
is a plain method call: nothing blocks and nothing crosses threads.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static
from textual.widgets._toast import ToastRack  # (not re-exported: the container Textual puts notifications in)

from cthulhu.net.clock import format_duration
from cthulhu.net.textclean import clean_text

from ..link import SaveUnavailable, TableLink, Update
from ..english import plural
from ..modes import check_view, tui_mode
from ..moments import Moments
from ..narrate import KIND_STYLES, tell, told_and_beat
from ..options import OPTION_KEYS, WIDE_SIZE
from ..safe import clean_update, plain, safe_text
from ..widgets.chat import ChatInput
from ..widgets.footer import FittedFooter
from ..hints import Hints
from ..widgets.log_strip import LogStrip
from ..widgets.moment_card import MomentCard
from ..widgets.panes import InvestigatorsPane, LogPane, MapPane, StoryPane, ViewPane
from ..widgets.prompt_bar import PromptBar

if TYPE_CHECKING:
    from ..app import CthulhuApp

# Textual types `self.app` as App[object]; its `getters.app(CthulhuApp)` would need the app
# module, which imports this one, so `GameScreen.cthulhu` casts instead.
from .dialogs import ChoiceScreen, GameOverScreen, QuitScreen

PANES = ("map", "investigators", "story", "log")  # the focus order of Tab
SIDE_PANES = ("investigators", "story", "log")
PANE_TITLES = {"map": "Map", "story": "Story Board", "investigators": "Investigators", "log": "Log"}
MANY_OPTIONS = 12  # more than this opens the list dialog by itself
RETRY_SECONDS = 2  # a joiner whose host does not answer yet tries again this often


def key_list(keys: list[str]) -> str:
    """'1-4', '1, 3 or 4', '1-9, a or b': the keys that pick something now (runs of digits shortened)."""
    parts: list[str] = []
    run: list[str] = []
    for key in [k for k in keys if k] + [""]:
        if key.isdigit() and run and int(key) == int(run[-1]) + 1:
            run.append(key)
            continue
        parts += [f"{run[0]}-{run[-1]}"] if len(run) > 2 else run
        run = [key] if key.isdigit() else []
        parts += [key] if key and not key.isdigit() else []
    return ", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else "".join(parts)


def dice_text(verdict: Any) -> str:
    """The peer's verdict on the host's dice, for the game-over dialog."""
    if verdict.verified:
        return f"Dice: every roll verified ({verdict.steps} steps replayed from the revealed seed)."
    return f"Dice NOT verified: {verdict.message}"


class GameScreen(Screen[None]):
    """The table: four panes, the Log strip, and the prompt bar (with the dice being decided and first-game hints).

    Every pane is reached by keys alone: Tab and shift+Tab move the focus from pane
    to pane (on a small terminal the side pane follows it), the focused pane scrolls
    with the arrows, PgUp/PgDn, Home and End, `z` zooms it to the whole screen and
    back, and `l` opens the full Log. The Log strip keeps the newest sentences in
    sight whenever the Log pane is not.
    """

    HINTS = True  # first-game hints (the replay viewer decides nothing, so it has none)

    BINDINGS = [
        Binding("tab", "cycle(1)", "Pane", priority=True),
        Binding("shift+tab", "cycle(-1)", "Pane back", show=False, priority=True),
        Binding("z", "zoom", "Zoom"),
        Binding("l", "full_log", "Log"),
        Binding("o", "choices", "Choices"),
        Binding("u,ctrl+z", "undo", "Undo"),
        Binding("s", "save", "Save"),
        Binding("c", "chat", "Chat"),
        Binding("L", "lobby", "Table"),
        Binding("b", "back", "Back from stand-in", show=False),
        Binding("a", "odds", "Odds", show=False),
        Binding("question_mark,f1", "app.help", "Help"),
        Binding("q", "quit_menu", "Quit"),
        Binding("enter", "summary", "Summary", show=False),
        Binding("n", "new_game", "New game", show=False),
    ]
    ALLOW_IN_MAXIMIZED_VIEW = "#moments, #strip, #prompt, Footer, ChatInput"  # a zoomed pane keeps the newest Log lines in sight
    ESCAPE_TO_MINIMIZE = True

    def __init__(self, link: TableLink, *, title: str = "") -> None:
        super().__init__()
        self.link = link
        self.title_text = title
        self.view: dict[str, Any] = {}
        self.pending = False
        self.over_shown = False
        self.side = "investigators"
        self.note: Text | None = None
        self.link_status: str | None = None  # e.g. reconnecting: no choices until it clears
        self.table_closed = False  # the host closed the table: no choices ever again
        self.updates_seen = 0
        self._version: int | None = None
        self.hints = Hints()
        self.moments = Moments()  # the big moments since this terminal's last decision
        self._moments_seen = False  # ... which this terminal has decided after: they go with the next events
        self.resized_to: Size | None = None  # from the last Resize event
        self._rows: str | None = None  # the grid rows last set (None: the stylesheet's)
        self._status: Text | None = None  # the status line last drawn
        self._footer_state: tuple[bool, bool, bool] | None = None  # what the footer's bindings last depended on
        self._told: list[Text] | None = None  # the Log lines of the update being applied, written at its end

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Container(id="body"):
            yield MapPane("Map", id="map")
            yield StoryPane("Story Board", id="story")
            yield InvestigatorsPane("Investigators", id="investigators")
            yield LogPane(id="log")
        yield MomentCard(id="moments")
        yield LogStrip(id="strip")
        yield ChatInput(id="chat")
        yield PromptBar(id="prompt")
        yield FittedFooter()

    # -- layout -------------------------------------------------------------

    @property
    def cthulhu(self) -> CthulhuApp:
        """The app, typed as ours (Textual's `self.app` is any App)."""
        return cast("CthulhuApp", self.app)

    def on_mount(self) -> None:
        ascii_mode = self.cthulhu.ascii_mode
        for pane in self.query(ViewPane):
            pane.ascii = ascii_mode
        self.hints.enabled = self.HINTS and self.cthulhu.options.hints
        self.relayout()
        self.query_one("#map").focus()
        self.screen_layout_refresh_signal.subscribe(self, self.place_toasts)
        self.set_interval(1.0, self.tick_clock)  # a turn clock's countdown (does nothing at a live table)
        self.pump()

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

    def decided(self, at_once: bool = False) -> None:
        """This terminal made a decision: the moments it has seen give way to what comes of it. They go
        with the table's answer (the update that brings its events), in the same frame as the moments
        that answer brings, so the card is not drawn away and back again in between (`at_once`: now)."""
        if at_once:
            self._moments_seen = False
            if self.moments.clear():
                self.show_moments()
        else:
            self._moments_seen = bool(self.moments.items)

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choices":
            return bool(self.query_one(PromptBar).options) or None
        if action == "undo":
            return self.can_undo
        if action == "chat":
            return self.chat_ok
        if action == "lobby":
            return self.chat_ok and self.link.lobby is not None
        if action in ("summary", "new_game"):
            return bool(self.view.get("outcome"))
        if action in ("cycle", "zoom", "full_log"):
            return not self.query_one(ChatInput).has_focus
        return True

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

    # -- updates from the table --------------------------------------------

    @work(exclusive=True, group="link", exit_on_error=False)
    async def pump(self) -> None:
        try:
            first = await self._open_link()
            self.apply_update(first)
            view = self.view
            fresh = bool(first.earlier) and not view.get("step")  # a game's first events tell whose turn it is
            if not first.events and not fresh and view and view.get("turn") is not None and not view.get("outcome"):
                who = tui_mode(view["mode"]).whose_turn(view)
                self.say("turn", f"Turn {view['turn']}: {who or 'the next player'} to play.")
            async for update in self.link.updates():
                self.apply_update(update)
        except Exception as exc:  # a broken link is shown, never a crash
            self.say("error", f"No connection to the table: {exc}")
            self.note = Text(f"No connection to the table: {exc}   (q quits)", style="bold bright_red")
            self.query_one(PromptBar).show(self.view, frozenset(), self.note)
            raise

    async def _open_link(self) -> Update:
        """The link's first update. A host that does not answer yet is tried again every
        `RETRY_SECONDS` (the joiner sees each attempt) until it does or the player quits."""
        from ..netlink import Unreachable

        attempt = 1
        while True:
            try:
                return await self.link.open()
            except Unreachable as exc:
                if attempt == 1:
                    self.say("error", f"No answer yet: {exc}. Trying again every {RETRY_SECONDS} seconds; q quits.")
                self.note = Text(f"Waiting for the host to answer ({exc}; attempt {attempt}). "
                                 f"Trying again every {RETRY_SECONDS} seconds.  q quits", style="bold bright_yellow")
                self.query_one(PromptBar).show(self.view, frozenset(), self.note)
                attempt += 1
                await asyncio.sleep(RETRY_SECONDS)

    def say(self, kind: str, sentence: str, moment: bool = False) -> None:
        """A line for the Log (and its strip); `moment`: it is also on the moment card. While an update is
        applied, its lines wait and go in together at its end (`_tell`)."""
        line = plain(sentence, KIND_STYLES.get(kind, ""))
        if self._told is not None:
            self._told.append(line)
        else:
            self._tell([line])
        self.query_one(MomentCard).told(None if moment else line)  # it covers the strip (the Log's foot): the newest line too

    def _tell(self, lines: list[Text]) -> None:
        if lines:
            self.query_one(LogPane).write(*lines)
            self.query_one(LogStrip).say(*lines)

    def tell_earlier(self, events: list[dict[str, Any]], view: dict[str, Any]) -> None:
        """The story so far (a loaded game, a joiner, a player back at the table): into the Log, under a heading
        once the game is under way; no hint, no notice."""
        if not events:
            return
        if self.updates_seen > 1:
            self.say("info", "While you were away:")
        elif view.get("step"):
            self.say("info", f"The story so far (up to step {view['step']}):")
        for ev in events:
            self.say(*tell(ev, view))

    def apply_update(self, update: Update) -> None:
        with self.app.batch_update():  # one frame for the whole update
            self._told = []
            try:
                self._apply_update(update)
            finally:
                told, self._told = self._told, None
                self._tell(told)

    def _apply_update(self, update: Update) -> None:
        update = clean_update(update)  # whatever a link delivers came from outside this program
        self.updates_seen += 1
        if self.updates_seen == 1:
            self.call_after_refresh(self.cthulhu.first_view_drawn)
        try:
            view = check_view(update.view)  # the renderers read the declared shape, nothing else
        except ValueError as exc:  # a host of another version: say so, keep the last good table
            self.say("error", f"The table sent a view this version cannot show: {str(exc).splitlines()[0]}")
            view = self.view
            if not view:
                return
        self.view = view
        self.tell_earlier(update.earlier, view)
        moments = False
        if self._moments_seen and update.events:
            self._moments_seen = False
            moments = self.moments.clear()
        for ev in update.events:
            told, beat = told_and_beat(ev, view)
            took = self.moments.take(beat)
            moments |= took
            self.say(*told, moment=took)
        if moments:
            self.show_moments()
        self.note = None
        self.link_status = update.status
        self.table_closed = self.table_closed or update.closed
        if update.status:
            self.note = Text(update.status, style="bold bright_yellow")
        if update.rejected:
            self.say("error", f"Refused: {update.rejected}")
            self.note = Text(f"Refused: {update.rejected}", style="bold bright_red")
            self.app.bell()
        if update.notice:
            self.say("info", update.notice)
            if update.headline:
                self.notify(update.notice, timeout=8, markup=False)
        if update.warning:  # in the Log, and where nobody can miss it
            self.say("error", update.warning)
            self.app.notify(update.warning, severity="warning", timeout=20, markup=False)
        if update.chat:
            self.say("chat", f"<{update.chat[0]}> {update.chat[1]}")
        dice = self.link.dice
        if isinstance(self.app.screen, GameOverScreen):
            self.app.screen.show_again(self.link.play_again())
            if dice is not None:
                self.app.screen.show_dice(dice_text(dice))
        self.pending = False
        prompt = view.get("prompt")
        version = prompt["version"] if prompt is not None else None
        if self.link_status:
            self._version = None  # no hint while nobody can choose: it comes with the first choices
        elif update.events or version != self._version:
            self._version = version
            deciding = prompt is not None and prompt["seat"] in self.link.local_seats
            self.hints.update(view, [str(ev.get("type")) for ev in update.events], deciding=deciding)
        self.redraw()
        if view["outcome"] and not self.over_shown:
            self.over_shown = True
            self.action_summary()
        if update.since is not None:  # over everything else: what was missed comes first, then the prompt (or the verdict)
            from .since import SinceScreen

            self.app.push_screen(SinceScreen(update.since, view))

    def redraw(self) -> None:
        view = self.view
        for pane in (MapPane, StoryPane, InvestigatorsPane):
            self.query_one(pane).show(view)
        self.fit_rows()
        self.query_one(PromptBar).show(view, self.link.local_seats, self.note, paused=bool(self.link_status), closed=self.table_closed,
                                          hint=None if self.link_status else self.hints.line, names=self.link.seat_names())
        if self.moments.items:
            self.place_card()  # the bar may have grown or shrunk under it
            self.query_one(MomentCard).catch_up()  # the lines of this update, in its frame
        self.redraw_status(view)
        footer_state = (bool(self.query_one(PromptBar).options), bool(view.get("outcome")), self.can_undo)
        if footer_state != self._footer_state:
            self._footer_state = footer_state
            self.refresh_bindings()
            self.query_one(FittedFooter).refit()  # in this update's frame, not one of its own after it
        options = self.query_one(PromptBar).options
        if len(options) > MANY_OPTIONS and not isinstance(self.app.screen, ChoiceScreen):
            self.action_choices()

    def redraw_status(self, view: dict[str, Any]) -> None:
        """The header line (drawn again only when it changed)."""
        status = Text()
        status.append(" cthulhu", style="bold")
        status.append(f"  {tui_mode(view['mode']).title(view)}")
        # What changes comes first, so a narrow terminal crops the table's address, never the turn.
        if view.get("turn") is not None:
            status.append(f"  turn {view['turn']}")
        clock = self.clock_words()
        if clock is not None:
            status.append(f"  {clock[0]}", style=clock[1])
        if self.chat_ok:  # at a shared table the step is how players (and the table dialog) name a moment
            status.append(f"  step {view.get('step', 0)}", style="dim")
        if self.title_text:
            status.append(f"  {self.title_text}", style="dim")
        if self.link.seed is not None:
            status.append(f"  seed {self.link.seed}")
        if not self.link.advice:
            status.append("  no advice (house rule)", style="dim")
        if status != self._status:
            self._status = status
            self.query_one("#status", Static).update(safe_text(status), layout=False)

    def clock_words(self) -> tuple[str, str] | None:
        """A turn-based table's clock for the header: whose it is and the time left (or that a
        stand-in plays this terminal's seat, and the key that takes it back)."""
        told = self.link.clock()
        if told is None:
            return None
        clock, at = told.clock, told.at
        if told.stood_in:
            return "a stand-in plays for you (b: take your seat back)", "bold bright_yellow"
        if clock.seat is None:
            return None
        who = "you" if clock.seat in self.link.local_seats else clean_text(self.link.seat_names().get(clock.seat) or f"seat {clock.seat + 1}")
        if clock.paused:
            return f"out of time: waiting for {who}", "bold bright_red"
        if clock.left_ms is None:
            return None
        left = clock.left_ms / 1000 - (time.monotonic() - at)
        return f"{who} to move: {format_duration(left)} left", "bold bright_yellow" if who == "you" else ""

    def tick_clock(self) -> None:
        """Once a second while a turn clock runs: the header counts down (nothing else is redrawn)."""
        if self.link.clock() is not None and self.view:
            self.redraw_status(self.view)

    async def action_back(self) -> None:
        await self.link.back()

    # -- choosing ----------------------------------------------------------

    async def on_key(self, event: events.Key) -> None:
        if self.query_one(ChatInput).has_focus:
            return
        bar = self.query_one(PromptBar)
        char = event.character or ""
        index = bar.key_for(char)
        if bar.local and index is not None and index < len(bar.options):
            event.stop()
            await self.choose(index)
        elif char and char in OPTION_KEYS and self.view and not self.view.get("outcome"):
            bar.flash(self.no_choice(char))

    WATCHING = "you are watching"  # why a key picks nothing at a terminal without a seat

    def no_choice(self, char: str) -> str:
        """Why `char` picks nothing ('No choice on 7: choose 1-4'), said in the bar rather than nothing at all."""
        bar = self.query_one(PromptBar)
        prompt = self.view.get("prompt")
        if bar.local and bar.keys:
            return f"No choice on {char}: choose {key_list(bar.keys)}"
        if not self.link.local_seats:
            return f"No choice on {char}: {self.WATCHING}"
        if prompt is not None and prompt["seat"] not in self.link.local_seats and not self.link_status:
            return f"No choice on {char}: not your decision"
        return f"No choice on {char} now"

    async def choose(self, index: int) -> None:
        prompt = self.view.get("prompt")  # the view is {} until the table's first update
        if (prompt is None or self.pending or self.link_status or index >= len(prompt["options"])
                or prompt["seat"] not in self.link.local_seats):
            return
        self.pending = True
        self.decided()
        await self.link.send(prompt["seat"], prompt["options"][index]["command"], prompt["version"])

    @property
    def can_undo(self) -> bool:
        """One of our seats is deciding and may take back its last decision (nothing revealed since),
        at a table still open (a closed one takes nothing back)."""
        prompt = self.view.get("prompt") or {}
        return (
            not self.pending
            and not self.table_closed
            and prompt.get("seat") in self.link.local_seats
            and int(prompt.get("undo") or 0) > 0
        )

    async def action_undo(self) -> None:
        if not self.can_undo:
            return
        prompt = self.view["prompt"]
        self.pending = True
        self.decided()
        await self.link.undo(int(prompt["seat"]), prompt.get("version"))

    def action_choices(self) -> None:
        prompt = self.view.get("prompt")
        if prompt is None or not prompt["options"] or prompt["seat"] not in self.link.local_seats:
            return
        version = prompt["version"]

        async def picked(index: int | None) -> None:
            now = self.view.get("prompt")
            if index is not None and now is not None and now["version"] == version:
                await self.choose(index)

        bar = self.query_one(PromptBar)
        labels, line = tui_mode(self.view["mode"]).labels(prompt, self.view, 200)
        self.app.push_screen(ChoiceScreen(line or prompt["text"], labels, keys=list(bar.keys)), picked)

    # -- chat (networked games) ------------------------------------------------

    @property
    def chat_ok(self) -> bool:
        return self.link.chat_ok

    def action_chat(self) -> None:
        if self.chat_ok:
            self.query_one(ChatInput).open()

    def action_odds(self) -> None:
        """The odds panel: this roll's chances and the search bot's win chances, from this seat's view."""
        if not self.view:
            return
        if not self.link.advice:
            self.say("info", "This table plays without advice (a house rule it was created with): no odds panel.")
            return
        from .odds import OddsScreen

        content = cast("CthulhuApp", self.app).content  # typed as any App: see the note on CthulhuApp above
        self.app.push_screen(OddsScreen(self.view, content, list(self.query_one(PromptBar).keys)))

    def action_lobby(self) -> None:
        """Who sits where, the table code and the open seats (networked games)."""
        lobby = self.link.lobby
        if self.check_action("lobby", ()) and lobby is not None:
            from .lobby import LobbyScreen

            self.app.push_screen(LobbyScreen(lobby))

    async def on_chat_input_said(self, message: ChatInput.Said) -> None:
        try:
            await self.link.chat(message.text)
        except Exception as exc:  # a dropped connection is shown, never a crash
            self.say("error", f"Chat not sent: {exc}")

    # -- saving, quitting, the end -------------------------------------------

    async def action_save(self) -> None:
        try:
            where = await self.link.save()
        except SaveUnavailable as exc:
            self.say("info", str(exc))
            return
        except Exception as exc:  # e.g. a full disk: say so, keep playing
            self.say("error", f"Not saved: {exc}")
            return
        self.say("info", f"Saved to {where}.")

    def action_quit_menu(self) -> None:
        where = self.link.save_path  # nothing is saved before the first move
        comeback = self.link.comeback

        async def decided(what: str | None) -> None:
            if what == "save" and where:
                try:
                    await self.link.save()
                except Exception as exc:  # a failed save must not trap the player in the game
                    self.say("error", f"Not saved: {exc}")
            if what in ("save", "quit"):
                await self.cthulhu.leave()

        self.app.push_screen(QuitScreen(str(where) if where else None, comeback), decided)

    def action_summary(self) -> None:
        if not self.view.get("outcome"):
            return

        async def decided(what: str | None) -> None:
            if what == "quit":
                await self.cthulhu.leave()
            elif what == "new":
                await self.action_new_game()

        dice = self.link.dice
        checking = "Checking every roll against the seed..." if self.link.verifies_dice else None
        self.app.push_screen(GameOverScreen(self.view, self.link.play_again(), dice_text(dice) if dice else checking), decided)

    async def action_new_game(self) -> None:
        await self.link.close()
        await self.cthulhu.new_game()
