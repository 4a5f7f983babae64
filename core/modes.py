"""The one registry of game modes: a name -> its rules, view type, events, prompts, content and bots.

A mode is a package that declares a module-level `MODE` (a `Mode`), the way a
python-chess variant is a class that overrides a few declared hooks and carries
its name. The built-in modes are found by looking for sub-packages of
`cthulhu.core` that declare one, so adding a mode is adding files; tests and
plug-ins may `register` more. Nothing outside this registry asks which mode it
is playing: it asks the mode.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, cast

from pydantic import ConfigDict, Field, TypeAdapter

from .basebots import Bot, RandomBot
from .choices import SetupOption
from .registry import Registry

if TYPE_CHECKING:
    from .game import Game
    from .luck import LuckKeeper
    from .rules import Rules
    from .search import Searchable
    from .setup import Setup


def _strict_list(item: Any) -> TypeAdapter[Any]:
    """A validator of one-item lists of `item` (a TypedDict tree, built at run time), strict and closed.

    Pydantic takes a config for a whole tree of TypedDicts only around them: hence the list."""
    return TypeAdapter(cast(Any, list)[item], config=ConfigDict(extra="forbid", strict=True))


@dataclass(frozen=True)
class Mode:
    """What a mode declares. Only `name`, `title`, `rules` and `view` are required.

    `view` is the `TypedDict` of `Game.view` for this mode (tests validate every view
    against it); `events` is the union of its events' `TypedDict`s, each tagged by
    its `type`; `prompts` maps each prompt kind to the `TypedDict` of its options'
    `data`. `content` loads the mode's folder of the content tree (`<name>/`),
    already parsed from TOML. `bots` maps a bot kind to a factory taking the bot's
    seed ("random" is added for every mode).
    `summary` gives the public facts a save listing shows, from a spectator view.
    `coverage` lists the content entries a game of this setup can use (for `sim`).
    `scramble` changes, in place, everything of a state that no seat may see (deck
    orders, the bag, the RNG): the conformance suite checks no view changes with it.
    `options` declares the set-up choices the mode reads (`core.choices.SetupOption`): the
    command line's flags, the title screen's rows and the listings are made from them, and
    a `Setup` may name no other. Each option's values come from the mode's loaded content.
    `describe` sums up the mode's loaded content in one line (`cthulhu content check`).
    `search` is what the search bot needs to play the mode (`core.search.Searchable`: worlds
    dealt from a view, the value of a view, the policy it searches on top of).
    `characters` names, from any seat's view, what each seat plays (its investigators, its
    Player Mat): people are told seats by these names, never by a bare number (`playing`).
    `endings` says each way a game ends (the `cause` code of its view) in a sentence for people:
    the game-over summary and `sim`'s text both read it. A sentence may name `{elder}`, the Elder
    One of the game (or "the Elder One" where no one game is meant).
    `skips` are the command kinds that pass a decision over without doing anything (end the
    actions, decline, stop): a turn-based table whose `skip` policy finds one among a prompt's
    legal options plays it when the clock runs out (the engine still decides it is legal).
    `turn` tells, from the rules' state, the game's turn under way: `(number, seat)`, the number
    changing whenever the next turn begins (one investigator's or Player Mat's whole turn: its
    actions, Mythos, Investigate/Fight and end of turn) and the seat whose turn it is. A turn-based
    table's stand-in plays a timed-out seat's decisions until the number changes, and counts
    missed turns and rounds by it. None (the default): each decision is a turn of its own.
    `luck` makes, from a game at its start, the keeper of its luck report (`core.luck.LuckKeeper`):
    shown every step's events, it sets each player's dice against their exact odds. None: no report.
    """

    name: str
    title: str
    rules: Callable[[], Rules]
    view: Any
    events: Any = None
    prompts: Mapping[str, Any] = field(default_factory=dict)
    content: Callable[[dict[str, dict[str, Any]]], Any] | None = None
    bots: Mapping[str, Callable[[int], Bot]] = field(default_factory=dict)
    summary: Callable[[Game], dict[str, str | int | bool | None]] | None = None
    coverage: Callable[[Any, Setup], dict[str, list[str]] | None] | None = None
    scramble: Callable[[Any], None] | None = None
    options: tuple[SetupOption, ...] = ()
    describe: Callable[[Any], str] | None = None
    search: Searchable | None = None
    characters: Callable[[Any], Mapping[int, list[str]]] | None = None
    endings: Mapping[str, str] = field(default_factory=dict)
    skips: frozenset[str] = frozenset()
    turn: Callable[[Any], tuple[int, int]] | None = None
    luck: Callable[[Game], LuckKeeper] | None = None

    def bot(self, kind: str, seed: int) -> Bot:
        """A bot of `kind` for this mode; every mode has "random"."""
        factory = self.bots.get(kind)
        if factory is None:
            if kind == "random":
                return RandomBot(seed)
            raise ValueError(f"no {kind!r} bot for mode {self.name!r} (choose from {', '.join(self.bot_kinds)})")
        return factory(seed)

    def playing(self, view: Any, seat: int) -> str:
        """What `seat` plays, for people: 'Mina Castellane', 'Mina Castellane and Ada Whitlock'
        ('seat 2' only for a mode that does not declare its `characters`)."""
        names = list(self.characters(view).get(seat, [])) if self.characters is not None else []
        if not names:
            return f"seat {seat + 1}"
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    @cached_property
    def _view_adapter(self) -> TypeAdapter[Any]:
        return _strict_list(self.view)

    def check_view(self, view: Any) -> Any:
        """A checked copy of `view` if it has exactly the declared shape of this mode's view
        (no key missing, none extra, every type strict); `pydantic.ValidationError` otherwise."""
        return self._view_adapter.validate_python([view])[0]

    @cached_property
    def _event_adapter(self) -> TypeAdapter[Any]:
        if self.events is None:
            raise ValueError(f"mode {self.name!r} declares no events (Mode.events)")
        tagged = cast(Any, Annotated)[self.events, Field(discriminator="type")]  # built at run time from the mode's union
        return _strict_list(tagged)

    def check_event(self, wire: Any) -> Any:
        """A checked copy of an event's wire form (`Event.wire()`), if it is one this mode declares."""
        return self._event_adapter.validate_python([wire])[0]

    @cached_property
    def _data_adapters(self) -> dict[str, TypeAdapter[Any]]:
        return {kind: _strict_list(data) for kind, data in self.prompts.items()}

    def check_prompt(self, prompt: Any) -> None:
        """`ValueError` unless the prompt's kind is declared and every option's `data` has its shape."""
        adapter = self._data_adapters.get(prompt["kind"])
        if adapter is None:
            raise ValueError(f"mode {self.name!r} declares no prompt kind {prompt['kind']!r}")
        adapter.validate_python([o["data"] for o in prompt["options"]])

    @property
    def bot_kinds(self) -> list[str]:
        return sorted({"random", *self.bots})

    def option(self, name: str) -> SetupOption | None:
        """The set-up choice `name`, if this mode declares it."""
        return next((o for o in self.options if o.name == name), None)

    @property
    def default_bot(self) -> str:
        """The bot a table uses when none is named: the mode's own first, else "random"."""
        return next(iter(self.bots), "random")


_MODES: Registry[Mode] = Registry("cthulhu.core", "MODE", Mode, lambda m: m.name, "a mode named {name!r} is already registered")


def register(mode: Mode) -> Mode:
    """Add a mode (a plug-in, or a test's own); the same name twice is an error."""
    return _MODES.register(mode)


def unregister(name: str) -> None:
    """Remove a mode added with `register` (tests clean up after themselves)."""
    _MODES.unregister(name)


def get(name: str) -> Mode:
    """The mode called `name`; `ValueError` naming the known ones otherwise."""
    mode = _MODES.find(name)
    if mode is None:
        raise ValueError(f"unknown mode {name!r} (choose from {', '.join(names())})")
    return mode


def names() -> list[str]:
    """Every registered mode's name: the built-in ones first (in package order), then the others."""
    return _MODES.names()


def all_modes() -> list[Mode]:
    return [get(n) for n in names()]


def bot_kinds() -> list[str]:
    """Every bot kind some mode has ("random" for all of them): what `--bot` and a bot peer accept."""
    return sorted({kind for mode in all_modes() for kind in mode.bot_kinds})
