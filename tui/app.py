"""The Textual app: a thin shell that opens a table link and swaps screens.

Where the table lives (in this process, an embedded host, a LAN host) is the
`link_factory`'s business; the app only knows `TableLink`.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
from pathlib import Path
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from textual import events
from textual.actions import SkipAction
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import Reactive
from textual.theme import Theme
from textual.widgets import Input
from textual.command import CommandPalette
from textual.geometry import Size
from textual.screen import ModalScreen, Screen
from textual.scrollbar import ScrollBar, ScrollBarRender

from cthulhu.net import clean_text

from .compositor import CompositorUpdate
from .idle import LobbyIdle
from .link import TableLink
from .lobbylink import LobbyLink
from .options import MIN_SIZE, PlayOptions, random_seed
from .screens.dialogs import HelpScreen, QuitScreen, TooSmallScreen, help_text
from .screens.game import GameScreen
from .screens.title import TitleScreen
from .terminal import DiffUpdate, PlainScrollBarRender, Terminal, speaks_utf8
from .themes import THEMES, VGA
from .widgets.panes import ViewPane

LinkFactory = Callable[[PlayOptions], Awaitable[TableLink]]


async def default_link(options: PlayOptions) -> TableLink:
    """A host elsewhere (`--join`): the link of an app handed no factory. A table of this process's
    own is opened by whoever runs the app (`cli.embedded.table_link`): the interface hosts nothing."""
    from .linkerrors import LinkError
    from .netlink import join_link

    if options.join is None:
        raise LinkError("this interface only joins tables: a table of its own is opened by `cthulhu play`")
    return join_link(options)


class CthulhuApp(App[None]):
    ansi_theme_dark = Reactive(VGA, init=False)  # what named colors look like in true color: see tui.themes
    CSS_PATH = Path(__file__).with_name("cthulhu.tcss")  # absolute: subclasses live in other folders
    TITLE = "cthulhu"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit now", show=False, priority=True),
        Binding("ctrl+l", "repaint", "Repaint", show=False),
        # Textual's own ctrl+c only says to press ctrl+q; ours asks as `q` does, over a dialog too (a priority
        # binding: a dialog's keys end its chain), and copies instead where text is selected, as Textual's does.
        Binding("ctrl+c", "ctrl_c_quit", "Quit", show=False, system=True, priority=True),
        # Browsers keep ctrl+p (print) for themselves: ':' opens the command palette too. Named here,
        # ctrl+p must be too: Textual adds its own only when no binding opens the palette.
        Binding("ctrl+p", "command_palette", "palette", show=False, priority=True, tooltip="Open the command palette"),
        Binding("colon", "command_palette", "Commands", show=False),
    ]

    def __init__(self, options: PlayOptions | None = None, link_factory: LinkFactory | None = None) -> None:
        super().__init__()
        self.options = options or PlayOptions()
        self.link_factory: LinkFactory = link_factory or default_link
        self.terminal = Terminal(no_color=self.no_color)
        self.on_frame: Callable[[str], None] | None = None  # a recording's sink (`tui.record`): what each frame sends
        for theme in THEMES.values():
            self.register_theme(theme)
        self.ascii_mode = self.options.ascii or not speaks_utf8()
        self.link: TableLink | None = None
        self.lobby: LobbyLink | None = None  # a server's lobby, when the tables come from one
        self.farewell: str | None = None  # printed after the app closes: how to carry on
        self.failure: str | None = None  # why a game asked for on the command line could not start
        self._content: Any = None
        self._ending = False  # a signal asked us to leave
        self.quitting = False  # leaving has begun: keys typed ahead (the next shell command) are not ours
        self.settle_heap = False  # the process is this app's own (`run_app`): freeze the start-up heap once
        self._idle: LobbyIdle | None = None  # a door's visitor in a server's lobby: let go when idle

    @property
    def content(self) -> Any:
        if self._content is None:
            from cthulhu.content import builtin

            self._content = builtin()
        return self._content

    # -- start and screens --------------------------------------------------

    def first_view_drawn(self) -> None:
        """Once the first table is on the screen, the start-up's objects (Textual, the app, the screens, the
        styles: ~90,000 of them) are kept out of the collector's way: a full collection walked them all, ~90 ms
        each time, between two keys. One collection first (~55 ms, after the frame), so no start-up garbage
        is kept for good; then `gc.freeze`, as the doors' zygote does before it forks. Only in a process of
        the app's own: frozen objects are never collected, which a test process running many apps must not get."""
        if self.settle_heap:
            self.settle_heap = False
            gc.collect()
            gc.freeze()

    def on_mount(self, event: events.Mount) -> None:
        self.use_theme(self.options.theme)
        if self.options.join is not None and self.options.lobby:
            self.call_later(self.open_lobby)
        elif self.options.skip_title or self.options.load is not None or self.options.join is not None:
            self.call_later(self.start_game, self.options)
        else:
            self.show_title()
        self.check_size()

    def show_title(self) -> None:
        def chosen(options: PlayOptions | None) -> None:
            if options is not None:
                self.call_later(self.start_game, options, True)

        self.push_screen(TitleScreen(self.options, self.content), chosen)
        self.check_size()

    async def start_game(self, options: PlayOptions, from_title: bool = False) -> None:
        self.options = options
        try:
            link = await self.link_factory(options)
            if options.join is not None:
                from .linkerrors import LinkError, ServerLobby

                try:
                    await link.open()  # a server of many tables, with no table named, opens its lobby
                except ServerLobby:
                    await link.close()
                    await self.open_lobby()
                    return
                except LinkError:
                    pass  # refused, or nobody answers yet: the game screen tries again and says so
        except Exception as exc:  # bad options or a broken save: say why
            if not from_title and (options.hosting or options.join is not None):
                self.failure = clean_text(str(exc))  # `cthulhu host` / `join` asked for this table, not a title screen
                self.exit()
                return
            self.notify(clean_text(f"Could not start the game: {exc}"), severity="error", timeout=10, markup=False)
            self.show_title()
            return
        self.link = link
        await self.push_screen(GameScreen(link, title=link.label))
        self.check_size()

    # -- a server's lobby ------------------------------------------------------------------

    async def open_lobby(self) -> None:
        """The lobby of the server `options.join` names (this machine known there by its identity key)."""
        from cthulhu.net import LobbyRefused
        from cthulhu.net import SeatStore
        from cthulhu.net import TlsFailed

        from .lobbylink import LobbyLink
        from .screens.tables import TablesScreen

        assert self.options.join is not None
        host, port = self.options.join
        address = self.options.join_address or f"{host}:{port}"
        try:
            ident: str | None = SeatStore().identity(address)
        except OSError:
            ident = None
        link = LobbyLink(host, port, name=self.options.name, ident=ident, address=address, tls=self.options.tls)
        try:
            await link.open()
        except (LobbyRefused, OSError, TlsFailed) as exc:
            await link.close()
            if isinstance(exc, LobbyRefused) and exc.code == "name_taken":  # one line: "Bob is taken on this server"
                self.failure = clean_text(f"{exc.reason} (--name picks another)")
            else:
                self.failure = clean_text(f"the server's lobby: {exc}")
            self.exit()
            return
        self.lobby = link
        await self.push_screen(TablesScreen(link))
        self.check_size()
        if self.options.lobby_idle is not None and self._idle is None:
            idle = self._idle = LobbyIdle(self.options.lobby_idle, asyncio.get_running_loop().time)
            self.set_interval(idle.check_every, self._idle_check)

    async def _idle_check(self) -> None:
        """A door's visitor idle in the lobby is let go, told why (`tui.idle`)."""
        if self._idle is not None and not self._ending and self._idle.over(in_lobby=self.lobby is not None and self.link is None):
            self._ending = True
            farewell = self._idle.farewell()
            await self.leave(everything=True)
            self.farewell = farewell

    async def on_event(self, event: events.Event) -> None:
        """A key keeps a door's visitor from idling out. Once quitting has begun, what is typed or clicked
        is for the shell the app hands the terminal back to: a key that opened a dialog now would find the
        app taken down under it."""
        if self.quitting and isinstance(event, (events.InputEvent, events.Paste)):
            return
        if self._idle is not None and isinstance(event, events.Key):
            self._idle.key()
        await super().on_event(event)

    async def sit(self, table: str, *, code: str | None, watch: bool) -> str | None:
        """Sit at (or watch) one of the lobby's tables; one line saying why not, or None."""
        options = self.options.with_(join_table=table, code=code, watch=watch, join_seat=None, token=None, lobby=False)
        from .linkerrors import Refused

        try:
            link = await self.link_factory(options)
            await link.open()
        except Refused as exc:  # the table's own words, told as the server's
            if exc.code == "bad_code":
                return f"Wrong code for this table ({clean_text(table)}): its player can tell you the code (i: ID CODE)."
            return clean_text(f"The server refused: {exc.reason}")
        except Exception as exc:  # no such table, or the server went away
            return clean_text(str(exc))
        self.link = link
        await self.push_screen(GameScreen(link, title=link.label))
        self.check_size()
        return None

    async def back_to_lobby(self) -> bool:
        """From a table of the lobby's back to the lobby (False: there is no lobby to go back to)."""
        from .screens.tables import TablesScreen

        if self.lobby is None or isinstance(self.screen, TablesScreen) or not any(isinstance(s, TablesScreen) for s in self.screen_stack):
            return False
        if self.link is not None:
            try:
                await self.link.close()
            except Exception:
                pass
            self.link = None
        while not isinstance(self.screen, TablesScreen):
            self.pop_screen()
        return True

    async def new_game(self) -> None:
        """Back to the title screen with a fresh seed (a served visitor has this table only: they
        leave); from a server's table, however it was reached, to its lobby."""
        if await self.back_to_lobby():
            return
        if self.options.join is not None and self.options.join_table is not None:  # a server's table, joined by its id
            await self.lobby_instead()
            return
        if self.options.kiosk:
            await self.leave()
            return
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.link = None
        self.options = self.options.with_(seed=random_seed(), load=None)
        self.show_title()

    async def lobby_instead(self) -> None:
        """From a server's table joined by its id (`join HOST --table ID`), to that server's lobby."""
        if self.link is not None:
            await self.link.close()
            self.link = None
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.options = self.options.with_(join_table=None, join_seat=None, token=None, watch=False, lobby=True)
        await self.open_lobby()

    async def leave(self, everything: bool = False, hung_up: bool = False) -> None:
        """Close the table link (final save, stop any host), then exit; a table of a server's lobby
        goes back to the lobby instead (its seat waits), unless `everything` (ctrl+q, the lobby's q, a
        signal). `hung_up`: the terminal is gone, so nothing can be given back to it; the process
        ends once the game is saved (Textual would wait for ever to write its farewell codes to a
        terminal that takes none)."""
        self.quitting = True  # before anything is awaited: the keys already queued behind this one too
        if not everything and await self.back_to_lobby():
            self.quitting = False  # back in the lobby: its keys are the player's again
            return
        if self.lobby is not None:
            await self.lobby.close()
        if self.link is not None:
            self.farewell = self.link.comeback
            try:
                await self.link.close()
            except Exception:
                pass
        if hung_up:
            os._exit(0)
        self.exit()

    async def action_quit(self) -> None:
        await self.leave(everything=True)

    def exit(self, result: None = None, return_code: int = 0, message: Any = None) -> None:
        self.quitting = True
        super().exit(result, return_code, message)

    async def run_action(self, action: Any, default_namespace: Any = None, namespaces: Any = None) -> bool:
        """Keys a screen had been handed before quitting began bind to nothing: taken, and nothing done."""
        if self.quitting:
            return True
        return await super().run_action(action, default_namespace, namespaces)

    async def action_ctrl_c_quit(self) -> None:
        """Ctrl+C (where nothing is selected to copy) does what `q` does on the screen
        under any dialog: a game's asks to save and quit, over whatever dialog is open; elsewhere it leaves."""
        focused = self.screen.focused
        if self.screen.get_selected_text() or (isinstance(focused, Input) and focused.selected_text):
            raise SkipAction()  # the copy of the focused input, or of the screen's selection, takes it
        if any(isinstance(s, QuitScreen) for s in self.screen_stack):
            return
        under = next((s for s in reversed(self.screen_stack) if not isinstance(s, (ModalScreen, TooSmallScreen))), None)
        if isinstance(under, GameScreen):
            await self.run_action("quit_menu", under)
        else:
            await self.action_quit()

    def end_on_signal(self) -> None:
        """SIGTERM, SIGHUP or SIGINT (from `run_app`): leave as ctrl+q does; a second one while
        leaving exits at once (the save is written after every command anyway)."""
        if self._ending:
            self.exit()
            return
        self._ending = True
        self.call_later(self.leave, everything=True, hung_up=not _terminal_answers())

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            view = self.screen.view if isinstance(self.screen, GameScreen) else {}
            self.push_screen(HelpScreen(help_text(view.get("mode") or self.options.mode, self.content, view, self.options)))

    @property
    def ascii_mode(self) -> bool:
        """Only 7-bit characters on screen: ASCII borders and scrollbars, and a terminal that sends nothing else."""
        return self.terminal.ascii

    @ascii_mode.setter
    def ascii_mode(self, on: bool) -> None:
        self.terminal.set_modes(ascii=on)
        self.set_class(on, "ascii")  # the stylesheet's `.ascii` rules, for every screen and dialog
        ScrollBar.renderer = PlainScrollBarRender if on or self.no_color else ScrollBarRender
        if self.is_running:
            for screen in self.screen_stack:
                for pane in screen.query(".pane"):
                    if isinstance(pane, ViewPane):  # the panes with an ASCII form (the Log has none)
                        pane.ascii = on
                        pane.redraw()
            self.screen.refresh()

    def use_theme(self, name: str) -> None:
        """The theme at start (and every change after it, from the palette) sets the terminal writer too."""
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.theme = name
        self._theme_changed(self.current_theme)

    def _theme_changed(self, theme: Theme) -> None:
        """A theme of the terminal's own colors gets no faint text: terminals draw it as they please."""
        self.terminal.set_modes(faint=not theme.ansi)
        if self.is_running:
            self.screen.refresh()

    def action_command_palette(self) -> None:
        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]  # Textual asks for App[object]; App is invariant in its result
            placeholder = "Search for commands..." if self.ascii_mode else "Search for commands…"
            self.push_screen(CommandPalette(id="--command-palette", placeholder=placeholder))

    def get_key_display(self, binding: Binding) -> str:
        shown = super().get_key_display(binding)
        if self.ascii_mode and not shown.isascii():
            return binding.key.split(",")[0].replace("question_mark", "?")
        return shown

    # -- the terminal ----------------------------------------------------------

    def _display(self, screen: Screen[Any], renderable: Any) -> None:  # Textual's private hook: see tui/compositor.py
        """Every frame goes out through `self.terminal`: only the cells that changed are sent."""
        if isinstance(renderable, CompositorUpdate) and not isinstance(renderable, DiffUpdate) and not self.is_inline:
            renderable = self.terminal.update(renderable, *self.size)
            if self.on_frame is not None:
                self.on_frame(renderable.render_segments(self.console))
        super()._display(screen, renderable)

    def action_repaint(self) -> None:
        """Send the whole screen again (something else wrote to the terminal)."""
        self.terminal.forget()
        self.screen.refresh()

    # -- size --------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self.check_size(event.size)  # the new size: `self.size` may not have caught up yet

    def check_size(self, size: Size | None = None) -> None:
        """Cover everything with a message while the terminal is below the minimum size."""
        w, h = size or self.size
        small = w < MIN_SIZE[0] or h < MIN_SIZE[1]
        if small and not isinstance(self.screen, TooSmallScreen):
            self.push_screen(TooSmallScreen())
        elif not small:
            while isinstance(self.screen, TooSmallScreen):
                self.pop_screen()

    # -- command palette ---------------------------------------------------

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield SystemCommand("Help", "Keys and a short summary of the rules", self.action_help)
        if isinstance(screen, GameScreen):
            yield SystemCommand("Save game", "Write the save file now", screen.action_save)
            yield SystemCommand("Save and quit", "Ask, then save and quit", screen.action_quit_menu)
            yield SystemCommand("Choices", "Show the current choices as a list", screen.action_choices)
            if not self.options.kiosk:
                yield SystemCommand("New game", "Leave this game and go back to the title screen", screen.action_new_game)
            for name, title in (("investigators", "Investigators"), ("story", "Story Board"), ("log", "Log")):
                yield SystemCommand(f"Show {title}", f"Show the {title} pane (small terminals)", lambda n=name: screen.show_pane(n))
        yield SystemCommand("Toggle ASCII", "Plain ASCII borders for terminals without box drawing", self.toggle_ascii)
        for name, about in (("dark", "Dark colors, the same at every color depth"), ("ansi", "The terminal's own 16 colors")):
            yield SystemCommand(f"Theme: {name}", about, lambda name=name: setattr(self, "theme", name))
        if not self.options.kiosk:  # a visitor writes no files on the host
            yield SystemCommand("Screenshot", "Save a picture (SVG) of the screen in the saves folder", self.action_screenshot)
        for command in super().get_system_commands(screen):
            if command.title not in ("Theme", "Screenshot"):  # only our own themes; pictures go to the saves folder
                yield command

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """An SVG of the screen, written to the saves folder (the one place this app writes to)."""
        if self.options.kiosk:
            return  # a visitor writes no files on the host
        from datetime import datetime

        from cthulhu.savegame.folder import default_saves_dir

        folder = Path(path) if path else default_saves_dir(self.options.saves_dir)
        target = folder / (filename or f"screenshot-{datetime.now().strftime('%Y%m%d-%H%M%S')}.svg")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target.write_text(self.export_screenshot(), encoding="utf-8")
        except OSError as exc:
            self.notify(clean_text(f"Could not save the screenshot in {folder}: {exc.strerror or exc}"), severity="error", markup=False)
            return
        self.notify(clean_text(f"Screenshot saved: {target}"), markup=False)

    def toggle_ascii(self) -> None:
        self.ascii_mode = not self.ascii_mode


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _terminal_answers() -> bool:
    """Whether the terminal the app draws on (stderr, as Textual's driver writes) still takes writes:
    after a hang-up every write fails (EIO), an empty one too."""
    stream = sys.__stderr__
    if stream is None:
        return False
    try:
        os.write(stream.fileno(), b"")
    except (OSError, ValueError):
        return False
    return True


