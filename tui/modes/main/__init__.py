"""The main game's interface: the map of tiles, the Story Board, the Investigators, the Log's sentences."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from cthulhu.core import modes
from cthulhu.core.main.view import MainView

from .. import TuiMode
from .help import HINTS, rules_in_brief
from .map import render_legend, render_map_and_overflow
from .moments import beat
from .narrate import tell
from .odds import roll_lines
from .panes import render_investigators, render_story
from .prompt import dice_line, option_labels
from .spoken import spoken


def _map(view: MainView, width: int, ascii_only: bool) -> Text:
    out, overflow = render_map_and_overflow(view, width, ascii_only=ascii_only)
    out.append("\n")
    out.append_text(render_legend(view, width, overflow, ascii_only))
    return out


def _whose_turn(view: MainView) -> str | None:
    return next((i["name"] for i in view["investigators"] if i["index"] == view["active"]), None)


def _summary(view: MainView) -> Text:
    out = Text()
    ending = modes.get("main").endings.get(view["cause"] or "")
    if ending:
        out.append(ending.format(elder=view["elder_one"]["name"]), style="bold")
    for inv in view["investigators"]:
        if inv["alive"]:
            out.append(f"\n{inv['name']}: survived ({inv['wounds']}/{inv['health']} wounds, sanity {inv['sanity']}/{inv['skull']})")
        else:
            out.append(f"\n{inv['name']}: died ({(inv['cause'] or 'unknown').replace('_', ' ')})", style="bright_red")
    return out


TUI = TuiMode(
    name="main",
    map=_map,
    story=render_story,
    people=lambda view, width: render_investigators(view, detail=width >= 40, width=width),
    tell=tell,
    labels=option_labels,
    dice=dice_line,
    title=lambda view: view["episode"]["name"],
    whose_turn=_whose_turn,
    summary=_summary,
    help=rules_in_brief,
    stable_keys=frozenset({"trade", "wound_to", "assign_hit", "reroll", "attack_order", "douse", "discard_card"}),
    hints=HINTS,
    odds=roll_lines,
    spoken=spoken,
    beat=beat,
    story_events=frozenset({
        "ritual_progress", "ritual_disrupted", "elder_advanced", "elder_summoned", "stage_revealed", "stage_defeated",
        "claimed", "investigator_died", "game_won", "game_lost",
    }),
)
