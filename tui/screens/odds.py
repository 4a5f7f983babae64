"""The odds panel (`a`): the roll being decided, worked out exactly, and the search bot's win chances.

Everything here is computed on this machine from this seat's view (a joiner asks the host for
nothing, and sees nothing it could not see before): the dice from the content's faces, the
win chances by the search bot thinking about the decision in a worker thread. The panel
shows its progress as it goes (how many simulations the chances rest on) and stops thinking
when it is closed, so no key ever waits for it.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import get_current_worker

from cthulhu.core.search import Estimate, SearchBot

from ..modes import shown_labels, tui_mode
from ..modes.main.odds import percent
from ..options import command_key
from ..safe import plain


def lines_text(lines: list[str]) -> Text:
    """Lines as one literal text, each cleaned (labels and names come from the view)."""
    return Text("\n").join(plain(line) for line in lines)

ADVICE_SEED = 0  # the advisor's worlds: the same view gives the same chances
MAX_SIMS = 4000  # the advisor stops thinking here (or when the panel closes)
SHOW_EVERY = 0.2  # seconds between updates of the chances while it thinks
BEST = 3  # choices shown


class OddsScreen(ModalScreen[None]):
    """Dismissed with escape or `a` again; its worker is cancelled with it."""

    BINDINGS = [Binding("escape,a", "close", "Close")]

    class Worked(Message):
        """What the worker has found so far: the roll's lines, or the best choices after `sims` simulations."""

        def __init__(self, roll: list[str] | None = None, best: list[Estimate] | None = None, sims: int = 0,
                     done: bool = False, note: str | None = None) -> None:
            super().__init__()
            self.roll, self.best, self.sims, self.done, self.note = roll, best, sims, done, note

    def __init__(self, view: dict[str, Any], content: Any, keys: list[str]) -> None:
        super().__init__()
        self.view = view
        self.content = content
        self.keys = keys
        self.sims = 0
        self.done = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="odds"):
            yield Static(f"The odds (step {self.view.get('step', 0)}, from what you can see)", classes="title")
            yield Static("Working out the dice...", id="odds-roll")
            yield Static("", id="odds-choices")
            yield Static("\na / escape  close", classes="dim")

    def on_mount(self) -> None:
        self.think()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def think(self) -> None:
        worker = get_current_worker()
        view = self.view
        self.post_message(self.Worked(roll=tui_mode(view["mode"]).odds(view, self.content)))
        if view.get("prompt") is None or view.get("outcome") is not None:
            self.post_message(self.Worked(done=True, note="Nobody is deciding anything now."))
            return
        search = SearchBot(ADVICE_SEED).begin(view, self.content)
        if not search.searchable:
            note = ("Only one way forward here." if len(search.options) < 2 else
                    "No win chances at this decision: the search looks ahead from a choice of action (and each step of a Run); "
                    "in the middle of a card or a fight the table it would replay is not in your view.")
            self.post_message(self.Worked(done=True, note=note))
            return
        shown = 0.0
        while not worker.is_cancelled and search.sims < MAX_SIMS:
            search.run(len(search.options))
            now = time.monotonic()
            if now - shown >= SHOW_EVERY or search.sims >= MAX_SIMS:
                shown = now
                self.post_message(self.Worked(best=search.estimates()[:BEST], sims=search.sims, done=search.sims >= MAX_SIMS))

    def on_odds_screen_worked(self, message: Worked) -> None:
        if message.roll is not None:
            self.query_one("#odds-roll", Static).update(lines_text(message.roll or ["No roll is being decided."]))
        if message.note is not None:
            self.query_one("#odds-choices", Static).update(lines_text(["", message.note]))
        if message.best is not None:
            self.sims, self.done = message.sims, message.done
            self.query_one("#odds-choices", Static).update(lines_text(self.chances(message.best, message.sims, message.done)))

    def chances(self, best: list[Estimate], sims: int, done: bool) -> list[str]:
        prompt = self.view["prompt"]
        labels, _ = shown_labels(prompt, self.view, 200)
        index = {command_key(o): n for n, o in enumerate(prompt["options"])}
        lines = ["", f"Win chances, the search bot's estimate ({sims} simulations{'' if done else ', thinking'}):"]
        for e in best:
            n = index.get(command_key({"command": e.command}), 0)
            key = self.keys[n] if n < len(self.keys) else " "
            label = labels[n] if n < len(labels) else e.label
            lines.append(f"  {key or ' '}  {percent(e.win):>4}  {label}" + ("  (its choice)" if e is best[0] else ""))
        return lines

    def action_close(self) -> None:
        self.workers.cancel_node(self)  # its own worker only (`workers` is the whole app's)
        self.dismiss(None)
