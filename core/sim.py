"""Whole games played by bots: the simulator, the benches and the property tests share this."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .bots import Bot, make_bot
from .command import Command, Event
from .game import Game
from .search import choose
from .setup import Setup


@dataclass(slots=True)
class Played:
    seed: int
    outcome: str  # "won", "lost" or "turn_limit"
    commands: int
    turns: int
    final_hash: str
    cause: str | None
    summoned: bool = False
    coverage: dict[str, int] = field(default_factory=dict)


def game_seed(base: int, index: int) -> int:
    """Seeds for a batch: distinct, reproducible, and independent of batch size."""
    return (base * 1_000_003 + index) % (2**63)


def play(
    setup: Setup,
    bot: str = "random",
    turn_limit: int = 200,
    content: Any = None,
    on_events: Callable[[int, list[Event]], None] | None = None,
    coverage: bool = False,
    sims: int | None = None,
    decide: Callable[[Bot, Game, int], Command] | None = None,
) -> Played:
    """Play one game to its end (or the turn limit) with one bot per seat.

    With `coverage`, `Played.coverage` counts the content entries the game used
    ("mythos:<name>", "discovery:<name>", ...; see `coverage_key`). Search bots think
    for `sims` simulations a decision, or as `decide(bot, game, seat)` has them
    (a time budget, kept by the caller: `cthulhu.net.thinking`)."""
    game = Game.new(setup, content)
    bots: dict[int, Bot] = {}
    used: Counter[str] = Counter()
    if coverage:
        inner = on_events

        def on_events(step: int, events: list[Event]) -> None:
            count_coverage(used, events)
            if inner is not None:
                inner(step, events)

    if on_events is not None:
        on_events(0, game.start_events)
    while game.outcome is None and game.turn <= turn_limit:
        prompt = game.prompt
        assert prompt is not None, "a running game always waits for someone"
        chooser = bots.get(prompt.seat)
        if chooser is None:
            chooser = bots[prompt.seat] = make_bot(bot, setup.mode, game_seed(setup.seed, prompt.seat + 1))
        command = decide(chooser, game, prompt.seat) if decide is not None else choose(chooser, game, prompt.seat, sims)
        events = game.apply(prompt.seat, command)
        if on_events is not None:
            on_events(game.step, events)
    return Played(
        seed=setup.seed,
        outcome=game.outcome or "turn_limit",
        commands=game.step,
        turns=game.turn,
        final_hash=game.state_hash(),
        cause=game.rules.cause(game.state),
        summoned=game.rules.summoned(game.state),
        coverage=dict(used),
    )


# ---------------------------------------------------------------------- content coverage

# What the coverage counts, by the event that shows an entry was used.
COVERAGE_KINDS = ("mythos", "discovery", "episode_action", "insanity", "enemy_ability")


def coverage_key(event: Event) -> str | None:
    """The content entry an event shows in use, as "<kind>:<name>", or None."""
    t = event.type
    if t == "mythos_drawn":
        return f"mythos:{event['card']}"
    if t == "discovery_drawn":
        return f"discovery:{event['card']}"
    if t == "action_taken":
        action = event.get("episode_action")
        return None if action is None else f"episode_action:{action}"
    if t == "insanity_activated":
        return f"insanity:{event['card']}"
    if t == "ability_used":
        return f"enemy_ability:{event['kind']}:{event['ability']}"
    return None


def count_coverage(used: Counter[str], events: list[Event]) -> None:
    for e in events:
        key = coverage_key(e)
        if key is not None:
            used[key] += 1


def coverage_entries(main: Any, episode: str, elder_one: str) -> dict[str, list[str]]:
    """Every entry a game of this Elder One and episode can use, by kind, in content order."""
    ep = main.episodes[episode]
    eo = main.elder_ones[elder_one]
    kinds = ["cultist", eo.minion, *ep.monsters, *(pl.enemy for pl in ep.map.enemies)]
    abilities = []
    for k in dict.fromkeys(kinds):
        ability = main.enemies[k].ability
        if ability is not None:
            abilities.append(f"{k}:{ability.kind}")
    return {
        "mythos": [m.name for m in [*eo.mythos, *ep.mythos]],
        "discovery": [d.name for d in ep.discovery],
        "episode_action": [a.name for a in ep.actions],
        "insanity": [c.name for c in main.insanity.values()],
        "enemy_ability": abilities,
    }


def coverage_report(used: Counter[str] | dict[str, int], entries: dict[str, list[str]]) -> dict[str, Any]:
    """Counts for every entry (zeros included) and the entries never used, as "<kind>:<name>"."""
    out: dict[str, Any] = {}
    unused: list[str] = []
    for kind in COVERAGE_KINDS:
        counts = {name: used.get(f"{kind}:{name}", 0) for name in entries.get(kind, [])}
        out[kind] = counts
        unused.extend(f"{kind}:{name}" for name, n in counts.items() if not n)
    out["unused"] = unused
    return out
