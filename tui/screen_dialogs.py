"""Modal screens: help, quit, a long list of choices, the end of the game, a terminal too small."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cthulhu.net.textclean import clean_text

from .dice import LEGEND
from .options import MIN_SIZE, OPTION_KEYS
from .safe import plain, safe_text

HELP_KEYS = """\
Keys
  1-9, a, b ...  pick an option from the prompt bar
  o              the options as a list (arrows, Enter)
  u or ctrl+z    take back your last choice (never past a roll or a card)
  tab            next side pane (small terminals)
  s              save now (also saved after every move)
  c              chat with the table (networked games)
  L              the table: code, who sits where, open seats
  q              save and quit (asks first)
  ctrl+q         quit at once
  ? or f1        this help      ctrl+p  command palette
  escape         close a dialog
"""

HELP_RULES = [
    ("", "Investigators share one table against a waking Elder One. On your turn:"),
    ("1. ", "Take three actions: Run (move up to 3 spaces; every enemy in the space you leave "
     "follows you), Attack the enemies in your space, Rest (heal 3 wounds or stress, only where "
     "no enemy stands), Trade, or the episode's own two actions. An action may be repeated."),
    ("2. ", "Draw a Mythos card: it may summon enemies through the gates."),
    ("3. ", "Investigate if your space is safe (draw a Discovery card); otherwise every enemy "
     "there attacks you, in the order you pick."),
    ("4. ", "End of turn: Fire burns, and enough summoning symbols in the Mythos discard move "
     "the Elder One along the summoning track."),
    ("", ""),
    ("", "Dice: 3 standard dice plus your bonus dice. Successes hurt; each tentacle costs 1 "
     "sanity. After any roll you may take 1 stress to reroll one die of your choice, again "
     "and again, until your stress is full."),
    ("", ""),
    ("", "Sanity climbs toward the skull. Each threshold stops the loss there and lets you "
     "level up a skill; reaching the skull kills you, and so do wounds up to your health."),
    ("", ""),
    ("", "Win by disrupting the ritual and defeating the Elder One's final stage. Lose if "
     "anyone dies before the Elder One is summoned, if everyone dies after, or if its token "
     "reaches the end of the summoning track."),
]


def shamblers_rules(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    """The Shamblers summary with the numbers of the level being played (`shamblers_numbers`)."""
    return [
        ("", f"Shamblers ({numbers['level']}): banish the Great Old One's minions from a ring of five Town Cards. "
         "On your turn:"),
        ("1. ", f"The Wheel turns to a random Town Card: {numbers['draw']} Madness Tentacles come out of the bag "
         "onto it, and the next Shambler lands two cards clockwise from it."),
        ("2. ", f"Take {numbers['actions']} actions: Move to a neighbouring card, Gather a tentacle from your card "
         "onto your Player Mat (a full track costs 1 Delirium instead), or Banish."),
        ("3. ", "Feed: every card with Shamblers loses one of its Madness Tentacles per Shambler to the "
         "Shambler Mat."),
        ("", ""),
        ("", "Banish: roll one Cthulhu Die per Shambler on your card. The highest single die (never the "
         "sum) is the cost, paid in tentacles of the banished Shambler's color; up to two Chaos "
         "Tentacles may stand in. Then the Shambler goes to the Shambler Mat and 1, 2 or 3 tentacles "
         "of its color leave the Shambler Mat, for 0, 1 or 2 Rage Tentacles you held when you began."),
        ("", ""),
        ("", f"Win at once with {numbers['win']} Shamblers of every color on the Shambler Mat. Lose at once "
         f"when a Shambler is due and none are left, when the Shambler Mat holds {numbers['loss']} tentacles "
         "of one color, or when anyone's Delirium fills."),
    ]


def shamblers_numbers(view: dict[str, Any] | None, content: Any = None, difficulty: str | None = None) -> dict[str, Any]:
    """The numbers the summary quotes: from the game's view, else from the content's level."""
    goals = (view or {}).get("goals")
    if goals and "wheel_draw" in (view or {}):
        return {"level": (view.get("difficulty") or {}).get("name", ""), "draw": view["wheel_draw"],
                "actions": view["actions_per_turn"], "win": goals["win_per_color"], "loss": goals["loss_mat_tentacles"]}
    cfg = content.shamblers.at(difficulty)
    return {"level": cfg.level.name, "draw": cfg.wheel_draw, "actions": cfg.actions_per_turn,
            "win": cfg.win_per_color, "loss": cfg.loss_mat_tentacles}


def help_text(width: int = 62, mode: str = "main", numbers: dict[str, Any] | None = None) -> str:
    """Keys and the rules of the mode being played in brief, wrapped to the dialog.
    Shamblers needs the `numbers` of its level (`shamblers_numbers`)."""
    import textwrap

    if mode == "shamblers" and numbers is None:
        from cthulhu.content import builtin

        numbers = shamblers_numbers(None, builtin())
    lines = [HELP_KEYS, "The game in brief (in our own words)"]
    for bullet, para in shamblers_rules(numbers) if mode == "shamblers" else HELP_RULES:
        if not para:
            lines.append("")
            continue
        lines.extend(textwrap.wrap(para, width, initial_indent="  " + bullet, subsequent_indent="  " + " " * len(bullet)))
    return "\n".join(lines) + "\n\n" + LEGEND



class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close")]

    def __init__(self, mode: str = "main", numbers: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.mode = mode
        self.numbers = numbers

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Help", classes="title")
            with VerticalScroll(id="help-body"):
                yield Static(help_text(mode=self.mode, numbers=self.numbers))

    def action_dismiss(self) -> None:
        self.dismiss(None)


class QuitScreen(ModalScreen[str]):
    """Dismisses with 'save' (save and quit), 'quit' (quit without a final save) or 'stay'."""

    BINDINGS = [
        Binding("y,enter,s", "choose('save')", "Save and quit"),
        Binding("n", "choose('quit')", "Quit, no save"),
        Binding("escape", "choose('stay')", "Keep playing"),
    ]

    def __init__(self, where: str | None) -> None:
        super().__init__()
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Quit the game?", classes="title")
            if self.where:
                yield Static(Text(f"The game is saved after every move, in\n{clean_text(self.where)}\nLoad it later with: cthulhu play --load FILE\n"))
            else:
                yield Static("Saves are not available here; quitting ends this game.\n")
            yield Static("y / Enter  save and quit\nn          quit without a final save\nescape     keep playing")

    def action_choose(self, what: str) -> None:
        self.dismiss(what)


class ChoiceScreen(ModalScreen[int | None]):
    """All options as a list: arrows and Enter, or the same keys as the prompt bar."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, text: str, labels: list[str]) -> None:
        super().__init__()
        self.text = text
        self.labels = labels

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(plain(self.text), classes="title")
            yield OptionList(
                *[Option(plain(f"{OPTION_KEYS[n] if n < len(OPTION_KEYS) else ' '}  {label}"), id=str(n)) for n, label in enumerate(self.labels)]
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def on_key(self, event) -> None:
        key = event.character or ""
        if key and key in OPTION_KEYS and OPTION_KEYS.index(key) < len(self.labels):
            event.stop()
            self.dismiss(OPTION_KEYS.index(key))

    def action_cancel(self) -> None:
        self.dismiss(None)


def summary_text(view: dict[str, Any]) -> Text:
    """Outcome, turns played, and what happened to each investigator."""
    outcome = view.get("outcome") or "unfinished"
    out = Text("Victory!" if outcome == "won" else ("Defeat." if outcome == "lost" else str(outcome).title()), style="bold")
    cause = view.get("cause")
    if cause:
        out.append("\n" + str(cause).replace("_", " ").capitalize() + ".")
    out.append(f"\n\nTurns played: {view.get('turn', '?')}    Steps: {view.get('step', '?')}\n")
    if view.get("mode") == "shamblers":
        from .render_shamblers import summary

        out.append_text(summary(view))
    for inv in view.get("investigators") or []:
        if inv.get("alive", True):
            out.append(f"\n{inv.get('name')}: survived ({inv.get('wounds', 0)}/{inv.get('health', 0)} wounds, sanity {inv.get('sanity', 0)}/{inv.get('skull', 0)})")
        else:
            out.append(f"\n{inv.get('name')}: died ({str(inv.get('cause') or 'unknown').replace('_', ' ')})", style="red")
    return out


class GameOverScreen(ModalScreen[str]):
    """Dismisses with 'new', 'quit' or 'board' (look at the final table)."""

    BINDINGS = [
        Binding("n", "choose('new')", "New game"),
        Binding("q", "choose('quit')", "Quit"),
        Binding("escape,enter", "choose('board')", "See the board"),
    ]

    def __init__(self, view: dict[str, Any], seed: int | None, dice: str | None = None) -> None:
        super().__init__()
        self.view = view
        self.seed = seed
        self.dice = dice

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("The game is over", classes="title")
            body = summary_text(self.view)
            if self.seed is not None:
                body.append(f"\n\nSeed {self.seed}: replay it with cthulhu play --seed {self.seed}", style="dim")
            yield Static(safe_text(body), id="summary")
            yield Static(plain(self.dice or ""), id="dice")
            yield Static("\nn  new game     q  quit     Enter / escape  see the board")

    def show_dice(self, text: str) -> None:
        """The peer's own check of every roll, once it is done (networked games)."""
        self.dice = text
        self.query_one("#dice", Static).update(plain(text))  # names what the host sent: never markup

    def action_choose(self, what: str) -> None:
        self.dismiss(what)


class TooSmallScreen(Screen[None]):
    """Shown instead of a garbled table while the terminal is below the minimum size."""

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")

    def on_mount(self) -> None:
        self.on_resize()

    def on_resize(self, event: Any = None) -> None:
        w, h = self.app.size
        self.query_one("#too-small", Static).update(
            f"cthulhu needs a terminal of at least {MIN_SIZE[0]}x{MIN_SIZE[1]};\nthis one is {w}x{h}. Please make it larger.\n\n(ctrl+q quits)"
        )
