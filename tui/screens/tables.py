"""A server's lobby: its tables a page at a time, "my tables", a search, a new table, sit or watch.

What the rows say comes from the server (other players' names among it): cleaned and drawn as
plain text. A refusal (a setup the server will not make, a full table) is one line at the foot of
the screen; the list stays. Sitting down or watching opens the table's own screen; leaving it
comes back here.

Nothing stale is offered: a listing the server did not answer (it stopped, the connection was
lost) leaves no rows, and the lobby link reconnects by itself; while the lobby is hidden (at a
table) it asks nothing, and a listing older than `STALE` is dropped and asked again when shown.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, Static

from cthulhu.core import modes as core_modes
from cthulhu.net import pace_words
from cthulhu.net import Rejected, TableRow, TablesPage
from cthulhu.net import moving_words, when_words
from cthulhu.net import clean_text

from ..modes import mode_titles
from ..safe import safe_text
from .title import Row, bot_row, draw_rows, figures_chosen, select_in, setup_chosen, setup_rows

if TYPE_CHECKING:
    from ..app import CthulhuApp
    from ..lobbylink import LobbyLink

PAGE = 8  # tables a page: two lines each, at 80x24
# The create form's turn-based paces (the command line takes any duration: `--turn-time`).
SEAT_NOTES = {"away": " (away)", "stand_in": " (a stand-in plays)"}  # a listed seat's status, after its player's name
PACES = [(s, f"turn-based: {w} a move") for s, w in ((90, "90 seconds"), (600, "10 minutes"), (3_600, "an hour"), (43_200, "12 hours"),
                                                      (86_400, "a day"), (259_200, "3 days"))]
REFRESH = 3.0  # seconds between listings while the screen shows
STALE = 60.0  # seconds: a listing older than this is not shown again before it is asked anew


def row_text(row: TableRow, selected: bool) -> Text:
    """Two lines: what the table is (and whether it is yours), then its seats and where it stands."""
    mode = core_modes.get(row.mode).title if row.mode in core_modes.names() else row.mode
    head = Text(f"{'>' if selected else ' '} {row.id}  ", style="bold" if selected else "")
    head.append(f"{mode}: {row.about}" if row.about else mode, style="bold" if selected else "")
    if row.private:
        head.append("  private" + (f", code {row.code}" if row.code else ""), style="magenta")
    if row.mine:
        turn = bool(set(row.mine) & set(row.to_move))
        head.append("  your move" if turn else "  yours", style="bold bright_green" if turn else "green")
    seats = []
    for seat in row.seats:
        who = "open" if seat.status == "open" else clean_text(seat.name or "?") + SEAT_NOTES.get(seat.status, "")
        seats.append(f"{seat.seat + 1} {who}")
    state = f"{row.outcome} at step {row.step}" if row.finished else f"step {row.step}" if row.step else "not started"
    moving = f", {moving_words(row.seats, row.to_move)}" if row.to_move else ""
    moving += pace_words(row, datetime.now(timezone.utc))
    watching = f", {row.watchers} watching" if row.watchers else ""
    tail = Text(f"    {'  '.join(seats)} - {state}{moving}{watching}", style="" if selected else "dim")
    if row.last_move:
        tail.append(f", last move {when_words(row.last_move)}", style="dim")
    out = Text()
    out.append_text(head)
    out.append("\n")
    out.append_text(tail)
    out.append("\n")
    return out


class TablesScreen(Screen[None]):
    """The lobby. `link` is the lobby session (opened); sitting down asks the app for the table."""

    DEFAULT_CSS = """
    TablesScreen #tables-head { height: auto; padding: 0 1; }
    TablesScreen #tables-search { display: none; }
    TablesScreen #tables-search.shown { display: block; }
    TablesScreen #tables-list { height: 1fr; padding: 0 1; }
    TablesScreen #tables-status { height: auto; padding: 0 1; }
    """

    BINDINGS = [
        Binding("enter,s", "sit", "Sit"),
        Binding("w", "watch", "Watch"),
        Binding("c", "create", "New table"),
        Binding("m", "mine", "My tables"),
        Binding("f", "finished", "Finished", show=False),
        Binding("slash", "search", "Search"),
        Binding("i", "by_id", "Table by id"),
        Binding("l", "link_door", "Link a door"),
        Binding("R", "records", "Records", show=False),
        Binding("d", "challenges", "Challenges", show=False),
        Binding("n,pagedown", "page(1)", "Next page", show=False),
        Binding("p,pageup", "page(-1)", "Previous page", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("r", "refresh", "Refresh", show=False),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, link: LobbyLink) -> None:
        super().__init__()
        self.link = link
        self.page: TablesPage | None = None
        self.number = 0
        self.cursor = 0
        self.mine = False
        self.finished = False  # the games that are over are left out until `f` shows them
        self.query_text = ""
        self.status: Text | None = None
        self.trouble = False  # the status says the server did not answer
        self.clock = time.monotonic
        self.listed_at: float | None = None  # when `page` came

    @property
    def cthulhu(self) -> CthulhuApp:
        """The app, typed as ours (Textual's `self.app` is any App; the app imports this screen, see `GameScreen.cthulhu`)."""
        return cast("CthulhuApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="tables-head")
            yield Input(placeholder="words of the mode, the set-up, a player's name or an id; Enter searches", id="tables-search")
            yield Static(id="tables-list")
            yield Static(id="tables-status")
        yield Footer()

    def on_mount(self) -> None:
        self._search_field(False)
        self.refresh_list()
        self.set_interval(REFRESH, self._tick)

    def _tick(self) -> None:
        # Hidden under a table, it costs the server nothing. (Not `is_current`: Textual counts the screen
        # right under the top one as current too, since it might show through.)
        if self.app.screen is self:
            self.refresh_list()

    def _search_field(self, shown: bool) -> Input:
        """The search field, shown (and focused) or hidden: hidden, it is disabled, so that it never
        takes the focus and the lobby's keys (i, m, c...) stay the lobby's."""
        field = self.query_one("#tables-search", Input)
        field.disabled = not shown
        field.set_class(shown, "shown")
        if shown:
            field.focus()
        else:
            self.set_focus(None)
        return field

    def on_screen_resume(self) -> None:
        if self.listed_at is None or self.clock() - self.listed_at > STALE:
            self.page, self.cursor = None, 0  # too old to offer: listed again first
            self.redraw()
        self.refresh_list()

    @property
    def rows(self) -> list[TableRow]:
        return self.page.rows if self.page is not None else []

    @work(exclusive=True, group="lobby", exit_on_error=False)
    async def refresh_list(self) -> None:
        try:
            answer = await self.link.tables(query=self.query_text, page=self.number, size=PAGE, mine=self.mine, finished=self.finished)
        except Exception as exc:  # the server went away: nothing listed is offered until it answers again
            self.page, self.cursor, self.listed_at = None, 0, None
            back = " (the tables are listed again as soon as it is back)" if self.link.reconnecting is not None and not self.link.reconnecting.done() else ""
            self.trouble = True
            self.say(f"No answer from the server: {exc}{back}", "bright_red")
            return
        if isinstance(answer, Rejected):
            self.say(answer.reason, "bright_red")
            return
        if self.trouble:
            self.status, self.trouble = None, False
        self.page, self.number, self.listed_at = answer, answer.page, self.clock()
        self.cursor = min(self.cursor, max(0, len(answer.rows) - 1))
        self.redraw()

    def say(self, line: str, style: str = "") -> None:
        self.status = Text(clean_text(line), style=style)
        self.redraw()

    def redraw(self) -> None:
        welcome = self.link.welcome
        head = Text()
        head.append(clean_text(welcome.server if welcome else "the server"), style="bold")
        head.append(f" at {clean_text(self.link.address)}; you are ")
        head.append(clean_text(welcome.name if welcome else "?"), style="bold")
        head.append("   l links your other door   R records   d challenges", style="dim")
        page = self.page
        what = ("My tables" if self.mine else "Tables") + ("" if self.finished else " in play")
        if self.query_text:
            what += f" with '{clean_text(self.query_text)}'"
        if page is not None:
            what += f": {page.total}" + (f", page {page.page + 1} of {page.pages}" if page.pages > 1 else "")
        head.append(f"\n{what}", style="bold")
        head.append(f"  f {'leaves out' if self.finished else 'shows'} the finished ones", style="dim")
        self.query_one("#tables-head", Static).update(safe_text(head))
        body = Text()
        for n, row in enumerate(self.rows):
            body.append_text(row_text(row, n == self.cursor))
        if page is None:
            body.append("Listing the tables..." if not self.trouble else "No tables listed while the server does not answer.", style="dim")
        elif not self.rows:
            body.append("No tables of yours here yet." if self.mine else "No tables here yet: c makes one.", style="dim")
        self.query_one("#tables-list", Static).update(safe_text(body))
        keys = Text("enter sit  w watch  c new  m " + ("all tables" if self.mine else "my tables")  # one line at 80 columns
                    + "  / search  n/p pages  i by id  q quit", style="dim")
        if self.status is not None:
            keys = Text.assemble(self.status, "\n", keys)
        self.query_one("#tables-status", Static).update(safe_text(keys))

    # -- moving about ----------------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        if self.rows:
            self.cursor = (self.cursor + step) % len(self.rows)
            self.redraw()

    def action_page(self, step: int) -> None:
        pages = self.page.pages if self.page is not None else 1
        number = max(0, min(pages - 1, self.number + step))
        if number != self.number:
            self.number, self.cursor = number, 0
            self.refresh_list()

    def action_refresh(self) -> None:
        self.refresh_list()

    def action_finished(self) -> None:
        self.finished = not self.finished
        self.number = self.cursor = 0
        self.refresh_list()

    def action_mine(self) -> None:
        self.mine = not self.mine
        self.number = self.cursor = 0
        self.refresh_list()

    def action_search(self) -> None:
        self._search_field(True).value = self.query_text

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "tables-search":
            return
        self.query_text = event.value.strip()[:80]
        self._search_field(False)
        self.number = self.cursor = 0
        self.refresh_list()

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.query_one("#tables-search", Input).has_focus:
            event.stop()
            self._search_field(False)

    # -- sitting down ----------------------------------------------------------------------------

    async def action_sit(self) -> None:
        await self._join(watch=False)

    async def action_watch(self) -> None:
        await self._join(watch=True)

    async def _join(self, *, watch: bool) -> None:
        if self.page is None:
            self.say("The tables are not listed yet: a moment.", "bright_yellow")
            return
        if not self.rows:
            self.say("There is no table to sit at yet: c makes one.", "bright_yellow")
            return
        row = self.rows[self.cursor]
        await self.sit(row.id, row.code, watch)

    async def sit(self, table: str, code: str | None, watch: bool) -> None:
        problem = await self.cthulhu.sit(table, code=code, watch=watch)
        if problem is not None:
            self.say(problem, "bright_red")

    def action_create(self) -> None:
        async def made(form: dict[str, Any] | None) -> None:
            if form is None:
                return
            try:
                answer = await self.link.create(**form)
            except Exception as exc:
                self.say(f"No answer from the server: {exc}", "bright_red")
                return
            if isinstance(answer, Rejected):
                self.say(f"Not made: {answer.reason}", "bright_red")
                return
            self.say(f"Table {answer.id} made" + (f" (private: its code is {answer.code})" if answer.code else "") + ".", "green")
            await self.sit(answer.id, answer.code, False)

        self.app.push_screen(CreateTableScreen(self.cthulhu.content), made)

    def action_by_id(self) -> None:
        async def given(text: str | None) -> None:
            parts = (text or "").split()
            if parts:
                await self.sit(parts[0], parts[1] if len(parts) > 1 else None, False)

        self.app.push_screen(TableByIdScreen(), given)

    def action_records(self) -> None:
        from .club import RecordsScreen

        self.app.push_screen(RecordsScreen(self.link))

    def action_challenges(self) -> None:
        from .club import ChallengesScreen

        self.app.push_screen(ChallengesScreen(self.link))

    def action_link_door(self) -> None:
        async def given(code: str | None) -> None:
            if not code:
                return
            try:
                answer = await self.link.link(code)
            except Exception as exc:
                self.say(f"No answer from the server: {exc}", "bright_red")
                return
            if isinstance(answer, Rejected):
                self.say(f"Not linked: {answer.reason}", "bright_red")
                return
            self.say(f"Linked: this door is {answer.name} now, with {answer.name}'s tables (m).", "green")
            self.refresh_list()

        self.app.push_screen(LinkDoorScreen(), given)


class CreateTableScreen(ModalScreen[dict[str, Any] | None]):
    """A new table: the mode, every set-up choice it declares, seats, bots, open or private, and
    (n) an address to notify when a move begins. Dismisses with what the lobby's `create` takes
    (None: not now)."""

    BINDINGS = [
        Binding("enter", "make", "Make the table"),
        Binding("escape", "cancel", "Back"),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("left", "change(-1)", "Change", show=False),
        Binding("right", "change(1)", "Change"),
        Binding("n", "notify_address", "Notify address"),
    ]

    def __init__(self, content: Any) -> None:
        super().__init__()
        self.content = content
        self.notify_url: str | None = None  # a URL the server POSTs to when a move begins (it must allow it)
        self.mode_row = Row("mode", "Mode", list(mode_titles()))
        self.seats = Row("seats", "Seats", [(n, str(n)) for n in range(1, 6)], index=3)
        self.bots = Row("bots", "Bots", [(n, str(n) + (" (the last seats)" if n else "")) for n in range(0, 5)])
        self.pause = Row("pause", "Bots pause", [(500, "half a second"), (0, "not at all"), (1000, "a second"), (2000, "two seconds")])
        self.private = Row("private", "Table", [(False, "open: listed to everyone"), (True, "private: a code, listed to its players")])
        self.pace = Row("pace", "Pace", [(None, "live: everyone at once, no clock"), *PACES])
        # (policy, --away-after) in one row, in few words: the form fits 80x24 with the main game's many rows
        # (a stand-in plays the turn that ran out; after so many missed turns in a row it stays until they are back)
        self.timeout = Row("timeout", "Out of time", [(("stand-in", 3), "stand-in plays the turn, stays after 3"),
                                                      (("stand-in", 1), "stand-in plays until they are back"),
                                                      (("stand-in", 5), "stand-in plays the turn, stays after 5"),
                                                      (("skip", 3), "pass the decision where the rules allow"), (("pause", 3), "the table waits")])
        self.cursor = 0
        self._rows({}, None)
        self._seats_follow()

    def _rows(self, chosen: dict[str, Any], bot: str | None) -> None:
        mode = core_modes.get(self.mode_row.value)
        self.option_rows = setup_rows(mode, self.content, chosen)
        self.bot_row = bot_row(mode, bot)
        # (what happens out of time is asked only of a turn-based table: the form fits 80x24 either way)
        clock = [self.timeout] if self.pace.value is not None else []
        self.rows = [self.mode_row, *self.option_rows, self.seats, self.bots, self.bot_row, self.pause, self.private, self.pace, *clock]

    def _seats_follow(self) -> None:
        """The seats start at the number of investigators chosen (one a seat), bots within them."""
        figures = figures_chosen(core_modes.get(self.mode_row.value), self.option_rows)
        if figures:
            select_in(self.seats, figures)
            if self.bots.value > self.seats.value:
                select_in(self.bots, self.seats.value)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("A new table", classes="title", id="create-title")
            yield Static(id="create-form")

    def on_mount(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        out = draw_rows(self.rows, self.cursor)
        out.append("Notify  ", style="bold")
        out.append(Text(clean_text(self.notify_url)) if self.notify_url else Text("none (n: a URL the server allows)", style="dim"))
        out.append("\nEnter make it   up/down choose   left/right change   n notify   escape back", style="dim")
        self.query_one("#create-form", Static).update(out)

    def action_move(self, step: int) -> None:
        self.cursor = (self.cursor + step) % len(self.rows)
        self.redraw()

    def action_change(self, step: int) -> None:
        row = self.rows[self.cursor]
        if row.values:
            row.index = (row.index + step) % len(row.values)
        if row in (self.mode_row, self.pace):
            self._rows({} if row is self.mode_row else setup_chosen(core_modes.get(self.mode_row.value), self.option_rows), self.bot_row.value)
        if row is self.mode_row or row in self.option_rows:
            self._seats_follow()
        if row in (self.seats, self.bots) and self.bots.value > self.seats.value:  # bots fit at the table
            select_in(self.bots, self.seats.value)
        self.redraw()

    def form(self) -> dict[str, Any]:
        mode = core_modes.get(self.mode_row.value)
        return {"mode": mode.name, "options": setup_chosen(mode, self.option_rows), "seats": self.seats.value,
                "bots": self.bots.value, "bot": self.bot_row.value, "bot_delay_ms": self.pause.value, "private": self.private.value,
                "turn_time": self.pace.value, "on_timeout": self.timeout.value[0], "away_after": self.timeout.value[1],
                "notify": self.notify_url}

    def action_notify_address(self) -> None:
        def given(url: str | None) -> None:
            if url is not None:
                self.notify_url = url or None
                self.redraw()

        self.app.push_screen(NotifyScreen(self.notify_url), given)

    def action_make(self) -> None:
        self.dismiss(self.form())

    def action_cancel(self) -> None:
        self.dismiss(None)


class NotifyScreen(ModalScreen[str | None]):
    """The new table's notification address: a URL (empty: none). The server checks it."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, url: str | None) -> None:
        super().__init__()
        self.url = url

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Notify an address", classes="title")
            yield Static("When a player's move begins, the server POSTs a small JSON to this URL (a chat webhook takes "
                         "its `text`); only to addresses its operator allows. Empty: none.")
            yield Input(value=self.url or "", placeholder="https://...", id="notify-url")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip()[:1000])

    def action_cancel(self) -> None:
        self.dismiss(None)


class LinkDoorScreen(ModalScreen[str | None]):
    """A one-time code from `cthulhu join HOST --link` (your other door): this door becomes that
    identity, its name and its tables."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Link your other door", classes="title")
            yield Static("On the machine you play from, run  cthulhu join HOST --link  and type its code here: "
                         "this door becomes that player, with that name and those tables.")
            yield Input(placeholder="ABCD-EFGH", id="link-code")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip()[:32] or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TableByIdScreen(ModalScreen[str | None]):
    """A table someone told you of: its id, and its code if it is private."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("A table by its id", classes="title")
            yield Static("The table's id, and its code if it is private (ID CODE):")
            yield Input(placeholder="ID [CODE]", id="by-id")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip()[:120] or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
