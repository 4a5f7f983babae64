"""The wire messages of a table: pydantic models discriminated on ``t``, and their parsing.

Strict and closed (`net.wirebase`); validation errors are reported without echoing the input
back (``include_input=False``). A server's lobby has messages of its own (`net.lobbymessages`),
parsed here with these.

Two unions: what a host accepts from peers and what a peer accepts from the
host, so a peer that sends a ``delta`` gets "unexpected", not silence.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from . import lobbymessages
from .lobbymessages import (
    AskBoard,
    BoardMsg,
    ChallengesMsg,
    Created,
    CreateTable,
    Entered,
    LinkCodeMsg,
    LinkDoor,
    Linked,
    ListChallenges,
    ListRecords,
    ListTables,
    LobbyWelcome,
    NewLinkCode,
    RecordsMsg,
    SubmitChallenge,
    TablesPage,
)
from .wirebase import Msg, Name, OnTimeout, Secret, TableId

PROTOCOL_VERSION = 7


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


class SeatInfo(BaseModel):
    """One seat as the table shows it. `stand_in`: a bot plays this away player's turns until they are back."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seat: int
    kind: Literal["open", "human", "bot"]
    name: str | None = None
    connected: bool = False
    stand_in: bool = False


class Clock(BaseModel):
    """A turn-based table's clock, as it stands when the frame is sent. `seat` must decide by
    `deadline` (ISO 8601 UTC; null with `seat`: nobody must decide, or the table is paused);
    `left_ms`: the time left then, for a peer to count down on its own clock (clocks differ).
    `paused`: the clock ran out and the table waits for that seat's player (`on_timeout` pause),
    or, with `idle`, the table stopped at that seat because no person played for a whole round of
    turns (any person's decision, `back` or reconnect starts it again). `away_after`: missed turns
    in a row before a stand-in keeps a seat until its player is back."""

    model_config = ConfigDict(extra="forbid", strict=True)

    turn_time: int  # seconds per decision
    on_timeout: OnTimeout = "stand-in"
    seat: int | None = None
    deadline: str | None = None
    left_ms: int | None = None
    paused: bool = False
    idle: bool = False
    away_after: int = 3


class Table(BaseModel):
    """What a lobby shows. Never the table code or any token. `id` names this game's table
    (kept in its save), so a peer can tell a restarted host of the same game from another."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str | None = None
    mode: str
    seats: list[SeatInfo]
    started: bool = False
    spectators: int = 0
    clock: Clock | None = None  # None: a live table (the game waits for whoever must decide)
    held: str | None = None  # the table waits for its disk: no step is told until it is saved (why it cannot save)


# --- peer -> host ----------------------------------------------------------


class Hello(Msg):
    """First message on a connection. `token` (with `seat`) reclaims a seat; `watch` asks to spectate.

    At a server of many tables (`cthulhu server`) `table` names the table to sit at, and `lobby`
    (or no table at all) asks for its lobby; `ident` is the visitor's identity key, a secret their
    own machine made and keeps for that server, so a name and "my tables" follow them without an
    account. A one-table host refuses `lobby` and a `table` that is not its own."""

    t: Literal["hello"] = "hello"
    proto: int
    name: Name
    code: Secret | None = None
    seat: int | None = None
    token: Secret | None = None
    watch: bool = False
    table: TableId | None = None
    ident: Secret | None = None
    lobby: bool = False


class CommandMsg(Msg):
    """A decision. `seq` is the peer's own counter (echoed in `rejected`); `version` is the prompt version."""

    t: Literal["command"] = "command"
    seq: int
    version: int | None = None
    command: dict[str, Any]


class Undo(Msg):
    """Take back the sender's last decision. `version` is the prompt version being taken back from."""

    t: Literal["undo"] = "undo"
    seq: int
    version: int | None = None


class Back(Msg):
    """The sender's player is back at the seat a turn clock's stand-in plays (their connection
    stayed open): the stand-in leaves, and the next decision is theirs again."""

    t: Literal["back"] = "back"


class SnapshotRequest(Msg):
    t: Literal["snapshot_request"] = "snapshot_request"
    seq: int | None = None
    reason: Annotated[str, Field(max_length=200)] = ""


class Chat(Msg):
    """From a peer only `text` counts; the host fills in `name` and `seat` when it relays."""

    t: Literal["chat"] = "chat"
    text: Annotated[str, Field(min_length=1, max_length=500)]
    name: str | None = None
    seat: int | None = None


class Ping(Msg):
    t: Literal["ping"] = "ping"
    n: int


class Pong(Msg):
    t: Literal["pong"] = "pong"
    n: int


# --- host -> peer ----------------------------------------------------------


class Welcome(Msg):
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


class History(Msg):
    """Commands `start+1 ...` as `[seat, command]`, for a peer that joins a game already under way;
    `sealed`: the steps among them a stand-in bot decided (as their `delta.stand_in` said)."""

    t: Literal["history"] = "history"
    start: int
    entries: list[list[Any]]
    sealed: list[int] = Field(default_factory=list)


class RecapMsg(Msg):
    """After a `welcome`: the events of the latest steps up to `step`, as `[step, [event, ...]]`
    entries, oldest first (at most 32 KiB of them), so a peer's Log tells the story so far."""

    t: Literal["recap"] = "recap"
    step: int
    entries: list[list[Any]]


