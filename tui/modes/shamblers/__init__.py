"""Shamblers mode's interface: the ring of Town Cards, the Shambler Track and Mats, the Player Mats."""

from __future__ import annotations

from cthulhu.core.shamblers.view import ShamblersView

from .. import TuiMode
from .help import HINTS, rules_in_brief
from .moments import beat
from .narrate import tell
from .odds import banish_lines
from .render import dice_line, render_mats, render_shambler_story, render_towns, short_labels, summary
from .spoken import spoken


def _whose_turn(view: ShamblersView) -> str | None:
    return view["mats"][view["active"]]["name"]


TUI = TuiMode(
    name="shamblers",
    map=lambda view, width, ascii_only: render_towns(view, width, ascii_only=ascii_only),
    story=render_shambler_story,
    people=render_mats,
    tell=tell,
    labels=short_labels,
    dice=lambda view, width: dice_line(view) if view["phase"] == "banish" else None,
    title=lambda view: f"Shamblers ({view['difficulty']['name']})",
    whose_turn=_whose_turn,
    summary=summary,
    help=rules_in_brief,
    defaults=lambda content: {"difficulty": content.shamblers.default_difficulty},
    stable_keys=frozenset({"feed", "banish"}),
    hints=HINTS,
    odds=banish_lines,
    spoken=spoken,
    beat=beat,
    story_events=frozenset({"banished", "delirium", "game_won", "game_lost"}),
)
