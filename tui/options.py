"""What a player chose on the command line or the title screen, and the keys for choices."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path

# Keys for the prompt's options: digits first, then letters the app does not use for itself
# (q quit, s save, o choices, h/? help, l log, c chat are taken).
RESERVED = set("qsohlc")
OPTION_KEYS = "123456789" + "".join(c for c in "abcdefgijkmnprtuvwxyz" if c not in RESERVED)

MIN_SIZE = (80, 24)
WIDE_SIZE = (110, 34)


def random_seed() -> int:
    """A fresh seed for a new game, short enough to read aloud."""
    return secrets.randbelow(1_000_000)


@dataclass(frozen=True)
class PlayOptions:
    mode: str = "main"
    seed: int | None = None
    episode: str | None = None
    elder_one: str | None = None
    investigators: tuple[str, ...] = ()
    players: int = 1
    bots: int = 0
    bot_kind: str = "heuristic"
    ascii: bool = False
    theme: str = "textual-dark"
    load: Path | None = None
    saves_dir: Path | None = None
    skip_title: bool = False
    local: bool = False  # play in this process without the embedded host (no sockets)
    name: str = "you"
    code: str | None = None  # table code a host asks for / a peer presents
    host_bind: str | None = None  # hosting: listen here (default loopback only)
    host_port: int = 0
    remote_seats: int = 0  # hosting: seats left open for players on other terminals
    join: tuple[str, int] | None = None  # joining: the host's address
    join_seat: int | None = None
    watch: bool = False
    token_file: Path | None = None  # joining: keep this seat's token here, and reclaim the seat with it
    kiosk: bool = False  # a front end the host serves (SSH, browser): this table only, no title, no files
    doors: tuple[str, ...] = ()  # hosting: how friends come in by `ssh` or a browser (the lines printed)
    extra: dict = field(default_factory=dict)

    def with_(self, **changes) -> "PlayOptions":
        return replace(self, **changes)

    def setup(self):
        """The `Setup` of a new game with these choices (a fresh seed when none was given)."""
        from cthulhu.core import Setup

        return Setup(
            mode=self.mode,
            seed=self.seed if self.seed is not None else random_seed(),
            episode=self.episode,
            elder_one=self.elder_one,
            investigators=list(self.investigators),
            players=max(1, self.players + self.bots),
        )
