"""The search bot: a determinized Monte Carlo search on top of a policy, from one seat's view.

Each simulation deals a *world* from the view (the mode's `Searchable.sample`: everything the
view shows, the hidden zones dealt from the search's own seeded stream), plays one of the
prompt's options in it, lets the policy play on for `horizon` turns, and takes the mode's
value of where that ends (`Searchable.value`: 1 or 0 once the game is over, else an
estimated chance of a win). Every option is tried in the same worlds with the same dice
(common random numbers), so the comparison between two options is not drowned by the luck
of the draw. The search keeps the policy's own choice unless another option does better in
those worlds by a margin that is both real (`MARGIN`) and beyond the noise (`Z` standard
errors of the paired differences), as SPARTA does on top of its blueprint in Hanabi.

It never reads a game's state: `begin` takes a view, so the true deck order, the seed and
other seats' secrets cannot reach a decision. A search is deterministic for its seed and
its number of simulations; no clock is read here. A thinking budget in seconds is the
caller's business: it runs simulations in batches (`Search.run`) and looks at its own clock
between them (`cthulhu.net.thinking`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import modes
from .command import Command
from .rng import Rng
from .undo import Untracked

if TYPE_CHECKING:
    from .basebots import Bot
    from .game import Game

DEFAULT_SIMS = 64  # simulations per decision when nobody says (the thinking budget is the caller's)
DEFAULT_SECONDS = 1.0  # a thinking budget's default, for callers that keep a clock
MARGIN = 0.01  # an option must beat the policy's choice by this much on average ...
Z = 2.0  # ... and by this many standard errors of the paired differences


@dataclass(frozen=True)
class Searchable:
    """What a mode declares so the search bot can play it (`Mode.search`).

    `sample(view, content, rng)` is a whole game consistent with the view, its hidden zones
    dealt from `rng` alone (None where the view does not pin the engine down: the policy
    decides there); `value(view)` is the chance of a win from a view; `policy(seed, content)`
    the bot that plays rollouts and the decisions that are not searched; `horizon` the turns
    a rollout plays before its value is taken."""

    sample: Callable[[Any, Any, Rng], Game | None]
    value: Callable[[Any], float]
    policy: Callable[[int, Any], Bot]
    horizon: int = 2


@dataclass(frozen=True, slots=True)
class Thinking:
    """A search bot's budget per decision: exactly `sims` simulations (the same game on any machine),
    else `seconds` of thinking, which only a caller with a clock can keep (`cthulhu.net.thinking`)."""

    sims: int | None = None
    seconds: float = DEFAULT_SECONDS

    def describe(self) -> str:
        return f"{self.sims} simulations a decision" if self.sims is not None else f"{self.seconds:g} s a decision"


@dataclass(frozen=True, slots=True)
class Estimate:
    """One option as the search sees it: its estimated chance of a win and the simulations behind it."""

    command: dict[str, Any]
    label: str
    win: float
    sims: int
    policy: bool  # the policy's own choice


class Search:
    """The thinking about one decision: `run` more simulations, read `best` and `estimates` at any time."""

    def __init__(self, view: Any, content: Any, seed: int) -> None:
        prompt = view.get("prompt")
        if not prompt or not prompt["options"] or view.get("outcome") is not None:
            raise ValueError("nothing to decide in this view")
        self.view = view
        self.content = content
        self.seed = seed
        self.seat: int = prompt["seat"]
        self.options = prompt["options"]
        hooks = modes.get(view["mode"]).search
        if hooks is None:
            raise ValueError(f"mode {view['mode']!r} declares nothing to search with (Mode.search)")
        self.hooks = hooks
        chosen = hooks.policy(seed, content).choose_view(view)
        self.prior = next((n for n, o in enumerate(self.options) if o["command"] == chosen), 0)
        self.values: list[list[float]] = [[] for _ in self.options]
        self._next = 0
        # One option, or a decision the view does not let us deal worlds for: the policy decides.
        self.searchable = len(self.options) > 1 and hooks.sample(view, content, Rng(self._world_seed(0))) is not None

    @property
    def sims(self) -> int:
        """Simulations run so far (one option played out in one world each)."""
        return self._next

    @property
    def worlds(self) -> int:
        """Worlds in which every option has been played out."""
        return min(len(v) for v in self.values)

    def _world_seed(self, world: int) -> int:
        return Rng(self.seed).next64(f"world:{self.view['step']}:{world}") >> 2

    def run(self, n: int) -> "Search":
        """`n` more simulations (none when the decision cannot be searched)."""
        if not self.searchable:
            return self
        for _ in range(n):
            world, option = divmod(self._next, len(self.options))
            self.values[option].append(self._simulate(world, option))
            self._next += 1
        return self

    def _simulate(self, world: int, option: int) -> float:
        seed = self._world_seed(world)
        game = self.hooks.sample(self.view, self.content, Rng(seed))
        assert game is not None, "a view that gave one world gives every world"
        game.history = Untracked()
        game.apply(self.seat, Command.from_wire(self.options[option]["command"]))
        until = game.turn + self.hooks.horizon
        bots: dict[int, Bot] = {}
        while game.outcome is None and game.turn < until:
            prompt = game.prompt
            assert prompt is not None, "a running game always waits for someone"
            bot = bots.get(prompt.seat) or bots.setdefault(prompt.seat, self.hooks.policy(seed + prompt.seat, self.content))
            game.apply(prompt.seat, bot.choose(game, prompt.seat))
        return self.hooks.value(game.view(None))

    def _mean(self, option: int) -> float:
        worlds = self.worlds
        return sum(self.values[option][:worlds]) / worlds if worlds else 0.0

    def best(self) -> dict[str, Any]:
        """The choice so far: the policy's, unless another option beat it clearly in the same worlds."""
        worlds = self.worlds
        pick = self.prior
        if worlds >= 2:
            base = self.values[self.prior][:worlds]
            margin = 0.0
            for n, vals in enumerate(self.values):
                if n == self.prior:
                    continue
                diffs = [a - b for a, b in zip(vals[:worlds], base)]
                mean = sum(diffs) / worlds
                spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (worlds - 1) / worlds)
                if mean > MARGIN and mean > Z * spread and mean > margin:
                    pick, margin = n, mean
        command: dict[str, Any] = self.options[pick]["command"]
        return command

    def estimates(self) -> list[Estimate]:
        """Every option with its estimated chance of a win, the best first (none before a whole world is done)."""
        worlds = self.worlds
        if not self.searchable or not worlds:
            return []
        best = self.best()
        out = [Estimate(o["command"], o["label"], self._mean(n), worlds, n == self.prior) for n, o in enumerate(self.options)]
        return sorted(out, key=lambda e: (e.command != best, -e.win, not e.policy))


