"""A tiny third game mode, added by files only: it registers itself and everything works.

It has what the network must get right: a hidden shuffled deck (the secret),
private hands (each seat sees its own cards, others only counts), several
seats taking turns, and an end. It plugs into the real `Game` façade through
the mode registry, exactly as the built-in modes do, and declares what the
command line and the title screen offer for it: a set-up choice (`goal`: how
many cards to play) and a second bot (`hoarder`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from typing_extensions import NotRequired, TypedDict

from cthulhu.core import Command, Event, Game, Mode, Option, Prompt, PromptWire, Rules, Setup, modes
from cthulhu.core.bots import ViewBot
from cthulhu.core.choices import Choice, SetupOption
from cthulhu.core.rng import Rng

CARDS = [f"card-{i:02d}" for i in range(24)]
GOALS = {"long": 8, "short": 4}  # cards to play to win, by the `goal` set-up choice


class Dealt(TypedDict):
    type: Literal["dealt"]
    cards: int


class Drew(TypedDict):
    type: Literal["drew"]
    seat: int


class Rolled(TypedDict):
    type: Literal["rolled"]
    seat: int
    face: int


class Played(TypedDict):
    type: Literal["played"]
    seat: int
    card: str


ToyEvent = Dealt | Drew | Rolled | Played


class NoData(TypedDict):
    """The toy's options need nothing beyond their command."""


class HandView(TypedDict):
    seat: int
    count: int
    cards: NotRequired[list[str]]  # only in the view of the seat holding them


class DeckView(TypedDict):
    size: int


class ToyView(TypedDict):
    mode: Literal["toy"]
    deck: DeckView
    played: list[str]
    score: int
    goal: int
    turn: int
    hands: list[HandView]
    step: int
    outcome: str | None
    prompt: PromptWire | None


@dataclass(slots=True)
class ToyState:
    setup: Setup
    rng: Rng
    deck: list[str]
    hands: list[list[str]]
    played: list[str] = field(default_factory=list)
    turn: int = 0
    score: int = 0


class ToyRules(Rules):
    """Each turn the seat to move draws or plays a card; play 8 cards before the deck runs out."""

    def new_state(self, setup: Setup, content: Any) -> ToyState:
        rng = Rng(setup.seed)
        deck = list(CARDS)
        rng.shuffle("deck", deck)
        return ToyState(setup, rng, deck, [[] for _ in range(setup.players)])

    def start(self, state: ToyState) -> list[Event]:
        for hand in state.hands:
            hand.append(state.deck.pop())
        return [Event.of(Dealt(type="dealt", cards=len(state.hands)))]

    def _seat(self, state: ToyState) -> int:
        return state.turn % state.setup.players

    def prompt(self, state: ToyState) -> Prompt | None:
        if self.outcome(state) is not None:
            return None
        seat = self._seat(state)
        options = [Option(Command.of("draw"), "Draw a card")] if state.deck else []
        options += [Option(Command.of("play", card=c), f"Play {c}") for c in sorted(state.hands[seat])]
        if not options:
            options = [Option(Command.of("pass"), "Pass")]
        return Prompt(seat=seat, kind="turn", text=f"Seat {seat}: draw or play", options=options)

    def resolve(self, state: ToyState, command: Command) -> list[Event]:
        seat = self._seat(state)
        events: list[Event] = []
        if command.kind == "draw":
            state.hands[seat].append(state.deck.pop())
            events.append(Event.of(Drew(type="drew", seat=seat)))
            if state.rng.below("dice", 6) == 0:
                events.append(Event.of(Rolled(type="rolled", seat=seat, face=1)))
        elif command.kind == "play":
            state.hands[seat].remove(command["card"])
            state.played.append(command["card"])
            state.score += 1
            events.append(Event.of(Played(type="played", seat=seat, card=command["card"])))
        state.turn += 1
        return events

    def outcome(self, state: ToyState) -> str | None:
        if state.score >= GOALS[state.setup.one("goal") or "long"]:
            return "won"
        if not state.deck and all(not h for h in state.hands) or state.turn >= 60:
            return "lost"
        return None

    def secret(self, state: ToyState) -> tuple[str, ...]:
        """The deck's order: a draw shows a card, so nothing before it can be taken back."""
        return tuple(state.deck)

    def view(self, state: ToyState, seat: int | None) -> ToyView:
        return {
            "mode": "toy",
            "deck": {"size": len(state.deck)},
            "played": list(state.played),
            "score": state.score,
            "goal": GOALS[state.setup.one("goal") or "long"],
            "turn": state.turn,
            "hands": [
                {"seat": i, "count": len(h), **({"cards": sorted(h)} if i == seat else {})}  # type: ignore[typeddict-item]
                for i, h in enumerate(state.hands)
            ],
            "step": 0,
            "outcome": None,
            "prompt": None,
        }

    def canonical(self, state: ToyState) -> dict[str, Any]:
        return {
            "rng": state.rng.canonical(),
            "deck": list(state.deck),
            "hands": [list(h) for h in state.hands],
            "played": list(state.played),
            "turn": state.turn,
            "score": state.score,
        }

    def from_canonical(self, data: dict[str, Any], setup: Setup, content: Any) -> ToyState:
        return ToyState(setup, Rng.from_canonical(data["rng"]), list(data["deck"]), [list(h) for h in data["hands"]],
                        list(data["played"]), data["turn"], data["score"])


class ToyHeuristic(ViewBot):
    """Plays a card whenever it holds one, else takes the first option."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def choose_view(self, view: dict[str, Any]) -> dict[str, Any]:
        commands = [o["command"] for o in view["prompt"]["options"]]
        return next((c for c in commands if c["kind"] == "play"), commands[0])


class ToyHoarder(ViewBot):
    """Draws while there is a deck, and only then plays."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def choose_view(self, view: dict[str, Any]) -> dict[str, Any]:
        commands = [o["command"] for o in view["prompt"]["options"]]
        return next((c for c in commands if c["kind"] == "draw"), commands[0])


def scramble(state: ToyState) -> None:
    state.deck.reverse()
    state.rng.seed ^= 0x5EC12E7


GOAL = SetupOption(
    "goal", "Goal", "goal", "goals", "how many cards to play to win",
    lambda content: [Choice("long", "Long game", "play 8 cards"), Choice("short", "Short game", "play 4 cards")],
    lambda content: ["long"],
)

MODE = modes.register(Mode(name="toy", title="Toy", rules=ToyRules, view=ToyView, events=ToyEvent, prompts={"turn": NoData}, scramble=scramble,
                           bots={"heuristic": ToyHeuristic, "hoarder": ToyHoarder}, options=(GOAL,)))


def toy_game(seed: int = 1, players: int = 4) -> Game:
    return Game.new(Setup(mode="toy", seed=seed, players=players))
