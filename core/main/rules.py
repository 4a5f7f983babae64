"""The main game's hooks for the façade: set-up, prompts, views and the canonical state."""

from __future__ import annotations

from typing import Any

from ..command import Command, Event, Option, Prompt
from ..errors import ContentError
from ..rng import Rng
from ..rules import Rules
from ..setup import Setup
from .content import MainContent
from .engine import Engine
from .prepared import Prepared
from .prompts import option_data
from .view import MainView
from .state import Figure, Investigator, MainState
from .view import build_view



def _main(content: Any) -> MainContent:
    if content is None:
        raise ContentError(["main/: no main-game content loaded"])
    part: MainContent = content.part("main")
    return part


def resolve_setup(setup: Setup, c: MainContent) -> tuple[str, str, list[str]]:
    """Fill in defaults and check the choices against the content."""
    episode = setup.one("episode") or min(c.episodes, key=lambda e: (c.episodes[e].difficulty, e))
    if episode not in c.episodes:
        raise ValueError(f"unknown episode {episode!r}; choose from {', '.join(sorted(c.episodes))}")
    if not c.elder_ones:
        raise ValueError("the content has no Elder One")
    elder = setup.one("elder_one") or c.rules.default_elder_one
    if elder not in c.elder_ones:
        raise ValueError(f"unknown Elder One {elder!r}; choose from {', '.join(sorted(c.elder_ones))}")
    investigators = setup.many("investigators") or sorted(c.investigators)[: max(c.rules.default_investigators, setup.players)]
    for iid in investigators:
        if iid not in c.investigators:
            raise ValueError(f"unknown investigator {iid!r}; choose from {', '.join(sorted(c.investigators))}")
    if len(set(investigators)) != len(investigators):
        raise ValueError("each investigator can sit at the table only once")
    if not 1 <= len(investigators) <= c.rules.seats_max:
        raise ValueError(f"play with 1 to {c.rules.seats_max} investigators")
    if setup.players == 1 and len(investigators) != 2:  # seed 001: "In a single-player game, choose 2 investigators"
        raise ValueError(f"a one-player game is played with exactly 2 investigators (you play both, taking turns), not {len(investigators)}")
    seated = {setup.seat_of(n) for n in range(len(investigators))}
    if len(seated) < setup.players:
        raise ValueError(f"every player needs an investigator: {setup.players} players, {len(investigators)} investigator(s) seated")
    return episode, elder, investigators


# (id(content), episode, Elder One) -> what every game of them shares (`Prepared`: plain copies of the
# content the engine reads, the map's adjacency, and a memo of what depends on the content alone: options'
# commands and labels, modifier sums). Nothing in it is handed out in a view. It keeps the content alive,
# so its id is never reused.
_PREPARED: dict[tuple[int, str, str], Prepared] = {}


def _prepared(c: MainContent, episode: str, elder_one: str) -> Prepared:
    key = (id(c), episode, elder_one)
    hit = _PREPARED.get(key)
    if hit is None or hit.content is not c:
        if len(_PREPARED) > 256:
            _PREPARED.clear()
        hit = _PREPARED[key] = Prepared(c, episode, elder_one)
    if len(hit.memo) > 8192:  # modifier sums of many hands of cards: start again rather than grow
        hit.memo.clear()
    return hit


_option = tuple.__new__  # an `Option` made without its Python-level __new__: one per option of every prompt


