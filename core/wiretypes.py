"""Declared shapes of wire forms the façade builds: options, prompts and the take-back event.

They live in a module of types only because pydantic validates them (`Mode.check_view`,
the narrators) and a TypedDict declared in a module compiled with mypyc (setup.py) is
`typing`'s, which pydantic refuses before Python 3.12. `command` and `undo` export them.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import NotRequired, TypedDict


class OptionWire(TypedDict):
    command: dict[str, Any]  # `Command.wire()`: {"kind": ..., **arguments}
    label: str  # for people: the Choices list shows it whole
    data: dict[str, Any]  # what an interface needs, declared per prompt kind by the mode


class PromptWire(TypedDict):
    seat: int
    kind: str
    text: str
    version: int
    actor: int | None
    options: list[OptionWire]
    extra: dict[str, Any]
    undo: NotRequired[int]  # how many of the deciding seat's decisions it may take back (`Game.view` adds it)


class Undone(TypedDict):
    """The event of a take-back, the same in every mode: who, back to which step, what was taken back."""

    type: Literal["undone"]
    seat: int
    step: int
    taken: list[str]  # the labels of the decisions taken back, oldest first
