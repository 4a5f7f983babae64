"""The subcommands of `cthulhu`; each module adds its own parser with `register(sub)`."""

from __future__ import annotations

from . import cmd_sim

REGISTRY = [
    cmd_sim.register,
]
