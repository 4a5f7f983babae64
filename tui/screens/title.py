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

from cthulhu.net import clean_text

from cthulhu.core import Mode
from cthulhu.core import modes as core_modes
from cthulhu.net import when_words

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


def select_in(row: Row, value: Any) -> None:
    for i, (v, _) in enumerate(row.values):
        if v == value:
            row.index = i


def setup_rows(mode: Mode, content: Any, chosen: dict[str, Any]) -> list[Row]:
    """A form's rows for a mode's set-up choices (`Mode.options`; a list choice: `rows` of them),
    each starting on what was chosen, else on the interface's default, else on the rules' own (its name
    and "(default)"), which a one-id choice lists once."""
    part = _mode_content(content, mode)
    preset = tui_mode(mode.name).defaults(content)
    rows: list[Row] = []
    for option in mode.options:
        values = [(c.id, c.name) for c in option.values(part)]
        if option.many:
            wanted = list(chosen.get(option.name) or option.defaults(part))
            for n in range(option.rows):
                row = Row(f"{option.name}:{n}", f"{option.label} {n + 1}", ([] if n == 0 else [(None, NONE)]) + values or [(None, NONE)])
                if n < len(wanted):
                    select_in(row, wanted[n])
                rows.append(row)
        else:
            # What the rules pick when nothing is chosen is named in its own place ("The Wexley Mill Fire (default)")
            default = next(iter(option.defaults(part)), None)
            if any(id_ == default for id_, _ in values):
                row = Row(option.name, option.label, [(None, f"{name} {DEFAULT}") if id_ == default else (id_, name) for id_, name in values])
            else:
                row = Row(option.name, option.label, [(None, DEFAULT)] + values)
            picked = chosen.get(option.name) or preset.get(option.name)
            select_in(row, None if picked == default else picked)
            rows.append(row)
    return rows


def figures_chosen(mode: Mode, rows: list[Row]) -> int | None:
    """How many figures a list choice of `rows` has (investigators, one a seat); None for a mode without one."""
    many = next((o for o in mode.options if o.many), None)
    if many is None:
        return None
    return len(setup_chosen(mode, rows).get(many.name) or [])


def bot_row(mode: Mode, bot: str | None) -> Row:
    """"Bots play as": the mode's bot kinds, its own first."""
    kinds = [mode.default_bot] + [k for k in mode.bot_kinds if k != mode.default_bot]
    row = Row("bot", "Bots play as", [(k, k + (" (the mode's own)" if k == mode.default_bot else "")) for k in kinds])
    select_in(row, bot)
    return row


def draw_rows(rows: list[Row], cursor: int, typed: dict[str, str] | None = None) -> Text:
    """A form's rows, the one at `cursor` marked with its value between arrows (a row whose key is
    in `typed` shows that text, being typed)."""
    out = Text()
    for n, row in enumerate(rows):
        selected = n == cursor
        typing = typed is not None and row.key in typed
        shown = (typed or {}).get(row.key, "") + ("_" if selected else "") if typing else row.values[row.index][1]
        line = Text(f"{'>' if selected else ' '} {row.label:<16}", style="bold" if selected else "")
        line.append(f" < {shown} >" if selected and not typing else f"   {shown}", style="reverse" if selected else "")
        out.append_text(line)
        out.append("\n")
    return out


def setup_chosen(mode: Mode, rows: list[Row]) -> dict[str, str | list[str]]:
    """The set-up choices `setup_rows` rows hold (a list choice's same id twice counts once)."""
    choices: dict[str, str | list[str]] = {}
    for option in mode.options:
        if option.many:
            ids = [r.value for r in rows if r.key.startswith(option.name + ":") and r.value is not None]
            if ids:
                choices[option.name] = list(dict.fromkeys(ids))
        else:
            value = next((r.value for r in rows if r.key == option.name), None)
            if value is not None:
                choices[option.name] = value
    return choices


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
        select_in(self.mode_row, options.mode)
        select_in(self.players, options.players)
        select_in(self.bots, options.bots)
        select_in(self.hints, options.hints)
        self.seed_text = str(options.seed if options.seed is not None else random_seed())
        self.cursor = 0
        self.rows: list[Row] = []
        self._mode_rows(dict(options.choices), options.bot_kind)

    def _mode_rows(self, chosen: dict[str, Any], bot: str | None) -> None:
        """The rows of the mode now chosen: its set-up choices and its bots."""
        mode = core_modes.get(self.mode_row.value)
        self.option_rows = setup_rows(mode, self.content, chosen)
        self.bot_row = bot_row(mode, bot)
        self.rows = [self.mode_row, *self.option_rows, self.players, self.bots, self.bot_row, self.hints, self.seed_row]

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
        out.append_text(draw_rows(self.rows, self.cursor, {"seed": self.seed_text}))
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
        return self.options.with_(
            mode=mode.name,
            choices=setup_chosen(mode, self.option_rows),
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
        """Two lines, so that none wraps inside a phrase: the file, then the game and when it was played."""
        h = e.save.header  # read from a file: any of it may be hostile
        return Text.assemble(plain(e.path.name), "\n", plain(f"  {h.mode}, step {h.step}, {h.outcome or 'in play'}, {when_words(str(h.updated))}"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.entries[int(event.option.id or 0)].path)

    def action_cancel(self) -> None:
        self.dismiss(None)
