"""What the reader says: events, the choices, the board, the odds and help, as plain sentences.

Pure functions of the view (as the host sent it, checked against its mode's declared type) and the
events: the sentences are the modes' own (the Log's narrator, the prompt bar's labels, the odds
panel's lines, the panes' text), so the reader never words a rule of its own and never decides
what is legal: the numbered list is the prompt's options, in the engine's order. Only their glyphs
are put in words (`spoken`: dice faces, tracks of boxes), which a voice would spell out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..modes import shown_labels, tui_mode
from ..narrate import tell
from ..render import spoken_tracks
from ..who import player

KEYS_HELP = [
    "A number, then Enter: make that choice.",
    "p: say the choices again.",
    "b: the board (the investigators, the story so far).",
    "m: the map, drawn in text.",
    "a: the odds of the roll being decided.",
    "u: take back your last decision, where the table allows it.",
    "c, a space, then words: say them to the table.",
    "back: play your seat again after a stand-in took it (a turn clock ran out).",
    "?: this help.",
    "q: leave the table.",
]


def spoken(view: dict[str, Any], lines: list[str]) -> list[str]:
    """`lines` of the mode's text with its glyphs in words: '[*] [T]' as 'one success and one
    tentacle (...)', '[##...] 2/5' as '2 of 5' (the mode's own forms first, then every track's)."""
    mode = tui_mode(view["mode"])
    return [spoken_tracks(mode.spoken(line)) for line in lines]


def told(events: list[dict[str, Any]], view: dict[str, Any]) -> list[str]:
    """One sentence per event, as the Log tells it."""
    return spoken(view, [tell(ev, view)[1] for ev in events if isinstance(ev, dict)])


def choices(prompt: Mapping[str, Any], view: dict[str, Any], width: int, whose: str | None = None) -> list[str]:
    """The question, '1. Run', '2. Attack'... (the prompt's own options, worded as the bar words
    them), then 'Choose 1 to 2.', the line after which the player (or a script) answers. `whose`: several people share this terminal, so the question says whose it is."""
    labels, line = shown_labels(prompt, view, width)
    question = line or str(prompt.get("text") or "Your decision")
    if whose and whose not in question:
        question = f"{whose}: {question}"
    last = f"Choose 1 to {len(labels)}." if len(labels) > 1 else "Choose 1."
    return [*spoken(view, [question, *(f"{n}. {label}" for n, label in enumerate(labels, 1))]), last]


def waiting(prompt: Mapping[str, Any], view: dict[str, Any], names: Mapping[int, str]) -> str:
    """'Waiting for Ann (Mina Castellane): choose an action.' for a decision made elsewhere."""
    labels_line = shown_labels(prompt, view, 200)[1] or str(prompt.get("text") or "")
    return spoken(view, [f"Waiting for {player(view, int(prompt['seat']), names)}: {labels_line}"])[0]


def board(view: dict[str, Any], width: int) -> list[str]:
    """The Investigators (or Player Mats) and the Story Board panes, as their text."""
    mode = tui_mode(view["mode"])
    return ["The table:", *spoken(view, [*mode.people(view, width).plain.splitlines(), "", *mode.story(view, width).plain.splitlines()])]


def drawn_map(view: dict[str, Any], width: int) -> list[str]:
    """The Map pane, drawn in plain ASCII (a picture: the board, `b`, says the same in sentences)."""
    return ["The map:", *tui_mode(view["mode"]).map(view, width, True).plain.splitlines()]


def odds(view: dict[str, Any], content: Any, advice: bool) -> list[str]:
    """The odds panel's lines for the roll being decided, worked out exactly from this seat's view."""
    if not advice:
        return ["This table plays without advice (a house rule it was created with): no odds."]
    lines = spoken(view, tui_mode(view["mode"]).odds(view, content))
    return lines or ["No roll is being decided now: no odds to show."]


def help_lines(view: dict[str, Any] | None, content: Any) -> list[str]:
    """The reader's keys, then the mode's rules in brief (the help screen's words)."""
    lines = ["Reader mode keys:", *KEYS_HELP]
    if view is not None:
        lines += ["", "The rules in brief:"]
        lines += [f"{bullet}{text}" for bullet, text in tui_mode(view["mode"]).help(content, view, None)]
    return lines


def ending(view: dict[str, Any]) -> list[str]:
    """The game-over summary: the outcome and what became of the table."""
    outcome = view.get("outcome")
    words = {"won": "won", "lost": "lost"}.get(str(outcome), str(outcome))
    return [f"The game is over: {words}.", *spoken(view, [line for line in tui_mode(view["mode"]).summary(view).plain.splitlines() if line])]
