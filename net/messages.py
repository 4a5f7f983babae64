"""The wire messages: pydantic models discriminated on ``t``.

Strict and closed (``extra="forbid"``): a peer cannot smuggle fields, and a
bool never passes for an int. Wire types are msgpack-native (``list`` not
``tuple``, ``Literal`` not ``Enum``). Validation errors are reported without
echoing the input back (``include_input=False``).

Two unions: what a host accepts from peers and what a peer accepts from the
host, so a peer that sends a ``delta`` gets "unexpected", not silence.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

PROTOCOL_VERSION = 3

Name = Annotated[str, Field(min_length=1, max_length=40)]
Secret = Annotated[str, Field(min_length=1, max_length=64)]


class ProtocolError(Exception):
    """A message that decodes as msgpack but is not a message we accept."""

    code = "bad_message"
    fatal = False

    def __init__(self, reason: str, details: list[str] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.details = details or []


class UnknownMessage(ProtocolError):
    code = "unknown_type"


class UnexpectedMessage(ProtocolError):
    """A real message type, but not one this side may receive (or not now)."""

    code = "unexpected_message"


class BadMessage(ProtocolError):
    code = "bad_message"


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    def wire(self) -> dict[str, Any]:
        return self.model_dump()


class SeatInfo(BaseModel):
    """One seat as the table shows it. `stand_in`: a bot plays this away player's turns until they are back."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seat: int
    kind: Literal["open", "human", "bot"]
    name: str | None = None
    connected: bool = False
    stand_in: bool = False


class Table(BaseModel):
    """What a lobby shows. Never the table code or any token. `id` names this game's table
    (kept in its save), so a peer can tell a restarted host of the same game from another."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str | None = None
    mode: str
    seats: list[SeatInfo]
    started: bool = False
    spectators: int = 0


# --- peer -> host ----------------------------------------------------------


class Hello(_Msg):
    """First message on a connection. `token` (with `seat`) reclaims a seat; `watch` asks to spectate."""

    t: Literal["hello"] = "hello"
    proto: int
    name: Name
    code: Secret | None = None
    seat: int | None = None
    token: Secret | None = None
    watch: bool = False


class CommandMsg(_Msg):
    """A decision. `seq` is the peer's own counter (echoed in `rejected`); `version` is the prompt version."""

    t: Literal["command"] = "command"
    seq: int
    version: int | None = None
    command: dict[str, Any]


class Undo(_Msg):
    """Take back the sender's last decision. `version` is the prompt version being taken back from."""

    t: Literal["undo"] = "undo"
    seq: int
    version: int | None = None


class SnapshotRequest(_Msg):
    t: Literal["snapshot_request"] = "snapshot_request"
    seq: int | None = None
    reason: Annotated[str, Field(max_length=200)] = ""


class Chat(_Msg):
    """From a peer only `text` counts; the host fills in `name` and `seat` when it relays."""

    t: Literal["chat"] = "chat"
    text: Annotated[str, Field(min_length=1, max_length=500)]
    name: str | None = None
    seat: int | None = None


class Ping(_Msg):
    t: Literal["ping"] = "ping"
    n: int


class Pong(_Msg):
    t: Literal["pong"] = "pong"
    n: int


# --- host -> peer ----------------------------------------------------------


class Welcome(_Msg):
    """Seat (None: spectator), the seat token (only ever sent to its owner) and a full view.

    `commit` binds the host to the seed (net/commitment.py); `setup` is the setup without the seed;
    `events`, at step 0 only, are the events of the setup itself (dealing, placing figures).
    """

    t: Literal["welcome"] = "welcome"
    proto: int
    seat: int | None
    token: str | None = None
    table: Table
    seq: int
    view: dict[str, Any]
    hash: str
    commit: str | None = None
    setup: dict[str, Any] | None = None
    events: list[dict[str, Any]] = Field(default_factory=list)


