"""What a mode's interface declares (`TuiMode`) and the small types in it, apart from the registry
(`tui.modes`) so that the generic interface it falls back on can be made of one too."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.text import Text

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
    # prompt kind, or "event:<type>" -> a first-game hint, or a function of the prompt that words it (what it offers)
    hints: dict[str, str | Callable[[Any], str]] = field(default_factory=dict)
    odds: Callable[[Any, Any], list[str]] = field(default=lambda view, content: [])  # (view, content) -> the odds panel's roll lines
    beat: Callable[[Any, Any], Beat | None] = field(default=lambda ev, view: None)  # (event, view) -> its part in a moment
    # The event types a game's story is told with (`cthulhu replay FILE`): what changed the game, not every roll;
    # a mode that names none is told by its narrator's "end" lines (deaths, summonings, the outcome).
    story_events: frozenset[str] = frozenset()
    # (a line of the mode's text) -> the same with its glyphs in words (dice faces, its own tracks), for
    # the reader mode, whose voice would spell them out; the boxes of `render.track` are put in words after it
    spoken: Callable[[str], str] = field(default=lambda line: line)
