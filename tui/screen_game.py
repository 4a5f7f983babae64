"""The game: four panes, the prompt bar, and the loop that reads updates from the table link.

Updates arrive in an async worker on Textual's own asyncio loop, so handling one
is a plain method call: nothing blocks and nothing crosses threads.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.screen import Screen
from textual.widgets import Footer, Static

from .chat import ChatInput
from .link import TableLink, Update
from .narrate import Names, tell
from .options import OPTION_KEYS, WIDE_SIZE
from .screen_dialogs import ChoiceScreen, GameOverScreen, QuitScreen
from .widgets import InvestigatorsPane, LogPane, MapPane, PromptBar, StoryPane

SIDE_PANES = ("investigators", "story", "log")
PANE_TITLES = {"map": "Map", "story": "Story Board", "investigators": "Investigators", "log": "Log"}
MANY_OPTIONS = 12  # more than this opens the list dialog by itself


class GameScreen(Screen[None]):
    BINDINGS = [
        Binding("o", "choices", "Choices"),
        Binding("tab", "next_pane", "Pane"),
        Binding("s", "save", "Save"),
        Binding("c", "chat", "Chat"),
        Binding("L", "lobby", "Table"),
        Binding("question_mark,f1", "app.help", "Help"),
        Binding("q", "quit_menu", "Quit"),
        Binding("enter", "summary", "Summary", show=False),
        Binding("n", "new_game", "New game", show=False),
    ]

    def __init__(self, link: TableLink, *, title: str = "") -> None:
        super().__init__()
        self.link = link
        self.title_text = title
        self.view: dict[str, Any] = {}
        self.pending = False
        self.over_shown = False
        self.side = "investigators"
        self.note: Text | None = None
        self.updates_seen = 0

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="tabs")
        with Container(id="body"):
            yield MapPane("Map", id="map")
            yield StoryPane("Story Board", id="story")
            yield InvestigatorsPane("Investigators", id="investigators")
            yield LogPane(id="log")
        yield ChatInput(id="chat")
        yield PromptBar(id="prompt")
        yield Footer()

    # -- layout -------------------------------------------------------------

    def on_mount(self) -> None:
        ascii_mode = getattr(self.app, "ascii_mode", False)
        self.set_class(ascii_mode, "ascii")
        for pane in self.query(".pane"):
            if hasattr(pane, "ascii"):
                pane.ascii = ascii_mode
        self.relayout()
        self.pump()

    def on_resize(self) -> None:
        self.relayout()

    @property
    def compact(self) -> bool:
        w, h = self.app.size
        return w < WIDE_SIZE[0] or h < WIDE_SIZE[1]

    def relayout(self) -> None:
        compact = self.compact
        self.set_class(compact, "compact")
        for name in SIDE_PANES:
            self.query_one(f"#{name}").set_class(compact and name != self.side, "hidden")
        tabs = Text(" Map | ", style="bold")
        for n, name in enumerate(SIDE_PANES):
            tabs.append(PANE_TITLES[name], style="bold reverse" if name == self.side else "dim")
            tabs.append(" | " if n < len(SIDE_PANES) - 1 else "")
        tabs.append("   tab: next pane", style="dim")
        self.query_one("#tabs", Static).update(tabs)
        self.fit_rows()
        self.refresh_bindings()

    def fit_rows(self) -> None:
        """Wide layout: the Map as tall as its picture, the Log takes the rest below it."""
        body = self.query_one("#body")
        height = body.size.height
        if self.compact or height < 12:
            if getattr(self, "_rows", None) is not None:
                self._rows = None
                body.styles.grid_rows = None
            return
        lines = self.query_one(MapPane).content_lines
        map_h = max(8, min(lines + 2, height - 7))
        story_h = max(4, min(map_h - 4, height * 45 // 100))
        rows = f"{story_h} {map_h - story_h} 1fr"
        if rows != getattr(self, "_rows", None):
            self._rows = rows
            body.styles.grid_rows = rows

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_pane":
            return self.compact
        if action == "choices":
            return bool(self.query_one(PromptBar).options) or None
        if action == "chat":
            return self.chat_ok
        if action == "lobby":
            return self.chat_ok and hasattr(self.link, "lobby_info")
        if action in ("summary", "new_game"):
            return bool(self.view.get("outcome"))
        return True

    def action_next_pane(self) -> None:
        self.side = SIDE_PANES[(SIDE_PANES.index(self.side) + 1) % len(SIDE_PANES)]
        self.relayout()

    def show_pane(self, name: str) -> None:
        if name in SIDE_PANES:
            self.side = name
            self.relayout()

    # -- updates from the table --------------------------------------------

    @work(exclusive=True, group="link", exit_on_error=False)
    async def pump(self) -> None:
        try:
            first = await self.link.open()
            self.apply_update(first)
            view = first.view
            if not first.events and view.get("turn") is not None:
                active = next((i for i in view.get("investigators") or [] if i.get("index") == view.get("active")), None)
                if active is None and view.get("mats") and isinstance(view.get("active"), int):
                    active = view["mats"][view["active"]]  # Shamblers: Player Mats
                self.say("turn", f"Turn {view['turn']}: {active['name'] if active else 'the next player'} to play.")
            async for update in self.link.updates():
                self.apply_update(update)
        except Exception as exc:  # a broken link is shown, never a crash
            self.say("error", f"No connection to the table: {exc}")
            self.note = Text(f"No connection to the table: {exc}   (q quits)", style="bold red")
            self.query_one(PromptBar).show(self.view, frozenset(), self.note)
            raise

    def say(self, kind: str, sentence: str) -> None:
        self.query_one(LogPane).say(kind, sentence)

    def apply_update(self, update: Update) -> None:
        with self.app.batch_update():  # one frame for the whole update
            self._apply_update(update)

    def _apply_update(self, update: Update) -> None:
        self.updates_seen += 1
        self.view = update.view
        names = Names(update.view)
        for ev in update.events:
            self.say(*tell(ev, names))
        self.note = None
        if update.rejected:
            self.say("error", f"Refused: {update.rejected}")
            self.note = Text(f"Refused: {update.rejected}", style="bold red")
            self.app.bell()
        if update.notice:
            self.say("info", update.notice)
        if update.chat:
            self.say("chat", f"<{update.chat[0]}> {update.chat[1]}")
        self.pending = False
        self.redraw()
        if update.view.get("outcome") and not self.over_shown:
            self.over_shown = True
            self.action_summary()

    def redraw(self) -> None:
        view = self.view
        for pane in (MapPane, StoryPane, InvestigatorsPane):
            self.query_one(pane).show(view)
        self.fit_rows()
        self.query_one(PromptBar).show(view, self.link.local_seats, self.note)
        status = Text(" cthulhu", style="bold")
        ep = (view.get("episode") or {}).get("name") or ("Shamblers" if view.get("mode") == "shamblers" else None)
        if ep:
            status.append(f"  {ep}")
        if self.title_text:
            status.append(f"  {self.title_text}", style="dim")
        if self.link.seed is not None:
            status.append(f"  seed {self.link.seed}")
        if view.get("turn") is not None:
            status.append(f"  turn {view['turn']}")
        status.append(f"  step {view.get('step', 0)}", style="dim")
        if status != getattr(self, "_status", None):
            self._status = status
            self.query_one("#status", Static).update(status, layout=False)
        footer_state = (bool(self.query_one(PromptBar).options), bool(view.get("outcome")))
        if footer_state != getattr(self, "_footer_state", None):
            self._footer_state = footer_state
            self.refresh_bindings()
        options = self.query_one(PromptBar).options
        if len(options) > MANY_OPTIONS and not isinstance(self.app.screen, ChoiceScreen):
            self.action_choices()

    # -- choosing ----------------------------------------------------------

    async def on_key(self, event) -> None:
        if self.query_one(ChatInput).has_focus:
            return
        key = event.character or ""
        if not key or key not in OPTION_KEYS:
            return
        bar = self.query_one(PromptBar)
        index = OPTION_KEYS.index(key)
        if bar.local and index < len(bar.options):
            event.stop()
            await self.choose(index)

    async def choose(self, index: int) -> None:
        prompt = self.view.get("prompt") or {}
        options = prompt.get("options") or []
        if self.pending or index >= len(options) or prompt.get("seat") not in self.link.local_seats:
            return
        self.pending = True
        await self.link.send(int(prompt["seat"]), options[index]["command"], prompt.get("version"))

    def action_choices(self) -> None:
        prompt = self.view.get("prompt") or {}
        options = prompt.get("options") or []
        if not options or prompt.get("seat") not in self.link.local_seats:
            return
        version = prompt.get("version")

        async def picked(index: int | None) -> None:
            if index is not None and (self.view.get("prompt") or {}).get("version") == version:
                await self.choose(index)

        self.app.push_screen(ChoiceScreen(str(prompt.get("text", "")), [str(o.get("label")) for o in options]), picked)

    # -- chat (networked games) ------------------------------------------------

    @property
    def chat_ok(self) -> bool:
        return bool(getattr(self.link, "chat_ok", False))

    def action_chat(self) -> None:
        if self.chat_ok:
            self.query_one(ChatInput).open()

    def action_lobby(self) -> None:
        """Who sits where, the table code and the open seats (networked games)."""
        if self.check_action("lobby", ()):
            from .screen_lobby import LobbyScreen

            options = getattr(self.app, "options", None)
            info = dict(self.link.lobby_info(), doors=getattr(options, "doors", ()), visitor=getattr(options, "kiosk", False))
            self.app.push_screen(LobbyScreen(info))

    async def on_chat_input_said(self, message: ChatInput.Said) -> None:
        try:
            await self.link.chat(message.text)
        except Exception as exc:  # a dropped connection is shown, never a crash
            self.say("error", f"Chat not sent: {exc}")

    # -- saving, quitting, the end -------------------------------------------

    async def action_save(self) -> None:
        where = await self.link.save()
        self.say("info", f"Saved to {where}." if where else "Saves are not available in this build.")

    def action_quit_menu(self) -> None:
        where = getattr(getattr(self.link, "autosave", None), "path", None)

        async def decided(what: str | None) -> None:
            if what == "save":
                await self.link.save()
            if what in ("save", "quit"):
                await self.app.leave()

        self.app.push_screen(QuitScreen(str(where) if where else None), decided)

    def action_summary(self) -> None:
        if not self.view.get("outcome"):
            return

        async def decided(what: str | None) -> None:
            if what == "quit":
                await self.app.leave()
            elif what == "new":
                await self.action_new_game()

        self.app.push_screen(GameOverScreen(self.view, self.link.seed), decided)

    async def action_new_game(self) -> None:
        await self.link.close()
        await self.app.new_game()
