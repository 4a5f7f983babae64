"""Commands, prompts and events: the small values that cross every layer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import NotRequired, TypedDict

from .errors import MalformedCommand

_SCALARS = (str, int, bool, type(None))


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, _SCALARS) and not isinstance(value, float):
        return value
    raise MalformedCommand(f"command arguments must be strings, integers or lists of them, not {type(value).__name__}")


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Command:
    """A decision: a stable wire name plus sorted, hashable arguments."""

    kind: str
    args: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, kind: str, **args: Any) -> "Command":
        if not args:
            return cls(kind)
        if len(args) == 1:
            ((k, v),) = args.items()
            if type(v) in (str, int, bool):  # the common case, built on every prompt
                return cls(kind, ((k, v),))
        return cls(kind, tuple(sorted((k, _freeze(v)) for k, v in args.items())))

    def __getitem__(self, key: str) -> Any:
        for k, v in self.args:
            if k == key:
                return v
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def wire(self) -> dict[str, Any]:
        return {"kind": self.kind, **{k: _thaw(v) for k, v in self.args}}

    @classmethod
    def from_wire(cls, data: Any) -> "Command":
        if not isinstance(data, dict):
            raise MalformedCommand("a command is a map with a 'kind'")
        kind = data.get("kind")
        if not isinstance(kind, str) or not kind:
            raise MalformedCommand("a command needs a 'kind' string")
        args = {k: v for k, v in data.items() if k != "kind"}
        if not all(isinstance(k, str) for k in args):
            raise MalformedCommand("command argument names must be strings")
        return cls.of(kind, **args)

    def __str__(self) -> str:
        inner = ", ".join(f"{k}={_thaw(v)!r}" for k, v in self.args)
        return f"{self.kind}({inner})"


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


@dataclass(frozen=True, slots=True)
class Option:
    """One legal answer: the command, a label for people, and structured data for interfaces.

    `data` follows the `TypedDict` the mode declares for the prompt's kind, so an
    interface never parses `label` to learn a cost, a die or a payment. None: the
    prompt works it out when it is first put on the wire (`Prompt.describe`).
    """

    command: Command
    label: str
    data: Any = field(default_factory=dict)


@dataclass(slots=True)
class Prompt:
    """A decision the game is waiting for: who decides and what they may choose."""

    seat: int
    kind: str
    text: str
    options: list[Option]
    version: int = 0
    actor: int | None = None  # the investigator (or player mat) the choice is about
    extra: dict[str, Any] = field(default_factory=dict)
    # The options' data, worked out only when a view needs it (`legal` does not): for options built without.
    describe: Callable[[Command], Any] | None = None
    _options: list[OptionWire] | None = field(default=None, repr=False, compare=False)

    def wire(self) -> PromptWire:
        if self._options is None:  # built once per prompt and shared by every seat's view: read-only
            self._options = [
                {"command": o.command.wire(), "label": o.label,
                 "data": self.describe(o.command) if o.data is None and self.describe is not None else o.data}
                for o in self.options
            ]
        return {
            "seat": self.seat,
            "kind": self.kind,
            "text": self.text,
            "version": self.version,
            "actor": self.actor,
            "options": self._options,
            "extra": self.extra,
        }


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened; the log narrates these and tests assert on them."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, wire: Mapping[str, Any]) -> "Event":
        """From the wire form: the type plus the other fields (a mode's declared event)."""
        data = dict(wire)
        return cls(data.pop("type"), data)

    def wire(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}

    def __getitem__(self, key: str) -> Any:
        return self.data[key]
