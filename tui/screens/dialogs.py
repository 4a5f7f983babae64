"""Modal screens: help, quit, a long list of choices, the end of the game, a terminal too small."""

from __future__ import annotations

import textwrap
from typing import Any, Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cthulhu.net.textclean import clean_text

from ..modes import tui_mode
from ..options import MIN_SIZE, OPTION_KEYS
from ..safe import plain, safe_text

HELP_KEYS = """\
Keys
  1-9, a, b ...  pick an option          o  the options as a list
  u or ctrl+z    take back your last choice (never past a roll or a card)
  tab, shift+tab the next (previous) pane: Map, Investigators, Story, Log
  arrows, PgUp, PgDn, Home, End   scroll the focused pane
  z  zoom the focused pane and back      l  the whole Log and back
  s  save now (the game also saves itself after every move)
  c  chat (networked games)              L  the table: code, seats
  a  the odds: the roll being decided, and the search bot's win chances
  q  save and quit (asks first)          ctrl+q  quit at once
  ? or f1  this help    ctrl+p  command palette    escape  close a dialog
"""

def help_text(mode: str, content: Any, view: dict[str, Any] | None = None, options: Any = None, width: int = 62) -> str:
    """Keys and the rules of the mode being played in brief, wrapped to the dialog. The numbers come
    from the game's `view` when there is one, else from the `content` (at the `options` chosen)."""
    lines = [HELP_KEYS, "The game in brief (in our own words)"]
    for bullet, para in tui_mode(mode).help(content, view or None, options):
        if not para:
            lines.append("")
            continue
        lines.extend(textwrap.wrap(para, width, initial_indent="  " + bullet, subsequent_indent="  " + " " * len(bullet)))
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Help", classes="title")
            with VerticalScroll(id="help-body", classes="dialog-body"):
                yield Static(self.text, markup=False)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)


QuitChoice = Literal["save", "quit", "stay"]
OverChoice = Literal["new", "quit", "board"]


class QuitScreen(ModalScreen[QuitChoice]):
    """Dismisses with 'save' (save and quit), 'quit' (quit without a final save) or 'stay'."""

    BINDINGS = [
        Binding("y,enter,s", "choose('save')", "Save and quit"),
        Binding("n", "choose('quit')", "Quit, no save"),
        Binding("escape", "choose('stay')", "Keep playing"),
    ]

    def __init__(self, where: str | None, comeback: str | None = None) -> None:
        super().__init__()
        self.where = where
        self.comeback = comeback  # how to carry on (load the save, or join again)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Quit the game?", classes="title")
            if self.where:
                about = f"The game is saved after every move, in\n{self.where}\n{self.comeback or ''}"
                keys = "y / Enter  save and quit\nn          quit without a final save\nescape     keep playing"
            else:
                about = self.comeback or "This game is not being saved; quitting ends it."
                keys = "y / Enter  quit\nescape     keep playing"
            with VerticalScroll(classes="dialog-body"):  # a long path wraps over many rows of a small terminal
                yield Static(Text(clean_text(about, newlines=True)))
            yield Static("\n" + keys, classes="keys")

    def action_choose(self, what: str) -> None:
        self.dismiss(what)  # type: ignore[arg-type]  # the bindings above name only the declared choices


class ChoiceScreen(ModalScreen[int | None]):
    """All options as a list: arrows and Enter, or the same keys as the prompt bar."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, text: str, labels: list[str], keys: list[str] | None = None) -> None:
        super().__init__()
        self.text = text
        self.labels = labels
        self.keys = keys if keys is not None else [OPTION_KEYS[n] if n < len(OPTION_KEYS) else "" for n in range(len(labels))]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(plain(self.text), classes="title")
            yield OptionList(
                *[Option(plain(f"{(self.keys[n] if n < len(self.keys) else '') or ' '}  {label}"), id=str(n)) for n, label in enumerate(self.labels)]
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def on_key(self, event: events.Key) -> None:
        key = event.character or ""
        if key and key in self.keys and self.keys.index(key) < len(self.labels):
            event.stop()
            self.dismiss(self.keys.index(key))

    def action_cancel(self) -> None:
        self.dismiss(None)


def summary_text(view: dict[str, Any]) -> Text:
    """Outcome, turns played, and what became of the table (the mode's own summary)."""
    outcome = view["outcome"] or "unfinished"
    out = Text("Victory!" if outcome == "won" else ("Defeat." if outcome == "lost" else outcome.title()), style="bold")
    out.append("\n")
    out.append_text(tui_mode(view["mode"]).summary(view))  # why it ended, in the mode's words, and the table
    out.append(f"\n\nTurns played: {view.get('turn', '?')}")
    return out


class GameOverScreen(ModalScreen[OverChoice]):
    """Dismisses with 'new', 'quit' or 'board' (look at the final table)."""

    BINDINGS = [
        Binding("n", "choose('new')", "New game"),
        Binding("q", "choose('quit')", "Quit"),
        Binding("escape,enter", "choose('board')", "See the board"),
    ]

    def __init__(self, view: dict[str, Any], again: str | None, dice: str | None = None) -> None:
        super().__init__()
        self.view = view
        self.again = again  # the `cthulhu play` line that starts this table again (`TableLink.play_again`)
        self.dice = dice
        # The lines a later message updates, kept from compose on: a verdict that comes between compose
        # and mount (a query finds nothing then) still reaches its line.
        self._summary_line: Static | None = None
        self._dice_line: Static | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("The game is over", classes="title")
            with VerticalScroll(classes="dialog-body"):
                self._summary_line = Static(self._summary(), id="summary")
                self._dice_line = Static(plain(self.dice or ""), id="dice")
                yield self._summary_line
                yield self._dice_line
            yield Static("\nn  new game     q  quit     Enter / escape  see the board", classes="keys")

    def _summary(self) -> Text:
        body = summary_text(self.view)
        if self.again is not None:
            body.append(f"\n\nPlay the same game again with:\n{self.again}", style="dim")
        return safe_text(body)

    def show_again(self, again: str | None) -> None:
        """The line to play it again, once the host has revealed the seed (networked games)."""
        if again is not None and again != self.again:
            self.again = again
            if self._summary_line is not None:  # none yet before the dialog is composed (compose shows `again`)
                self._summary_line.update(self._summary())

    def show_dice(self, text: str) -> None:
        """The peer's own check of every roll, once it is done (networked games)."""
        self.dice = text
        if self._dice_line is not None:  # none yet before the dialog is composed (compose shows `dice`)
            self._dice_line.update(plain(text))  # names what the host sent: never markup

    def action_choose(self, what: str) -> None:
        self.dismiss(what)  # type: ignore[arg-type]  # the bindings above name only the declared choices


class TooSmallScreen(Screen[None]):
    """Shown instead of a garbled table while the terminal is below the minimum size."""

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")

    def on_mount(self) -> None:
        self.show_size(self.app.size)

    def on_resize(self, event: events.Resize) -> None:
        self.show_size(event.size)

    def show_size(self, size: Size) -> None:
        w, h = size
        self.query_one("#too-small", Static).update(
            f"cthulhu needs a terminal of at least {MIN_SIZE[0]}x{MIN_SIZE[1]};\nthis one is {w}x{h}. Please make it larger.\n\n(ctrl+q quits)"
        )