class SearchBot:
    """The `search` bot kind: `sims` simulations per decision unless its caller thinks for it (`begin`)."""

    def __init__(self, seed: int, sims: int = DEFAULT_SIMS) -> None:
        self.seed = seed
        self.sims = sims

    def begin(self, view: Any, content: Any = None) -> Search:
        """Start thinking about the decision in `view` (a seat's view with its prompt)."""
        if content is None:
            from cthulhu.content import builtin

            content = builtin()
        return Search(view, content, self.seed)

    def choose(self, game: "Game", seat: int) -> Command:
        prompt = game.prompt
        if prompt is None or prompt.seat != seat or game.outcome is not None:
            raise ValueError(f"seat {seat} has nothing to decide")
        return Command.from_wire(self.begin(game.view(seat), game.content).run(self.sims).best())

    def choose_view(self, view: Any) -> dict[str, Any]:
        return self.begin(view).run(self.sims).best()


def choose(bot: "Bot", game: "Game", seat: int, sims: int | None = None) -> Command:
    """A bot's command for `seat`; a search bot's after `sims` simulations (its own number when None)."""
    if isinstance(bot, SearchBot) and sims is not None:
        return Command.from_wire(bot.begin(game.view(seat), game.content).run(sims).best())
    return bot.choose(game, seat)