class SinceMsg(Msg):
    """After the `recap`, to a player back at the table: the last step they saw (`seen`, up to `step`
    now), how many steps after it the recap does not carry (`older`), and the steps after it a
    stand-in bot decided, as `[step, seat]` pairs, so their interface can say what happened since
    they left. Sent only when something did."""

    t: Literal["since"] = "since"
    seen: int
    step: int
    older: int = 0
    stand_in: list[list[int]] = Field(default_factory=list)


class Lobby(Msg):
    t: Literal["lobby"] = "lobby"
    table: Table


class Rejected(Msg):
    """The game refused a command (or a server's lobby a request); sent to its sender only. `code`
    is the core's `Rejected.code`, or a lobby's own (`bad_setup`, `slow_down`, `server_full`...)."""

    t: Literal["rejected"] = "rejected"
    seq: int
    code: str
    reason: str


class Delta(Msg):
    """Operations (see `net.delta`) turning the view at `seq - 1` into the view at `seq`, whose hash is `hash`."""

    t: Literal["delta"] = "delta"
    seq: int
    step: int
    ops: list[list[Any]]
    hash: str
    events: list[dict[str, Any]] = Field(default_factory=list)
    cmd: list[Any] | None = None  # [seat, command] that led to `step`; None: a take-back to `step`
    stand_in: bool = False  # a stand-in bot (or a turn clock's skip) decided `cmd` for its seat's person


class Snapshot(Msg):
    t: Literal["snapshot"] = "snapshot"
    seq: int
    view: dict[str, Any]
    hash: str


class Error(Msg):
    """A protocol-level problem (bad frame, bad message, refused hello). `fatal`: the host closes next."""

    t: Literal["error"] = "error"
    code: str
    reason: str
    fatal: bool = False
    details: list[str] = Field(default_factory=list)


class Redirect(Msg):
    """The table is run by another process of the same server (`cthulhu server` on a shared store):
    connect there and say the same hello. `tls_port`: its TLS port, for a peer on TLS (none: it
    has no TLS, and such a peer does not follow). The host closes after sending it."""

    t: Literal["redirect"] = "redirect"
    host: Annotated[str, Field(min_length=1, max_length=253)]
    port: Annotated[int, Field(ge=1, le=65535)]
    tls_port: Annotated[int, Field(ge=1, le=65535)] | None = None


class GameOverMsg(Msg):
    """The end, with the seed and the commitment's salt (hex) revealed so peers may verify every roll."""

    t: Literal["game_over"] = "game_over"
    outcome: str | None
    seed: int
    step: int
    state_hash: str
    salt: str | None = None


ToHost = Annotated[Union[Hello, CommandMsg, Undo, Back, SnapshotRequest, Chat, Ping, Pong, ListTables, CreateTable, NewLinkCode, LinkDoor,
                         ListRecords, ListChallenges, AskBoard, SubmitChallenge],
                   Field(discriminator="t")]
ToPeer = Annotated[
    Union[Welcome, History, RecapMsg, SinceMsg, Lobby, Rejected, Delta, Snapshot, Chat, Ping, Pong, Error, GameOverMsg, LobbyWelcome, TablesPage,
          Created, LinkCodeMsg, Linked, RecordsMsg, ChallengesMsg, BoardMsg, Entered, Redirect],
    Field(discriminator="t"),
]

_TO_HOST: TypeAdapter[Any] = TypeAdapter(ToHost)
_TO_PEER: TypeAdapter[Any] = TypeAdapter(ToPeer)
_HOST_TYPES = {"hello", "command", "undo", "back", "snapshot_request", "chat", "ping", "pong", "list_tables", "create_table", "new_link_code", "link",
               "list_records", "list_challenges", "challenge_board", "submit_challenge"}
_PEER_TYPES = {"welcome", "history", "recap", "since", "lobby", "rejected", "delta", "snapshot", "chat", "ping", "pong", "error", "game_over",
               "lobby_welcome", "tables", "created", "link_code", "linked",
               "records", "challenges", "board", "entered", "redirect"}
ALL_TYPES = _HOST_TYPES | _PEER_TYPES


# What a problem's place may name: the messages' own field names and pydantic's type tags. A map's
# key (a set-up option's name) came from the wire and is shown as "?": errors never echo input.
_MODELS = [model for space in (globals(), vars(lobbymessages)) for model in list(space.values())
           if isinstance(model, type) and issubclass(model, BaseModel)]
_PLACES = ALL_TYPES | {name for model in _MODELS for name in model.model_fields} | {"str", "int", "bool", "float", "bytes", "list[str]", "[key]"}


def _details(exc: ValidationError) -> list[str]:
    out = []
    for err in exc.errors(include_input=False, include_url=False, include_context=False)[:10]:
        loc = ".".join(str(p) if isinstance(p, int) or p in _PLACES else "?" for p in err["loc"])
        out.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return out


def _parse(adapter: TypeAdapter[Any], accepted: set[str], data: dict[str, Any]) -> Any:
    t = data.get("t")
    if t not in accepted:
        if t in ALL_TYPES:
            raise UnexpectedMessage(f"a {t!r} message is not accepted here")
        raise UnknownMessage("unknown message type" if isinstance(t, str) else "a message needs a 't' string")
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