def run_app(app: CthulhuApp, loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Run `app` until it exits. A plain `kill` (SIGTERM), a closed window (SIGHUP) or an interrupt
    (SIGINT) ends it the way ctrl+q does: the game saved, the terminal given back as it was.
    Python's default for those signals ends the process at once, with the terminal still raw."""
    loop = loop or asyncio.new_event_loop()
    app.settle_heap = True
    for signum in ENDING_SIGNALS:
        loop.add_signal_handler(signum, app.end_on_signal)
    try:
        app.run(loop=loop)
    finally:
        for signum in ENDING_SIGNALS:
            loop.remove_signal_handler(signum)


def _say(line: str, stream: Any) -> None:
    """A last line after the app; a terminal that hung up takes none, and that is no error."""
    try:
        print(line, file=stream, flush=True)
    except OSError:
        pass


def run(options: PlayOptions, link_factory: LinkFactory | None = None, loop: asyncio.AbstractEventLoop | None = None) -> int:
    """Run the app. `cthulhu host`/`cthulhu join` can call this with `host_bind`/`remote_seats`
    or `join=(host, port)` set in the options; `cthulhu play` uses the defaults."""
    app = CthulhuApp(options, link_factory)
    run_app(app, loop)
    if app.failure:
        command = "join" if options.join is not None else "host"
        _say(f"cthulhu {command}: {app.failure}", sys.stderr)
        return 2
    if app.farewell:
        # A served visitor's stdout may be the web driver's channel: their last words go to stderr.
        _say(app.farewell, sys.stderr if options.kiosk else sys.stdout)
    return 0


def run_visitor(options: PlayOptions) -> int:
    """A visitor the host serves (`join --kiosk`): the table is joined before anything is drawn,
    so a refusal (a full table, the host gone) is one line and no screen at all. It is forked by
    the doors' zygote (`cthulhu.serve.zygote`), which also makes it leave when the host dies."""
    from .linkerrors import ServerLobby
    from .netlink import join_link

    loop = asyncio.new_event_loop()
    link = join_link(options)
    try:
        loop.run_until_complete(link.open())  # the game screen's own open() then returns this same start
    except ServerLobby:  # a server's door: the visitor chooses a table in its lobby
        loop.run_until_complete(link.close())
        try:
            return run(options.with_(lobby=True), loop=loop)
        finally:
            loop.close()
    except Exception as exc:
        loop.run_until_complete(link.close())
        loop.close()
        print(clean_text(f"cthulhu: {exc}"), file=sys.stderr)
        return 2
    try:
        async def joined(_: PlayOptions) -> TableLink:
            return link

        return run(options, joined, loop=loop)
    finally:
        loop.close()


__all__ = ["CthulhuApp", "default_link", "run", "run_app", "run_visitor"]