class History(_Msg):
    """Commands `start+1 ...` as `[seat, command]`, for a peer that joins a game already under way."""

    t: Literal["history"] = "history"
    start: int
    entries: list[list[Any]]


class RecapMsg(_Msg):
    """After a `welcome`: the events of the latest steps up to `step`, as `[step, [event, ...]]`
    entries, oldest first (at most 32 KiB of them), so a peer's Log tells the story so far."""

    t: Literal["recap"] = "recap"
    step: int
    entries: list[list[Any]]


class Lobby(_Msg):
    t: Literal["lobby"] = "lobby"
    table: Table


class Rejected(_Msg):
    """The game refused a command; sent to its sender only. `code` is the core's `Rejected.code`."""

    t: Literal["rejected"] = "rejected"
    seq: int
    code: str
    reason: str


class Delta(_Msg):
    """Operations (see `net.delta`) turning the view at `seq - 1` into the view at `seq`, whose hash is `hash`."""

    t: Literal["delta"] = "delta"
    seq: int
    step: int
    ops: list[list[Any]]
    hash: str
    events: list[dict[str, Any]] = Field(default_factory=list)
    cmd: list[Any] | None = None  # [seat, command] that led to `step`; None: a take-back to `step`


class Snapshot(_Msg):
    t: Literal["snapshot"] = "snapshot"
    seq: int
    view: dict[str, Any]
    hash: str


class Error(_Msg):
    """A protocol-level problem (bad frame, bad message, refused hello). `fatal`: the host closes next."""

    t: Literal["error"] = "error"
    code: str
    reason: str
    fatal: bool = False
    details: list[str] = Field(default_factory=list)


class GameOverMsg(_Msg):
    """The end, with the seed and the commitment's salt (hex) revealed so peers may verify every roll."""

    t: Literal["game_over"] = "game_over"
    outcome: str | None
    seed: int
    step: int
    state_hash: str
    salt: str | None = None


ToHost = Annotated[Union[Hello, CommandMsg, Undo, SnapshotRequest, Chat, Ping, Pong], Field(discriminator="t")]
ToPeer = Annotated[
    Union[Welcome, History, RecapMsg, Lobby, Rejected, Delta, Snapshot, Chat, Ping, Pong, Error, GameOverMsg],
    Field(discriminator="t"),
]

_TO_HOST: TypeAdapter[Any] = TypeAdapter(ToHost)
_TO_PEER: TypeAdapter[Any] = TypeAdapter(ToPeer)
_HOST_TYPES = {"hello", "command", "undo", "snapshot_request", "chat", "ping", "pong"}
_PEER_TYPES = {"welcome", "history", "recap", "lobby", "rejected", "delta", "snapshot", "chat", "ping", "pong", "error", "game_over"}
ALL_TYPES = _HOST_TYPES | _PEER_TYPES


def _details(exc: ValidationError) -> list[str]:
    out = []
    for err in exc.errors(include_input=False, include_url=False, include_context=False)[:10]:
        loc = ".".join(str(p) for p in err["loc"])
        out.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return out


def _parse(adapter: TypeAdapter[Any], accepted: set[str], data: dict[str, Any]) -> Any:
    t = data.get("t")
    if t not in accepted:
        if t in ALL_TYPES:
            raise UnexpectedMessage(f"a {t!r} message is not accepted here")
        raise UnknownMessage(f"unknown message type {str(t)[:40]!r}")
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        raise BadMessage(f"malformed {t!r} message", _details(exc)) from None


def parse_to_host(data: dict[str, Any]) -> Any:
    """A decoded frame from a peer -> a message model, or a `ProtocolError`."""
    return _parse(_TO_HOST, _HOST_TYPES, data)


def parse_to_peer(data: dict[str, Any]) -> Any:
    """A decoded frame from the host -> a message model, or a `ProtocolError`."""
    return _parse(_TO_PEER, _PEER_TYPES, data)
