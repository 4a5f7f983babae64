"""The interface half of the mode registry: how each mode is drawn, told and explained.

A mode's interface is a package `cthulhu.tui.modes.<name>` declaring `TUI` (a
`TuiMode`): its three panes, its Log narrator, its prompt bar labels and dice
line, its first-game hints, its game-over summary and its help, all pure functions from the mode's
declared view (and event, and content) to Rich text. The screens and widgets
ask `tui_mode(view["mode"])` and never which mode it is. A mode without an
interface package (a plug-in, the tests' toy) is drawn by `generic`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.text import Text

from cthulhu.core import modes as core_modes
from cthulhu.core.registry import Registry

Told = tuple[str, str]  # (kind of line, for its color; the sentence)


@dataclass(frozen=True)
class Beat:
    """What one event is to the moment card (`tui.moments`): it `begin`s a moment (a card drawn, the
    Elder One advancing, the Wheel turning), `add`s a line to one (what that card did: `key` names
    its moment, "" the one begun last), or `end`s the one begun last (the turn goes on to other things).
    `title` heads the moment (for `add`: when its moment is not on the card yet, after a decision);
    `quote` marks a line that is the card's own printed text."""

    kind: Literal["begin", "add", "end"]
    key: str = ""
    title: str = ""
    line: str = ""
    quote: bool = False


@dataclass(frozen=True)
class TuiMode:
    """What a mode's interface declares. `view` arguments are the mode's declared view type."""

    name: str
    map: Callable[[Any, int, bool], Text]  # (view, width, ascii only) -> the Map pane
    story: Callable[[Any, int], Text]  # (view, width) -> the Story Board pane
    people: Callable[[Any, int], Text]  # (view, width) -> the Investigators pane (or Player Mats)
    tell: Callable[[Any, Any], Told | None]  # (event wire, view) -> a Log line; None: not one of ours
    labels: Callable[[Any, Any, int], tuple[list[str], str]]  # (prompt, view, width) -> bar labels, the prompt's line ('' for its text)
    dice: Callable[[Any, int], Text | None]  # (view, width) -> the dice line of the roll being decided, if any
    title: Callable[[Any], str]  # (view) -> what the status line calls the table ("The Wexley Mill Fire")
    whose_turn: Callable[[Any], str | None]  # (view) -> the active player's name
    summary: Callable[[Any], Text]  # (view) -> the game-over dialog's lines about the table
    help: Callable[[Any, Any, Any], list[tuple[str, str]]]  # (content, view or None, PlayOptions or None) -> (bullet, paragraph)s
    # The title screen's rows are the mode's own set-up choices (`Mode.options`); this says which
    # value a row starts on when nothing was chosen (else "(default)": the rules decide).
    defaults: Callable[[Any], dict[str, Any]] = field(default=lambda content: {})  # option name -> the value first selected
    stable_keys: frozenset[str] = frozenset()  # prompt kinds asked again and again whose options keep their keys
    hints: dict[str, str] = field(default_factory=dict)  # prompt kind, or "event:<type>" -> a first-game hint
    odds: Callable[[Any, Any], list[str]] = field(default=lambda view, content: [])  # (view, content) -> the odds panel's roll lines
    beat: Callable[[Any, Any], Beat | None] = field(default=lambda ev, view: None)  # (event, view) -> its part in a moment
    # The event types a game's story is told with (`cthulhu replay FILE`): what changed the game, not every roll;
    # a mode that names none is told by its narrator's "end" lines (deaths, summonings, the outcome).
    story_events: frozenset[str] = frozenset()


_TUI: Registry[TuiMode] = Registry(__name__, "TUI", TuiMode, lambda m: m.name,
                                   "an interface for mode {name!r} is already registered")


def register(mode: TuiMode) -> TuiMode:
    """Add a mode's interface (a plug-in's, a test's); the same name twice is an error."""
    return _TUI.register(mode)


def unregister(name: str) -> None:
    _TUI.unregister(name)


def tui_mode(name: str) -> TuiMode:
    """The interface of mode `name`: its own package's, or the generic one for a mode without it."""
    found = _TUI.find(name)
    if found is not None:
        return found
    from .generic import generic

    return generic(name)


def check_view(view: Any) -> Any:
    """A view from a link, checked against its mode's declared type (`ValueError`s name the problem)."""
    if not isinstance(view, dict) or not isinstance(view.get("mode"), str):
        raise ValueError("a view names its mode")
    return core_modes.get(view["mode"]).check_view(view)


def mode_titles() -> list[tuple[str, str]]:
    """(name, title) of every mode that can be started from the title screen."""
    return [(m.name, m.title) for m in core_modes.all_modes()]
