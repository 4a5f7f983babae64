"""Commands, prompts and events: the small values that cross every layer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .errors import MalformedCommand
from .labels import distinct_labels
from .wiretypes import OptionWire as OptionWire, PromptWire as PromptWire  # declared apart: see `wiretypes`

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
        """The command `kind(**args)`. Commands with no argument or one plain one are interned:
        the engine builds one per option on every prompt, and a bot's answer is then the very
        object `apply` looks for (`Prompt.find`)."""
        if not args:
            key: tuple[Any, ...] = (kind,)
        elif len(args) == 1:
            ((k, v),) = args.items()
            t = type(v)
            if t is not str and t is not int and t is not bool:
                return cls(kind, ((k, _freeze(v)),))
            key = (kind, k, v, t)  # the type too: True and 1 are equal keys, not equal wire forms
        else:
            return cls(kind, tuple(sorted((k, _freeze(v)) for k, v in args.items())))
        hit = _INTERNED.get(key)
        if hit is None:
            if len(_INTERNED) >= _INTERN_MAX:
                _INTERNED.clear()
            hit = _INTERNED[key] = cls(kind, ((key[1], key[2]),) if len(key) > 1 else ())
        return hit

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


_INTERNED: dict[tuple[Any, ...], Command] = {}  # (kind[, name, value, type(value)]) -> the one such command
_INTERN_MAX = 1 << 16


class Option(NamedTuple):
    """One legal answer: the command, a label for people, and structured data for interfaces.

    `data` follows the `TypedDict` the mode declares for the prompt's kind, so an
    interface never parses `label` to learn a cost, a die or a payment. None: the
    prompt works it out when it is first put on the wire (`Prompt.describe`; no data
    without one). A tuple, not a dataclass: one is built per option of every prompt.
    """

    command: Command
    label: str
    data: Any = None


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

    # Written out rather than generated: a prompt is made at every step, and a compiled core
    # (setup.py) makes a generated one dearer than the rest of the prompt.
    def __init__(self, seat: int, kind: str, text: str, options: list[Option], version: int = 0, actor: int | None = None,
                 extra: dict[str, Any] | None = None, describe: Callable[[Command], Any] | None = None) -> None:
        self.seat = seat
        self.kind = kind
        self.text = text
        self.options = options
        self.version = version
        self.actor = actor
        self.extra = {} if extra is None else extra
        self.describe = describe
        self._options = None

    def find(self, command: Command) -> Option | None:
        """The option whose command is `command`: by identity first (interned commands, a bot
        answering with one of `options`), else by equality."""
        for o in self.options:
            if o.command is command:
                return o
        for o in self.options:
            if o.command == command:
                return o
        return None

    def wire(self) -> PromptWire:
        if self._options is None:  # built once per prompt and shared by every seat's view: read-only
            describe = self.describe
            self._options = [
                # The data copied: an option may be shared by many prompts (`core.shamblers.tables`).
                {"command": o.command.wire(), "label": o.label,
                 "data": dict(o.data) if o.data is not None else describe(o.command) if describe is not None else {}}
                for o in self.options
            ]
            labels = [o.label for o in self.options]
            if len(set(labels)) < len(labels):  # two read alike: told apart as shown (the state keeps the engine's)
                for wire, label in zip(self._options, distinct_labels(labels, [w["data"] for w in self._options])):
                    wire["label"] = label
        return {
            "seat": self.seat,
            "kind": self.kind,
            "text": self.text,
            "version": self.version,
            "actor": self.actor,
            "options": self._options,
            "extra": self.extra,
        }


class Event:
    """Something that happened; the log narrates these and tests assert on them.

    It keeps the wire form it was made from (`of`), so making one costs no copy: the
    engine emits a few per command. Treat it as frozen."""

    __slots__ = ("type", "_wire")

    def __init__(self, type: str, data: Mapping[str, Any] | None = None, wire: dict[str, Any] | None = None) -> None:
        self.type = type
        # `wire`: what `of` hands over whole (nobody else passes it).
        self._wire: dict[str, Any] = wire if wire is not None else {"type": type, **(data or {})}

    @classmethod
    def of(cls, wire: Mapping[str, Any]) -> "Event":
        """From the wire form: the type plus the other fields (a mode's declared event).
        The event keeps `wire` if it is a dict with the type first, as every emitter writes
        it (a fresh literal): no copy."""
        if type(wire) is dict and next(iter(wire)) == "type":
            return cls(wire["type"], None, wire)
        return cls(wire["type"], None, {"type": wire["type"], **wire})

    @property
    def data(self) -> dict[str, Any]:
        """The fields other than the type."""
        return {k: v for k, v in self._wire.items() if k != "type"}

    def wire(self) -> dict[str, Any]:
        return dict(self._wire)

    def __getitem__(self, key: str) -> Any:
        if key == "type":
            raise KeyError(key)
        return self._wire[key]

    def get(self, key: str, default: Any = None) -> Any:
        return default if key == "type" else self._wire.get(key, default)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return self._wire == other._wire

    __hash__ = None  # type: ignore[assignment]  # it holds a dict, as it always did

    def __repr__(self) -> str:
        return f"Event(type={self.type!r}, data={self.data!r})"