class MainRules(Rules):
    """Bound to one game's content when the state is made or restored (one instance per game)."""

    def __init__(self) -> None:
        self.c: MainContent | None = None
        self.prepared: Prepared | None = None
        # The engine of the last state asked about (a prompt, then its answer): made once, not per call.
        self._engine: Engine | None = None
        # This game's own: the parts its views share from step to step. Never shared between games,
        # so a view changed by whoever holds it (a test making a hostile host's view) spoils no other game.
        self.view_memo: dict[Any, Any] = {}

    @property
    def adj(self) -> dict[str, list[str]]:
        assert self.prepared is not None, "rules used before new_state/from_canonical"
        return self.prepared.adj

    def bind(self, content: Any, state: MainState) -> None:
        self.c = _main(content)
        self.prepared = _prepared(self.c, state.episode, state.elder_one)
        self._engine = None
        self.view_memo = {}

    def new_state(self, setup: Setup, content: Any) -> MainState:
        c = _main(content)
        episode, elder, ids = resolve_setup(setup, c)
        ep = c.episodes[episode]
        m = ep.map
        rng = Rng(setup.seed)
        invs = [
            Investigator(id=iid, seat=setup.seat_of(n), space=m.start, levels={sk: 1 for sk in c.investigators[iid].skills})
            for n, iid in enumerate(ids)
        ]
        # Secret draws all come from the hidden stream: insanity cards, then the two decks.
        insanity = sorted(c.insanity)
        rng.shuffle("hidden", insanity)
        for inv, card in zip(invs, insanity):
            inv.insanity = card
        mythos = [f"eo:{n}" for n in range(len(c.elder_ones[elder].mythos))] + [f"ep:{n}" for n in range(len(ep.mythos))]
        rng.shuffle("hidden", mythos)
        discovery = [str(n) for n in range(len(ep.discovery))]
        rng.shuffle("hidden", discovery)
        # Only the figures of this game's reference cards are set out; other monsters are not used.
        kinds = {"cultist", c.elder_ones[elder].minion, *ep.monsters, *(pl.enemy for pl in m.enemies)}
        reserve = {k: c.enemies[k].figures for k in sorted(kinds)}
        figures = []
        serial = 0
        for pl in m.enemies:
            if reserve[pl.enemy] > 0:
                reserve[pl.enemy] -= 1
                serial += 1
                figures.append(Figure(id=f"{pl.enemy}-{serial}", kind=pl.enemy, space=pl.space))
        fire = dict(sorted(m.fire.items()))
        fire_reserve = c.rules.fire_tokens - sum(fire.values())
        state = MainState(
            rng=rng,
            episode=episode,
            elder_one=elder,
            investigators=invs,
            figures=figures,
            reserve=reserve,
            fire=fire,
            fire_reserve=max(0, fire_reserve),
            wound_tokens=c.rules.wound_tokens,
            figure_serial=serial,
            mythos_deck=mythos,
            discovery_deck=discovery,
            space_tokens={sp: dict(sorted(t.items())) for sp, t in sorted(m.tokens.items())},
        )
        # A random starting player, from the hidden stream like every other secret draw.
        first = rng.below("hidden", len(invs))
        state.stack.append({"k": "turn", "inv": first})
        self.bind(content, state)
        return state

    def engine(self, state: MainState) -> Engine:
        engine = self._engine
        if engine is None or engine.s is not state:
            assert self.prepared is not None, "rules used before new_state/from_canonical"
            engine = self._engine = Engine(state, self.prepared)
        return engine

    def start(self, state: MainState) -> list[Event]:
        engine = self.engine(state)
        engine.events = []
        return engine.run()

    def prompt(self, state: MainState) -> Prompt | None:
        p = state.pending
        if p is None or state.result is not None:
            return None
        kind, engine = p["kind"], self.engine(state)
        new, option = _option, Option
        options = [new(option, (cmd, label, None)) for cmd, label in p["options"]]  # Option(cmd, label, None)
        return Prompt(p["seat"], kind, p["text"], options, 0, p["inv"], None, lambda cmd: option_data(engine, kind, cmd))

    def resolve(self, state: MainState, command: Command) -> list[Event]:
        return self.engine(state).answer(command)

    def view(self, state: MainState, seat: int | None) -> MainView:
        assert self.prepared is not None
        return build_view(state, self.prepared, seat, self.view_memo)

    def projection(self, state: MainState, seat: int | None) -> None:
        """Every seat, and a spectator, sees the same table (`build_view` does not look at the seat)."""
        return None

    def outcome(self, state: MainState) -> str | None:
        return state.result

    def cause(self, state: MainState) -> str | None:
        return state.cause

    def summoned(self, state: MainState) -> bool:
        return state.summoned

    def secret(self, state: MainState) -> tuple[tuple[str, ...], ...]:
        """The deck orders: a card leaving or joining a deck shows something (see `core.undo`)."""
        return tuple(state.mythos_deck), tuple(state.discovery_deck)

    def canonical(self, state: MainState) -> dict[str, Any]:
        return state.canonical()

    def hashed(self, state: MainState) -> dict[str, Any]:
        return state.canonical(fresh=False)

    def from_canonical(self, data: dict[str, Any], setup: Setup, content: Any) -> MainState:
        state = MainState.from_canonical(data)
        self.bind(content, state)
        return state
