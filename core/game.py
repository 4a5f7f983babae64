"""The façade every caller uses: tests, bots, the host, the TUI and the tools.

Modes plug in through the hooks of `core.rules.Rules` (main game, Shamblers); the
façade owns what is common to them: seats, prompt versions, rejection before
mutation, the step counter and the state hash.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, cast

from . import modes
from .canon import digest
from .command import Command, Event, Prompt
from .errors import GameOver, IllegalCommand, NotYourDecision, Rejected, StalePrompt
from .rules import Rules
from .setup import Setup
from .undo import History


class Game:
    """One game: apply legal commands, read per-seat views, hash the state."""

    __slots__ = ("setup", "content", "rules", "state", "step", "history", "_start_events", "_asked", "_setup_dump")

    def __init__(self, setup: Setup, content: Any, rules: Rules, state: Any, step: int = 0) -> None:
        self.setup = setup
        self.content = content
        self.rules = rules
        self.state = state
        self.step = step
        self.history = History(step)
        self._start_events: list[Event] = []
        # The prompt of this step, asked of the rules once: (step, state, prompt). See `prompt`.
        self._asked: tuple[int, Any, Prompt | None] | None = None
        self._setup_dump: tuple[Setup, dict[str, Any]] | None = None  # see `_setup_data`

    @classmethod
    def new(cls, setup: Setup, content: Any = None) -> "Game":
        if content is None:
            from cthulhu.content import builtin

            content = builtin()
        rules = modes.get(setup.mode).rules()
        state = rules.new_state(setup, content)
        game = cls(setup, content, rules, state)
        game._start_events = rules.start(state)
        return game

    @property
    def start_events(self) -> list[Event]:
        """Events of the setup itself (dealing, placing figures), before any command."""
        return list(self._start_events)

    @property
    def prompt(self) -> Prompt | None:
        """The decision waited for. Asked of the rules once per step (the loop, the bot and
        `apply` all read it); whoever changes the state by hand calls `rearranged`."""
        asked = self._asked
        if asked is not None and asked[0] == self.step and asked[1] is self.state:
            return asked[2]
        prompt = self.rules.prompt(self.state)
        if prompt is not None:
            prompt.version = self.step
        self._asked = (self.step, self.state, prompt)
        return prompt

    def rearranged(self) -> None:
        """The state was changed outside `apply` (a test arranging the table): forget the
        prompt worked out for it, and let nothing before now be taken back."""
        self._asked = None
        self.history.reset(self.step)

    @property
    def outcome(self) -> str | None:
        return self.rules.outcome(self.state)

    @property
    def turn(self) -> int:
        """The number of the turn under way (`Mode.turn`); in a mode that declares no turns, each
        decision is one (the step)."""
        turn = modes.get(self.setup.mode).turn
        return self.step if turn is None else turn(self.state)[0]

    def legal(self, seat: int) -> list[Command]:
        prompt = self.prompt
        if prompt is None or prompt.seat != seat or self.outcome is not None:
            return []
        return [o.command for o in prompt.options]

    def apply(self, seat: int, command: Command, version: int | None = None) -> list[Event]:
        """Apply one legal command, or raise `Rejected` and change nothing."""
        if self.outcome is not None:
            raise GameOver(f"the game is over ({self.outcome})")
        prompt = self.prompt
        if prompt is None:
            raise IllegalCommand("nothing is being decided right now")
        if version is not None and version != prompt.version:
            raise StalePrompt(f"that answers an earlier question (version {version}, now {prompt.version})")
        if seat != prompt.seat:
            raise NotYourDecision(f"seat {prompt.seat} is deciding: {prompt.text}")
        option = prompt.find(command)
        if option is None:
            raise IllegalCommand(f"{command} is not one of the choices: {prompt.text}")
        before = self.history.before(self)
        events = self.rules.resolve(self.state, command)
        self.step += 1
        self.history.after(self, seat, command, option.label, before)
        return events

    def undo_horizon(self, seat: int) -> int:
        """How many of `seat`'s own decisions it may take back now: never across a reveal or another seat."""
        return self.history.horizon(self, seat)

    def seal_undo(self, why: str) -> None:
        """Nothing decided so far may be taken back. The host's call, for what the rules cannot see:
        a stand-in bot decided for an away player, who must not take its choices back on return."""
        self.history.seal(self.step, why)

    def undo_refusal(self, seat: int, count: int = 1, version: int | None = None) -> Rejected | None:
        """What `undo` would raise, built without touching anything (None: it would take back)."""
        if version is not None and version != self.step:
            return StalePrompt(f"that answers an earlier question (version {version}, now {self.step})")
        return self.history.refusal(self, seat, count)

    def undo(self, seat: int, count: int = 1, version: int | None = None) -> list[Event]:
        """Take back `seat`'s last `count` decisions, or raise `CannotUndo` (a `Rejected`) and change nothing."""
        refusal = self.undo_refusal(seat, count, version)
        if refusal is not None:
            raise refusal
        return self.history.undo(self, seat, count)

    def view(self, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator). Never deck orders or the seed."""
        view = cast(dict[str, Any], self.rules.view(self.state, seat))  # a fresh dict, ours to fill in
        prompt = self.prompt
        view["step"] = self.step
        view["outcome"] = self.outcome
        view["prompt"] = None
        if prompt is not None and self.outcome is None:
            view["prompt"] = prompt.wire()
            view["prompt"]["undo"] = self.history.horizon(self, prompt.seat)
        return view

    def projection(self, seat: int | None) -> Hashable:
        """Equal for seats that see the same view now (the mode's `Rules.projection`)."""
        return self.rules.projection(self.state, seat)

    def canonical(self) -> dict[str, Any]:
        """The full state, secrets included: for hashing and snapshots, never for peers."""
        return {"step": self.step, "setup": self.setup.model_dump(mode="json"), "state": self.rules.canonical(self.state)}

    def state_hash(self) -> str:
        """`digest(self.canonical())`, without copying the state to get it (`Rules.hashed`)."""
        return digest({"step": self.step, "setup": self._setup_data(), "state": self.rules.hashed(self.state)})

    def _setup_data(self) -> dict[str, Any]:
        """The set-up as plain data, dumped once per `Setup` (it is frozen)."""
        dumped = self._setup_dump
        if dumped is None or dumped[0] is not self.setup:
            dumped = self._setup_dump = (self.setup, self.setup.model_dump(mode="json"))
        return dumped[1]

    @classmethod
    def from_canonical(cls, data: dict[str, Any], content: Any) -> "Game":
        setup = Setup.model_validate(data["setup"])
        rules = modes.get(setup.mode).rules()
        state = rules.from_canonical(data["state"], setup, content)
        return cls(setup, content, rules, state, step=int(data["step"]))


def script_dice(game: Game, *faces: Any) -> None:
    """Queue die faces for the next rolls (tests and worked examples only)."""
    rng = game.rules.rng(game.state)
    if rng is None:
        raise ValueError(f"mode {game.setup.mode!r} rolls no dice")
    rng.scripted.extend(faces)
