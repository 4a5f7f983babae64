"""The main game's prompt bar: the dice line and short option labels, from the options' data.

A reroll choice shows the die it takes and what is on it; its cost is said once
when every reroll costs the same. All of it comes from the option data the core
declares (`cthulhu.core.main.prompts`), never from parsing a label.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from cthulhu.core.main.view import MainView

from .dice import face_glyph, faces_rich

SHORT_LEGEND = "* success T tentacle E elder - blank, lower case: bonus"


def dice_line(view: MainView, width: int) -> Text | None:
    """'Dice: 1:[*] 2:[T] ... (attack)' for the last roll, with the legend when it fits."""
    roll = view["last_roll"]
    if roll is None or not roll["dice"]:
        return None
    line = Text()
    line.append("Dice: ", style="bold")
    line.append_text(faces_rich(roll["dice"]))
    line.append(f"  ({roll['purpose'].replace('_', ' ')})", style="dim")
    if len(line) + len(SHORT_LEGEND) + 3 <= width:
        line.append("   " + SHORT_LEGEND, style="dim")
    return line


def _cost(stress: int) -> str:
    return "free" if stress == 0 else f"{stress} stress"


def option_labels(prompt: Any, view: MainView, width: int) -> tuple[list[str], str]:
    """Labels for the bar, and a header for the prompt's line (the reroll cost, when shared)."""
    options = prompt["options"]
    if prompt["kind"] != "reroll":
        return [o["label"] for o in options], ""
    rerolls = [o["data"] for o in options if not o["data"]["keep"]]
    costs = {_cost(d["stress"]) for d in rerolls}
    same = len(costs) == 1
    labels = []
    for o in options:
        data = o["data"]
        if data["keep"]:
            labels.append("keep")
            continue
        glyph = face_glyph("bonus" if data["bonus"] else "standard", data["face"] or "")
        labels.append(f"reroll {data['die'] + 1}:[{glyph}]" + ("" if same else f" ({_cost(data['stress'])})"))
    cost = next(iter(costs)) if same else ""
    header = "" if not same else (" (a reroll is free)" if cost == "free" else f" (a reroll costs {cost})")
    return labels, header
