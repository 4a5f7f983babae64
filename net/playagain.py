"""The command that starts a table again: `cthulhu play` with every choice of its setup.

The game-over dialog and `cthulhu replay` print it once the seed is known. It is built
here once, quoted for a POSIX shell, so that pasting it starts the very same game: the
`Setup` that `cthulhu play` makes from it equals the game's (a test parses it with the
real argument parser). A choice the setup left to the content's default is left out,
so the default it names is the one the game had.
"""

from __future__ import annotations

from collections.abc import Mapping

from cthulhu.core import Setup, modes

from .invite import shell_option


def play_again_command(setup: Setup, bots: Mapping[int, str | None] | None = None) -> str | None:
    """`cthulhu play --start --mode M --seed S ...` for this setup with bots in the seats of `bots`
    (seat -> the kind that played it, None if unknown; `--bot` when one known kind played them all).
    None when no `cthulhu play` line can make this table: seats given by hand, or none left for a person."""
    bots = bots or {}
    humans = setup.players - len(bots)
    kinds = set(bots.values())
    bot_kind = kinds.pop() if len(kinds) == 1 else None
    if setup.seats is not None or humans < 1:
        return None
    parts = ["cthulhu", "play", "--start", shell_option("--mode", setup.mode), f"--seed {setup.seed}"]
    for option in modes.get(setup.mode).options:  # the mode's own set-up choices, as its flags take them
        value = setup.options.get(option.name)
        if value:
            parts.append(shell_option(option.flag, ",".join(value) if isinstance(value, list) else value))
    parts.append(f"--players {humans}")
    if bots:
        parts.append(f"--bots {len(bots)}")
        if bot_kind is not None:
            parts.append(shell_option("--bot", bot_kind))
    return " ".join(parts)
