"""The set-up choices a mode declares, as OpenSpiel's games declare their parameters.

A mode lists its `SetupOption`s (`Mode.options`): what each is called, what it picks, where
its values come from (the mode's own loaded content) and what a setup without it gets. A
`Setup` carries the choices made as a mapping, checked against the declaration; the command
line's flags and checks (`cthulhu play/host/sim`, `content list`), the title screen's rows and
the save listing are all generated from it, so a new choice is one declaration in its mode.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Choice:
    """One value a set-up option may take: its id, its name, and a few more words for listings."""

    id: str
    name: str
    about: str = ""


def _none(content: Any) -> list[str]:
    return []


@dataclass(frozen=True)
class SetupOption:
    """One set-up choice. `name` is its key in `Setup.options` (and `--elder-one` on the command
    line for "elder_one"); `label` names it on the title screen ("Elder One"; "Investigator 1"...
    for a list), `noun` in errors ("unknown Elder One 'x'"), `plural` in listings and refusals
    ("Elder Ones are for Main game mode"); `help` says what it picks ("an Elder One").
    `values(content)` gives the ids a setup may name, in the order the title screen offers them,
    from the mode's loaded content; `defaults(content)` what a setup without the option gets.
    `many`: a list of ids, comma-separated on the command line, one per figure (`Setup.seats[i]`
    is the seat controlling the i-th); `rows` is how many of them the title screen offers."""

    name: str
    label: str
    noun: str
    plural: str
    help: str
    values: Callable[[Any], list[Choice]]
    defaults: Callable[[Any], list[str]] = _none
    many: bool = False
    rows: int = 1

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def listing(self, content: Any) -> list[tuple[str, str]]:
        """(id, description) for every value, the defaults marked, as `cthulhu content list` shows them."""
        defaults = self.defaults(content)
        mark = " (a default)" if self.many else " (the default)"
        out = []
        for choice in self.values(content):
            about = f"{choice.name}, {choice.about}" if choice.about else choice.name
            out.append((choice.id, about + (mark if choice.id in defaults else "")))
        return out

    def parse(self, text: str) -> str | list[str]:
        """The option's value as the command line gives it (a list: comma-separated)."""
        if self.many:
            return [part.strip() for part in text.split(",") if part.strip()]
        return text


def _advice(content: Any) -> list[Choice]:
    return [Choice("on", "On", "anyone may open the odds panel (a)"),
            Choice("off", "Off", "house rule: no roll odds, no win chances, for everyone")]


# A house rule, not a rule of the game, declared by every mode with an odds panel. "on" is no
# choice at all (`Setup` drops it), so only a table that switched advice off has it in its setup.
ADVICE = SetupOption("advice", "Advice", "advice setting", "advice settings",
                     "house rule: 'off' keeps the odds panel (a) closed for everyone", _advice, lambda content: ["on"])
