"""What a player chose on the command line or the title screen, and the keys for choices."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ssl

    from cthulhu.core import Setup
    from cthulhu.core.search import Thinking

# Keys for the prompt's options: digits first, then letters the app does not use for itself
# (q quit, s save, o choices, h/? help, l log, c chat, u undo, z zoom, a the odds are taken).
RESERVED = set("qsohlcuza")
OPTION_KEYS = "123456789" + "".join(c for c in "abcdefgijkmnprtuvwxyz" if c not in RESERVED)



class OptionKeys:
    """Which key stands for which option, kept within one decision sequence.

    A sequence is the same seat deciding the same kind of question for the same
    actor again and again (giving cards in a Trade, placing wounds, rerolling
    dice). In a kind the mode lists as stable, an option keeps the key it had and
    a key that stood for an option now gone is not handed to another one, so
    pressing `2` twice can never do two different things; any other prompt is
    numbered afresh.
    """

    def __init__(self) -> None:
        self._sequence: tuple[object, ...] | None = None
        self._given: dict[str, str] = {}  # an option's command -> its key
        self._used: set[str] = set()

    def assign(self, prompt: dict[str, Any], stable: frozenset[str]) -> list[str]:
        """A key for each of the prompt's options ("" once the keys run out)."""
        options = prompt["options"]
        sequence = (prompt["seat"], prompt["kind"], prompt["actor"])
        if sequence != self._sequence or prompt["kind"] not in stable:
            self._sequence = sequence
            keys = [OPTION_KEYS[n] if n < len(OPTION_KEYS) else "" for n in range(len(options))]
            self._given = {command_key(o): k for o, k in zip(options, keys)}
            self._used = set(keys)
            return keys
        keys = []
        for o in options:
            ck = command_key(o)
            key = self._given.get(ck)
            if key is None:
                key = next((k for k in OPTION_KEYS if k not in self._used), "")
                self._given[ck] = key
                self._used.add(key)
            keys.append(key)
        return keys


def command_key(option: dict[str, Any]) -> str:
    """An option's identity across prompts: its command."""
    return json.dumps(option["command"], sort_keys=True)


MIN_SIZE = (80, 24)
WIDE_SIZE = (110, 34)


def random_seed() -> int:
    """A fresh seed for a new game, short enough to read aloud."""
    return secrets.randbelow(1_000_000)


@dataclass(frozen=True)
class PlayOptions:
    mode: str = "main"
    seed: int | None = None
    choices: Mapping[str, str | list[str]] = field(default_factory=dict)  # the set-up choices made (`Mode.options`)
    players: int = 1
    bots: int = 0
    bot_kind: str | None = None  # None: the mode's own bot
    ascii: bool = False
    theme: str = "dark"
    load: Path | None = None
    saves_dir: Path | None = None
    skip_title: bool = False
    name: str = "you"
    code: str | None = None  # table code a host asks for / a peer presents
    save_to: Path | None = None  # `--save FILE`: autosave here instead of a new file in saves_dir
    no_save: bool = False  # `--no-save`: keep the game in memory only
    host_table: bool = False  # `cthulhu host`: this terminal plays one seat, the others join over the network
    host_bind: str | None = None  # hosting: listen here (default loopback only)
    host_port: int = 0
    remote_seats: int = 0  # hosting a new game: seats left open for players on other terminals
    join: tuple[str, int] | None = None  # joining: the host's address
    join_address: str | None = None  # joining: that address as the player typed it
    tls: ssl.SSLContext | None = None  # joining a tls:// address: checks the host's certificate
    join_seat: int | None = None
    join_table: str | None = None  # joining a server of many tables: the table (None: its lobby)
    lobby: bool = False  # joining: the address is a server of many tables; open its lobby
    token: str | None = None  # joining: a seat token given on the command line
    watch: bool = False
    bot_delay: float = 0.5  # seconds before each bot move, so people can follow them (0: at once)
    thinking: Thinking | None = None  # how long search bots think per decision (None: the default second)
    hints: bool = True  # a line of help the first time each kind of decision comes up
    kiosk: bool = False  # a visitor the host serves (`host --ssh/--web`): this table only, no title, no files
    kiosk_comeback: str | None = None  # kiosk: how this visitor comes back to the seat (the door's words)
    lobby_idle: float | None = None  # a server's lobby: seconds without a key before leaving (the doors set it)
    doors: tuple[str, ...] = ()  # hosting: how friends come in by `ssh` or a browser (the lines printed)

    @property
    def hosting(self) -> bool:
        """A table others join: `cthulhu host`, or any game started with seats left open for them."""
        return self.host_table or self.remote_seats > 0

    def with_(self, **changes: Any) -> "PlayOptions":
        return replace(self, **changes)

    def setup(self) -> Setup:
        """The `Setup` of a new game with these choices (a fresh seed when none was given)."""
        from cthulhu.core import Setup

        return Setup(
            mode=self.mode,
            seed=self.seed if self.seed is not None else random_seed(),
            players=max(1, self.players + self.bots),
            options=dict(self.choices),
        )
