"""The interface half of the mode registry: how each mode is drawn, told and explained.

A mode's interface is a package `cthulhu.tui.modes.<name>` declaring `TUI` (a
`TuiMode`): its three panes, its Log narrator, its prompt bar labels and dice
line, its first-game hints, its game-over summary and its help, all pure functions from the mode's
declared view (and event, and content) to Rich text. The screens and widgets
ask `tui_mode(view["mode"])` and never which mode it is. A mode without an
interface package (a plug-in, the tests' toy) is drawn by `generic`.
"""

from __future__ import annotations

from typing import Any

from cthulhu.core import modes as core_modes
from cthulhu.core.labels import distinct_labels
from cthulhu.core.registry import Registry

from .generic import generic
from .tuimode import Beat as Beat, Told as Told, TuiMode as TuiMode  # declared apart: see `tuimode`

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
    return generic(name)


def shown_labels(prompt: Any, view: Any, width: int) -> tuple[list[str], str]:
    """The labels a player sees for `prompt` (the bar's, the Choices list's): the mode's own wording,
    options that read alike told apart (`core.labels`), and the prompt's line ('' for its text)."""
    labels, line = tui_mode(view["mode"]).labels(prompt, view, width)
    return distinct_labels(labels, [o.get("data") for o in prompt["options"]]), line


def check_view(view: Any) -> Any:
    """A view from a link, checked against its mode's declared type (`ValueError`s name the problem)."""
    if not isinstance(view, dict) or not isinstance(view.get("mode"), str):
        raise ValueError("a view names its mode")
    return core_modes.get(view["mode"]).check_view(view)


def mode_titles() -> list[tuple[str, str]]:
    """(name, title) of every mode that can be started from the title screen."""
    return [(m.name, m.title) for m in core_modes.all_modes()]
