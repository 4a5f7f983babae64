"""The title / new-game screen: a short form driven by arrow keys; Enter starts at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from cthulhu.net.textclean import clean_text

from cthulhu.core import Mode
from cthulhu.core import modes as core_modes

from ..modes import mode_titles, tui_mode
from ..options import PlayOptions, random_seed
from ..safe import plain

NONE = "(none)"
DEFAULT = "(default)"


@dataclass
class Row:
    key: str
    label: str
    values: list[tuple[Any, str]]  # (value, shown)
    index: int = 0

    @property
    def value(self) -> Any:
        return self.values[self.index][0] if self.values else None


def _mode_content(content: Any, mode: Mode) -> Any:
    """The part of the content a mode's option values come from (None for a mode without content)."""
    return content.modes.get(mode.name) if content is not None else None


class TitleScreen(Screen[PlayOptions]):
    """Dismisses with the options of the game to start. The rows after Mode are the chosen mode's
    own set-up choices (`Mode.options`) and its bots (`Mode.bot_kinds`), made again when the mode
    changes: nothing here knows which modes there are or what they ask."""

    BINDINGS = [
        Binding("enter", "start", "Start"),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("left", "change(-1)", "Change", show=False),
        Binding("right", "change(1)", "Change"),
        Binding("r", "reseed", "New seed"),
        Binding("l", "load", "Load save"),
        Binding("v", "replay", "Replay a save"),
        Binding("question_mark,f1", "app.help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, options: PlayOptions, content: Any) -> None:
        super().__init__()
        self.options = options
        self.content = content
        self.mode_row = Row("mode", "Mode", list(mode_titles()))
        self.players = Row("players", "Players here", [(n, str(n) + (" (hot-seat)" if n > 1 else "")) for n in range(1, 5)])
        self.bots = Row("bots", "Bots", [(n, str(n)) for n in range(0, 4)])
        self.hints = Row("hints", "Hints", [(True, "on: a line of help for each new kind of choice"), (False, "off")])
        self.seed_row = Row("seed", "Seed", [(None, "")])
        self._select_in(self.mode_row, options.mode)
        self._select_in(self.players, options.players)
        self._select_in(self.bots, options.bots)
        self._select_in(self.hints, options.hints)
        self.seed_text = str(options.seed if options.seed is not None else random_seed())
        self.cursor = 0
        self.rows: list[Row] = []
        self._mode_rows(dict(options.choices), options.bot_kind)

    def _mode_rows(self, chosen: dict[str, Any], bot: str | None) -> None:
        """The rows of the mode now chosen: one per set-up choice (a list choice: `rows` of them),
        starting on what was chosen, else on the interface's default, else "(default)"."""
        mode = core_modes.get(self.mode_row.value)
        part = _mode_content(self.content, mode)
        preset = tui_mode(mode.name).defaults(self.content)
        rows: list[Row] = []
        for option in mode.options:
            values = [(c.id, c.name) for c in option.values(part)]
            if option.many:
                wanted = list(chosen.get(option.name) or option.defaults(part))
                for n in range(option.rows):
                    row = Row(f"{option.name}:{n}", f"{option.label} {n + 1}", ([] if n == 0 else [(None, NONE)]) + values or [(None, NONE)])
                    if n < len(wanted):
                        self._select_in(row, wanted[n])
                    rows.append(row)
            else:
                row = Row(option.name, option.label, [(None, DEFAULT)] + values)
                self._select_in(row, chosen.get(option.name) or preset.get(option.name))
                rows.append(row)
        kinds = [mode.default_bot] + [k for k in mode.bot_kinds if k != mode.default_bot]
        bot_row = Row("bot", "Bots play as", [(k, k + (" (the mode's own)" if k == mode.default_bot else "")) for k in kinds])
        self._select_in(bot_row, bot)
        self.option_rows = rows
        self.bot_row = bot_row
        self.rows = [self.mode_row, *rows, self.players, self.bots, bot_row, self.hints, self.seed_row]

    @staticmethod
    def _select_in(row: Row, value: Any) -> None:
        for i, (v, _) in enumerate(row.values):
            if v == value:
                row.index = i

    def row(self, key: str) -> Row:
        return next(r for r in self.rows if r.key == key)

    def compose(self) -> ComposeResult:
        with Vertical(id="title-box"):
            yield Static(id="title-form")
        yield Footer()

    def on_mount(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        out = Text()
        out.append("CTHULHU\n", style="bold")
        out.append("a cooperative game of dread, for one to five at a terminal\n\n", style="dim italic")
        for n, row in enumerate(self.rows):
            selected = n == self.cursor
            shown = self.seed_text + ("_" if selected else "") if row.key == "seed" else row.values[row.index][1]
            line = Text(f"{'>' if selected else ' '} {row.label:<16}", style="bold" if selected else "")
            line.append(f" < {shown} >" if selected and row.key != "seed" else f"   {shown}", style="reverse" if selected else "")
            out.append_text(line)
            out.append("\n")
        out.append("\nEnter start  up/down choose  left/right change  digits type the seed\n", style="dim")  # one line at 80 columns
        out.append("r new seed  l load a save  v replay a save  ? help  q quit", style="dim")
        self.query_one("#title-form", Static).update(out)

    def action_move(self, step: int) -> None:
        self.cursor = (self.cursor + step) % len(self.rows)
        self.redraw()

    def action_change(self, step: int) -> None:
        row = self.rows[self.cursor]
        if row.key != "seed" and row.values:
            row.index = (row.index + step) % len(row.values)
        if row is self.mode_row:  # another mode asks other questions
            self._mode_rows({}, self.bot_row.value)
        self.redraw()

    def action_reseed(self) -> None:
        self.seed_text = str(random_seed())
        self.redraw()

    def on_key(self, event: events.Key) -> None:
        if self.rows[self.cursor].key != "seed":
            return
        if event.character and event.character.isdigit() and len(self.seed_text) < 18:
            self.seed_text = (self.seed_text if self.seed_text != "0" else "") + event.character
        elif event.key == "backspace":
            self.seed_text = self.seed_text[:-1]
        else:
            return
        event.stop()
        self.redraw()

    def chosen(self) -> PlayOptions:
        mode = core_modes.get(self.mode_row.value)
        choices: dict[str, str | list[str]] = {}
        for option in mode.options:
            if option.many:  # the same id twice counts once
                ids = [r.value for r in self.option_rows if r.key.startswith(option.name + ":") and r.value is not None]
                if ids:
                    choices[option.name] = list(dict.fromkeys(ids))
            elif self.row(option.name).value is not None:
                choices[option.name] = self.row(option.name).value
        return self.options.with_(
            mode=mode.name,
            choices=choices,
            players=self.players.value,
            bots=self.bots.value,
            bot_kind=self.bot_row.value,
            hints=self.hints.value,
            seed=int(self.seed_text or "0"),
            load=None,
        )

    def action_start(self) -> None:
        self.dismiss(self.chosen())

    def action_load(self) -> None:
        entries = self._saves()
        if entries:

            def picked(path: Any) -> None:
                if path is not None:
                    self.dismiss(self.chosen().with_(load=path))

            self.app.push_screen(LoadScreen(entries), picked)

    def action_replay(self) -> None:
        """Pick a save and step through it in the replay viewer; closing it comes back here."""
        entries = self._saves()
        if entries:

            def picked(path: Any) -> None:
                if path is None:
                    return
                from .replay import open_replay

                try:
                    viewer = open_replay(path)
                except Exception as exc:  # a damaged or mismatching save: say why, stay here
                    self.notify(clean_text(f"Cannot replay {getattr(path, 'name', path)}: {exc}"), severity="error", timeout=10, markup=False)
                    return
                self.app.push_screen(viewer)

            self.app.push_screen(LoadScreen(entries, title="Replay a save"), picked)

    def _saves(self) -> list[Any]:
        from cthulhu.savegame.folder import default_saves_dir, list_saves

        folder = default_saves_dir(self.options.saves_dir)
        entries = [e for e in list_saves(folder) if e.save is not None] if folder.exists() else []
        if not entries:
            self.notify(clean_text(f"No saves in {folder}."), severity="warning", markup=False)
        return entries


class LoadScreen(ModalScreen[Any]):
    """Pick a save: newest first."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, entries: list[Any], *, title: str = "Load a save") -> None:
        super().__init__()
        self.title_text = title
        self.entries = sorted(entries, key=lambda e: str(getattr(e.save.header, "updated", "")), reverse=True)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="title")
            yield OptionList(*[Option(self._label(e), id=str(n)) for n, e in enumerate(self.entries)])

    @staticmethod
    def _label(e: Any) -> Text:
        h = e.save.header  # read from a file: any of it may be hostile
        return plain(f"{e.path.name}  {h.mode}  step {h.step}  {h.outcome or 'in play'}  {str(h.updated)[:16]}")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.entries[int(event.option.id or 0)].path)

    def action_cancel(self) -> None:
        self.dismiss(None)
