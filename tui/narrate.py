"""Events told as sentences for the Log pane, each with a kind that picks its color.

The mode's own narrator (its `TuiMode.tell`) tells the events it declares,
checked against their declared types first; anything else (a newer host's
event, a plug-in's) still gets a readable line built from its fields, never a
crash and never silence.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from cthulhu.core import modes as core_modes
from cthulhu.core.undo import Undone

from .english import cap
from .modes import Beat, Told, tui_mode
from .who import characters, playing

# kind -> style (16-color names so the ANSI theme and plain terminals agree)
KIND_STYLES = {
    "turn": "bold",
    "dice": "cyan",
    "harm": "bright_red",
    "enemy": "bright_magenta",
    "good": "green",
    "move": "",
    "story": "bright_yellow",
    "end": "bold reverse",
    "info": "dim",
    "chat": "bright_cyan",
    "error": "bold bright_red",
}


_UNDONE: TypeAdapter[Undone] = TypeAdapter(Undone)


def tell(ev: dict[str, Any], view: dict[str, Any]) -> Told:
    """(kind, sentence) for one event wire dict, in the mode of `view`."""
    return told_and_beat(ev, view)[0]


def told_and_beat(ev: dict[str, Any], view: dict[str, Any]) -> tuple[Told, Beat | None]:
    """The Log's (kind, sentence) for one event wire dict, and what it is to the moment card
    (`tui.moments`; None: no part of a moment), the event checked once for both."""
    if ev.get("type") == "undone":  # the façade's own event, the same in every mode
        try:
            return told_undone(_UNDONE.validate_python(ev, strict=True), view), None
        except ValidationError:
            return ("info", humanize(ev)), None
    name = view.get("mode")
    if isinstance(name, str):
        try:
            checked = core_modes.get(name).check_event(ev)
        except (ValueError, ValidationError):
            checked = None
        if checked is not None:
            mode = tui_mode(name)
            told = mode.tell(checked, view)
            if told is not None:
                return told, mode.beat(checked, view)
    text = ev.get("text")
    if isinstance(text, str) and text:
        return ("story", text), None
    return ("info", humanize(ev)), None


def told_undone(ev: Undone, view: dict[str, Any]) -> Told:
    what = "; ".join(ev["taken"]) or "a decision"
    who = cap(playing(view, ev["seat"]))  # the seat by what it plays ('seat 2' only for a mode that does not say)
    takes = "take" if len(characters(view, ev["seat"])) > 1 else "takes"
    return "info", f"{who} {takes} back: {what}. (Back at step {ev['step']}; no roll or card is changed.)"


def humanize(ev: dict[str, Any]) -> str:
    """'Type: field value, field value.' for an event no narrator tells."""
    kind = str(ev.get("type", "event")).replace("_", " ")
    parts = [f"{k.replace('_', ' ')} {v}" for k, v in ev.items() if k != "type"]
    return kind.capitalize() + (": " + ", ".join(parts) if parts else "") + "."
