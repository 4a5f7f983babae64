"""The subcommands of `cthulhu`; each module adds its own parser with `register(sub)`."""

from __future__ import annotations

from . import cmd_content, cmd_host, cmd_join, cmd_play, cmd_replay, cmd_saves, cmd_sim

REGISTRY = [
    cmd_play.register,
    cmd_sim.register,
    cmd_content.register,
    cmd_saves.register,
    cmd_replay.register,
    cmd_host.register,
    cmd_join.register,
]
