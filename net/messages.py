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

PROTOCOL_VERSION = 5

Name = Annotated[str, Field(min_length=1, max_length=40)]
Secret = Annotated[str, Field(min_length=1, max_length=64)]
TableId = Annotated[str, Field(min_length=1, max_length=32)]
Query = Annotated[str, Field(max_length=80)]


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


OnTimeout = Literal["stand-in", "skip", "pause"]


class Clock(BaseModel):
    """A turn-based table's clock, as it stands when the frame is sent. `seat` must decide by
    `deadline` (ISO 8601 UTC; null with `seat`: nobody must decide, or the table is paused);
    `left_ms`: the time left then, for a peer to count down on its own clock (clocks differ).
    `paused`: the clock ran out and the table waits for that seat's player (`on_timeout` pause)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    turn_time: int  # seconds per decision
    on_timeout: OnTimeout = "stand-in"
    seat: int | None = None
    deadline: str | None = None
    left_ms: int | None = None
    paused: bool = False


class SeatRow(BaseModel):
    """One seat in a lobby listing: who holds it (a person's name, a bot's kind) and whether they are
    there. `status`: `open`, `person` (connected), `bot`, `away` (a person's seat waiting for them)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seat: int
    name: str | None = None
    status: Literal["open", "person", "bot", "away"]


class TableRow(BaseModel):
    """A table as a server's lobby lists it. `setup` holds the set-up choices made (ids, by option
    name; the mode's defaults for the rest) and `about` the same in words ("The Wexley Mill Fire,
    Hastur"); `to_move` the seats that must decide now; `last_move` is ISO 8601 UTC. `mine` are the
    asker's own seats there, and `code` (a private table's) is told only to its creator."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str
    mode: str
    setup: dict[str, str | list[str]]
    about: str = ""
    seats: list[SeatRow]
    step: int = 0
    to_move: list[int] = Field(default_factory=list)
    finished: bool = False
    outcome: str | None = None
    last_move: str | None = None
    created: str | None = None
    private: bool = False
    code: str | None = None
    mine: list[int] = Field(default_factory=list)
    watchers: int = 0
    pace: Literal["live", "turn-based"] = "live"
    turn_time: int | None = None  # seconds per decision (turn-based)
    on_timeout: OnTimeout | None = None
    deadline: str | None = None  # ISO 8601 UTC: when the seat in `to_move` runs out of time (null: nobody must decide)


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


# --- peer -> host ----------------------------------------------------------


class Hello(_Msg):
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


class ListTables(_Msg):
    """Lobby: one page of the tables the asker may see, newest activity first, those with open seats
    leading. `query` matches words of the mode, the set-up, the players' names and the id; `mine`:
    only the tables where the asker's identity holds a seat (where it is their move first)."""

    t: Literal["list_tables"] = "list_tables"
    seq: int
    query: Query = ""
    page: Annotated[int, Field(ge=0, le=100_000)] = 0
    size: Annotated[int, Field(ge=1, le=100)] = 20
    mine: bool = False


class CreateTable(_Msg):
    """Lobby: a new table. `options` are the set-up choices the mode declares (`Mode.options`),
    by name; the last `bots` seats are played by `bot` bots; `private`: it is listed only to the
    ones who sit at it, and joiners need the code the answer carries. No floats on the wire: the
    bots' pause is in milliseconds."""

    t: Literal["create_table"] = "create_table"
    seq: int
    mode: Annotated[str, Field(min_length=1, max_length=32)]
    options: dict[str, str | list[str]] = Field(default_factory=dict)
    seats: Annotated[int, Field(ge=1, le=5)] = 4
    bots: Annotated[int, Field(ge=0, le=5)] = 0
    bot: Annotated[str, Field(min_length=1, max_length=32)] | None = None
    bot_delay_ms: Annotated[int, Field(ge=0, le=60_000)] = 500
    private: bool = False
    turn_time: Annotated[int, Field(ge=1, le=60 * 86_400)] | None = None  # seconds per decision; None: live
    on_timeout: OnTimeout = "stand-in"
    notify: Annotated[str, Field(min_length=1, max_length=1000)] | None = None  # a URL POSTed to when a person's move begins


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


class Back(_Msg):
    """The sender's player is back at the seat a turn clock's stand-in plays (their connection
    stayed open): the stand-in leaves, and the next decision is theirs again."""

    t: Literal["back"] = "back"


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


class SinceMsg(_Msg):
    """After the `recap`, to a player back at the table: the last step they saw (`seen`, up to `step`
    now), how many steps after it the recap does not carry (`older`), and the steps after it a
    stand-in bot decided, as `[step, seat]` pairs, so their interface can say what happened since
    they left. Sent only when something did."""

    t: Literal["since"] = "since"
    seen: int
    step: int
    older: int = 0
    stand_in: list[list[int]] = Field(default_factory=list)


class Lobby(_Msg):
    t: Literal["lobby"] = "lobby"
    table: Table


class LobbyWelcome(_Msg):
    """A server's answer to a lobby hello: its name, the name this identity is known by there (chosen
    once, at its first visit), and how many tables it lists."""

    t: Literal["lobby_welcome"] = "lobby_welcome"
    proto: int
    server: str
    name: str
    tables: int = 0


class TablesPage(_Msg):
    """One page of a lobby listing (`page` of `pages`, `total` tables matched)."""

    t: Literal["tables"] = "tables"
    seq: int
    page: int
    pages: int
    total: int
    rows: list[TableRow]


class Created(_Msg):
    """A table was created: its id, and for a private table the code its joiners need."""

    t: Literal["created"] = "created"
    seq: int
    id: str
    code: str | None = None


class Rejected(_Msg):
    """The game refused a command (or a server's lobby a request); sent to its sender only. `code`
    is the core's `Rejected.code`, or a lobby's own (`bad_setup`, `slow_down`, `server_full`...)."""

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
    stand_in: bool = False  # a stand-in bot (or a turn clock's skip) decided `cmd` for its seat's person


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


ToHost = Annotated[Union[Hello, CommandMsg, Undo, Back, SnapshotRequest, Chat, Ping, Pong, ListTables, CreateTable], Field(discriminator="t")]
ToPeer = Annotated[
    Union[Welcome, History, RecapMsg, SinceMsg, Lobby, Rejected, Delta, Snapshot, Chat, Ping, Pong, Error, GameOverMsg, LobbyWelcome, TablesPage,
          Created],
    Field(discriminator="t"),
]

_TO_HOST: TypeAdapter[Any] = TypeAdapter(ToHost)
_TO_PEER: TypeAdapter[Any] = TypeAdapter(ToPeer)
_HOST_TYPES = {"hello", "command", "undo", "back", "snapshot_request", "chat", "ping", "pong", "list_tables", "create_table"}
_PEER_TYPES = {"welcome", "history", "recap", "since", "lobby", "rejected", "delta", "snapshot", "chat", "ping", "pong", "error", "game_over",
               "lobby_welcome", "tables", "created"}
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
