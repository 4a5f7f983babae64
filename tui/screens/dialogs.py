"""Modal screens: help, quit, a long list of choices, the end of the game, a terminal too small."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cthulhu.net import clean_text

from ..modes import tui_mode
from ..options import MIN_SIZE, OPTION_KEYS
from ..safe import plain, safe_text

if TYPE_CHECKING:
    from cthulhu.core.luck import LuckReport
    from cthulhu.net import DiceVerdict

    from ..app import CthulhuApp  # typed only: the app imports its screens (see `GameScreen.cthulhu`)
    from ..link import TableLink


# What each key does, one key a line (a meaning too long for its row wraps under itself, never mid-word).
# The option keys are named as they are: digits, then the letters no other key takes (`a` is the odds).
HELP_KEYS = [
    (f"1-9, then {', '.join(OPTION_KEYS[9:12])} ...", "pick an option"),
    ("o", "the options as a list"),
    ("u or ctrl+z", "take back your last choice (never past a roll or a card)"),
    ("tab, shift+tab", "the next (previous) pane: Map, Investigators, Story, Log"),
    ("arrows, PgUp, PgDn, Home, End", "scroll the focused pane"),
    ("z", "zoom the focused pane and back"),
    ("l", "the whole Log and back"),
    ("s", "save now (the game also saves itself after every move)"),
    ("c", "chat (networked games)"),
    ("L", "the table: code, seats"),
    ("a", "the odds: the roll being decided, and the search bot's win chances"),
    ("q or ctrl+c", "save and quit (asks first)"),
    ("ctrl+q", "quit at once"),
    ("? or f1", "this help"),
    ("ctrl+p or :", "command palette"),
    ("escape", "close a dialog"),
]
KEY_COLUMN = 16


def key_lines(keys: list[tuple[str, str]], width: int) -> list[str]:
    """`keys` as rows of `width`: the key in a column of its own, its meaning beside it, wrapped at spaces
    under itself; a key longer than its column has its row to itself, the meaning on the next."""
    lines = []
    indent = " " * (2 + KEY_COLUMN)
    for key, meaning in keys:
        wrapped = textwrap.wrap(meaning, width - len(indent))
        if len(key) < KEY_COLUMN:
            lines.append(f"  {key.ljust(KEY_COLUMN)}{wrapped[0]}")
        else:
            lines += [f"  {key}", indent + wrapped[0]]
        lines += [indent + line for line in wrapped[1:]]
    return lines


def help_text(mode: str, content: Any, view: dict[str, Any] | None = None, options: Any = None, width: int = 62) -> str:
    """Keys and the rules of the mode being played in brief, wrapped to the dialog. The numbers come
    from the game's `view` when there is one, else from the `content` (at the `options` chosen)."""
    lines = ["Keys", *key_lines(HELP_KEYS, width), "", "The game in brief (in our own words)"]
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


PATH_ROOM = 60  # a dialog's line at 80 columns, with room for its scrollbar


def short_path(path: str, room: int, ellipsis: str) -> str:
    """`path` on one line of `room`: the home folder as `~`, then, if still too long, its first folders
    given up for `ellipsis` (the file's name and the folders nearest it kept whole)."""
    home = str(Path.home())
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        path = "~" + path[len(home):]
    if len(path) <= room:
        return path
    parts = path.split(os.sep)
    kept = [parts[-1]]
    for part in reversed(parts[:-1]):
        if len(ellipsis) + len(os.sep.join([part, *kept])) + 1 > room:
            break
        kept.insert(0, part)
    return os.sep.join([ellipsis, *kept])


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
                where = short_path(self.where, PATH_ROOM, "..." if getattr(self.app, "ascii_mode", False) else "\N{HORIZONTAL ELLIPSIS}")
                about = f"The game is saved after every move, in\n{where}\n{self.comeback or ''}"
                keys = "y / Enter  save and quit\nn          quit without a final save\nescape     keep playing"
            else:
                about = self.comeback or "This game is not being saved; quitting ends it."
                keys = "y / Enter  quit\nescape     keep playing"
            with VerticalScroll(classes="dialog-body"):  # a long path wraps over many rows of a small terminal
                yield Static(Text(clean_text(about, newlines=True)))
            yield Static("\n" + keys, classes="keys")

    def action_choose(self, what: str) -> None:
        if what != "stay":
            cast("CthulhuApp", self.app).quitting = True  # the game leaves next: the keys typed behind this one are not its
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

    def __init__(self, view: dict[str, Any], again: str | None, dice: str | None = None, link: TableLink | None = None, *,
                 luck: Callable[[], LuckReport | None] | None = None) -> None:
        super().__init__()
        self.view = view
        self.again = again  # the `cthulhu play` line that starts this table again (`TableLink.play_again`)
        self.dice = dice
        # The luck report: from the link's own check of every roll (a live table, `DiceVerdict.luck`),
        # or made by `luck` off the UI thread (a replay, from its save).
        self.link = link
        self.luck_source = luck
        self.luck: LuckReport | None = None
        # The lines a later message updates, kept from compose on: a verdict that comes between compose
        # and mount (a query finds nothing then) still reaches its line.
        self._summary_line: Static | None = None
        self._dice_line: Static | None = None
        self._luck_line: Static | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("The game is over", classes="title")
            with VerticalScroll(classes="dialog-body"):
                self._summary_line = Static(self._summary(), id="summary")
                self._dice_line = Static(plain(self.dice or ""), id="dice")
                self._luck_line = Static(self._luck_text(), id="luck")
                yield self._summary_line
                yield self._dice_line
                yield self._luck_line
            yield Static("\nn  new game     q  quit     Enter / escape  see the board", classes="keys")

    def on_mount(self) -> None:
        if self.luck_source is not None:
            self.run_worker(self._find_luck, thread=True, exit_on_error=False)

    def _find_luck(self) -> None:
        assert self.luck_source is not None
        try:
            report = self.luck_source()
        except Exception as exc:  # a save the replay cannot finish: said in the dialog, never a crash
            self.app.call_from_thread(self._luck_failed, str(exc))
            return
        self.app.call_from_thread(self.show_luck, report)

    def _luck_failed(self, why: str) -> None:
        if self._luck_line is not None:
            self._luck_line.update(plain(f"No luck report: {why}", style="dim"))

    def _verdict(self) -> DiceVerdict | None:
        return self.link.dice if self.link is not None else None

    def _luck_text(self) -> Text:
        verdict = self._verdict()
        report = self.luck or (verdict.luck if verdict is not None else None)
        if report is None:
            if verdict is not None and not verdict.verified:
                return plain("No luck report: the rolls were not verified.", style="dim")
            return Text()
        out = Text("\nHow the dice fell", style="bold")
        for person in report.people:  # names come from the table and its save: never markup
            out.append("\n\n")
            out.append_text(plain(person.name + (f" (seat {person.seat + 1})" if person.seat is not None else ""), style="bold"))
            for line in person.lines():
                out.append("\n")
                out.append_text(plain(line))
        for line in report.table:
            out.append("\n\n")
            out.append_text(plain(line))
        return out

    def show_luck(self, report: LuckReport | None) -> None:
        """The luck report, once it is made (a replay's, from its save)."""
        self.luck = report
        if self._luck_line is not None:
            self._luck_line.update(self._luck_text())

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
        if self._luck_line is not None:  # the verdict carries the luck report of the same replay
            self._luck_line.update(self._luck_text())

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
