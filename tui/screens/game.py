"""The game: four panes, the prompt bar, and the loop that reads updates from the table link.

Updates arrive in an async worker on Textual's own asyncio loop, so handling one
is a plain method call: nothing blocks and nothing crosses threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.message import Message
from textual.widgets import Static

from ..link import (
    ChatSaid, Earlier, Missed, Moved, Noticed, Opened, Refused, SaveUnavailable, TableChanged, TableClosed, TableLink, Update, Warned,
    disk_words,
)
from ..modes import check_view, shown_labels, tui_mode
from ..narrate import KIND_STYLES, tell, told_and_beat
from ..options import OPTION_KEYS
from ..status import KEEP, fitted, label_pieces
from ..safe import clean_update, plain, safe_text
from ..standin import back_words, clock_words, with_leaving
from ..widgets.chat import ChatInput
from ..widgets.footer import FittedFooter
from ..hints import Hints
from ..widgets.log_strip import LogStrip
from ..widgets.moment_card import MomentCard
from ..widgets.panes import InvestigatorsPane, LogPane, MapPane, StoryPane, ViewPane
from ..widgets.prompt_bar import PromptBar

if TYPE_CHECKING:
    from ..app import CthulhuApp

from .dialogs import ChoiceScreen, GameOverScreen, QuitScreen
from .panes import PaneScreen

MANY_OPTIONS = 12  # more than this opens the list dialog by itself
RETRY_SECONDS = 2  # a joiner whose host does not answer yet tries again this often
U = TypeVar("U", bound=Update)


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


class GameScreen(PaneScreen):
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
        self.note: Text | None = None
        self.link_status: str | None = None  # e.g. reconnecting: no choices until it clears
        self.table_closed = False  # the host closed the table: no choices ever again
        self.updates_seen = 0
        self._version: int | None = None
        self.hints = Hints()
        self._moments_seen = False  # ... which this terminal has decided after: they go with the next events
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

    def relayout(self) -> None:
        super().relayout()
        if self.view:
            self.redraw_status(self.view)  # fitted to the new width

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

    # -- updates from the table --------------------------------------------

    class Began(Message):
        """The first news of the table has been told (`pump`): say whose turn it is, unless they did."""

        def __init__(self, first: Opened) -> None:
            super().__init__()
            self.first = first

    @work(exclusive=True, group="link", exit_on_error=False)
    async def pump(self) -> None:
        """The link's news, each posted to this screen as the message it is (handled below, in order)."""
        try:
            first = await self._open_link()
            for news in first.news:
                self.post_message(news)
            self.post_message(self.Began(first))
            async for news in self.link.updates():
                self.post_message(news)
        except Exception as exc:  # a broken link is shown, never a crash
            self.say("error", f"No connection to the table: {exc}")
            self.note = Text(f"No connection to the table: {exc}   (q quits)", style="bold bright_red")
            self.query_one(PromptBar).show(self.view, frozenset(), self.note)
            raise

    def on_game_screen_began(self, message: Began) -> None:
        view, first = self.view, message.first
        moved = any(isinstance(n, Moved) and n.events for n in first.news)
        fresh = any(isinstance(n, Earlier) and n.events for n in first.news) and not view.get("step")  # its first events say whose turn
        if not moved and not fresh and view and view.get("turn") is not None and not view.get("outcome"):
            who = tui_mode(view["mode"]).whose_turn(view)
            self.say("turn", f"Turn {view['turn']}: {who or 'the next player'} to play.")

    async def _open_link(self) -> Opened:
        """The link's first news. A host that does not answer yet is tried again every
        `RETRY_SECONDS` (the joiner sees each attempt) until it does or the player quits."""
        from ..linkerrors import Unreachable

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

    # Each piece of news has its handler; `_apply` does what all of them share, in one frame.

    def on_table_changed(self, news: TableChanged) -> None:
        self._apply(news)

    def on_moved(self, news: Moved) -> None:
        self._apply(news, self._moved)

    def on_earlier(self, news: Earlier) -> None:
        self._apply(news, lambda told: self.tell_earlier(told.events, self.view))

    def on_refused(self, news: Refused) -> None:
        self._apply(news, self._refused)

    def on_noticed(self, news: Noticed) -> None:
        self._apply(news, self._noticed)

    def on_warned(self, news: Warned) -> None:
        self._apply(news, self._warned)

    def on_chat_said(self, news: ChatSaid) -> None:
        self._apply(news, lambda told: self.say("chat", f"<{told.name}> {told.text}"))

    def on_table_closed(self, news: TableClosed) -> None:
        self.table_closed = True
        self._apply(news)

    def on_missed(self, news: Missed) -> None:
        told = self._apply(news)
        if told is not None:  # over everything else: what was missed comes first, then the prompt (or the verdict)
            from .since import SinceScreen

            self.app.push_screen(SinceScreen(told.since, self.view, self.link.local_seats))

    def _moved(self, news: Moved) -> list[str]:
        if news.heading:  # a replay's "Step 12: ..." before what happened in it
            self.say("turn", news.heading)
        moments = False
        if self._moments_seen and news.events:
            self._moments_seen = False
            moments = self.moments.clear()
        for ev in news.events:
            told, beat = told_and_beat(ev, self.view)
            took = self.moments.take(beat)
            moments |= took
            self.say(*told, moment=took)
        if moments:
            self.show_moments()
        return [str(ev.get("type")) for ev in news.events]

    def _refused(self, news: Refused) -> None:
        self.say("error", f"Refused: {news.reason}")
        self.note = Text(f"Refused: {news.reason}", style="bold bright_red")
        self.app.bell()

    def _warned(self, news: Warned) -> None:  # in the Log, and where nobody can miss it
        self.say("error", news.text)
        self.app.notify(news.text, severity="warning", timeout=20, markup=False)

    def _noticed(self, news: Noticed) -> None:
        self.say("info", news.text)
        if news.headline:
            self.notify(news.text, timeout=8, markup=False)

    def _apply(self, news: U, tell: Callable[[U], object] | None = None) -> U | None:
        """Take in the table `news` brings (its view, the link's status) and tell what it says; the
        cleaned news, or None when its view cannot be shown and there is none to keep."""
        with self.app.batch_update():  # one frame for the whole of it
            self._told = []
            try:
                return self._take(news, tell)
            finally:
                told, self._told = self._told, None
                self._tell(told)

    def _take(self, news: U, tell: Callable[[U], object] | None) -> U | None:
        news = clean_update(news)  # whatever a link delivers came from outside this program
        self.updates_seen += 1
        if self.updates_seen == 1:
            self.call_after_refresh(self.cthulhu.first_view_drawn)
        try:
            view = check_view(news.view)  # the renderers read the declared shape, nothing else
        except ValueError as exc:  # a host of another version: say so, keep the last good table
            self.say("error", f"The table sent a view this version cannot show: {str(exc).splitlines()[0]}")
            view = self.view
            if not view:
                return None
        self.view = view
        self.link_status = news.status
        self.note = Text(news.status, style="bold bright_yellow") if news.status else None
        kinds = tell(news) if tell is not None else None  # (a move's: the kinds of events it told)
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
        elif version != self._version or (kinds and self.hints.line is None):
            # A decision's hint stays while it is the decision: the events that led to it may come in
            # more than one update after its view (a hint not yet found may come with the later ones).
            self._version = version
            deciding = prompt is not None and prompt["seat"] in self.link.local_seats
            self.hints.update(view, kinds if isinstance(kinds, list) else [], deciding=deciding)
        self.redraw()
        if view["outcome"] and not self.over_shown:
            self.over_shown = True
            self.action_summary()
        return news

    def redraw(self) -> None:
        view = self.view
        for pane in (MapPane, StoryPane, InvestigatorsPane):
            self.query_one(pane).show(view)
        self.fit_rows()
        self.query_one(PromptBar).show(view, self.link.local_seats, self.note, paused=bool(self.link_status), closed=self.table_closed,
                                          hint=None if self.link_status else self.hints.line, names=self.link.seat_names(), turn=self.link.clock())
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
        pieces = [(" cthulhu", "bold", KEEP), (f"  {tui_mode(view['mode']).title(view)}", "", 3)]  # (text, style, rank): tui/status.py
        if view.get("turn") is not None:
            pieces.append((f"  turn {view['turn']}", "", KEEP))
        disk = disk_words(self.link)
        if disk is not None:  # before the clock: a table that waits for its disk, or a game not being saved
            pieces.append((f"  {disk}", "bold bright_red", KEEP))
        clock = clock_words(self.link.clock(), self.link.local_seats, self.link.seat_names())
        if clock is not None:
            pieces.append((f"  {clock[0]}", clock[1], KEEP))
        if self.chat_ok:  # at a shared table the step is how players (and the table dialog) name a moment
            pieces.append((f"  step {view.get('step', 0)}", "dim", 2))
        pieces += label_pieces(self.title_text) if self.title_text else []
        pieces += [(f"  seed {self.link.seed}", "", 2)] if self.link.seed is not None else []
        pieces += [("  no advice (house rule)", "dim", 1)] if not self.link.advice else []
        status = fitted(pieces, (self.resized_to or self.app.size).width)  # the code, the turn and the clock are never cut
        if status != self._status:
            self._status = status
            self.query_one("#status", Static).update(safe_text(status), layout=False)

    def tick_clock(self) -> None:
        """Once a second while a turn clock runs: the header counts down (nothing else is redrawn)."""
        if self.link.clock() is not None and self.view:
            self.redraw_status(self.view)

    async def action_back(self) -> None:
        """`b`: take this terminal's seat back from its stand-in (or end an idle pause), said in words."""
        told = self.link.clock()
        await self.link.back()
        if told is not None:  # (in the Log, and for a moment in the bar: the host's answer redraws it)
            self.say("info", back_words(told))
            self.query_one(PromptBar).flash(back_words(told))

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
        labels, line = shown_labels(prompt, self.view, 200)
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
        comeback = with_leaving(self.link.comeback, self.link.clock(), self.link.local_seats)  # and the truth about its clock

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
        self.app.push_screen(GameOverScreen(self.view, self.link.play_again(), dice_text(dice) if dice else checking, self.link), decided)

    async def action_new_game(self) -> None:
        await self.link.close()
        await self.cthulhu.new_game()
