"""The messages of a server's lobby (`cthulhu server`): its listing of tables, a new table, the
codes that link one door's identity to another's, the club's records and the challenges' boards.

A peer sends them after a lobby hello, never at a table; `net.messages` parses them with the rest
(its two unions hold them), so the same strict checks and the same errors apply.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from .wirebase import Msg, NotifyFormat, OnTimeout, Query, TableId


class SeatRow(BaseModel):
    """One seat in a lobby listing: who holds it (a person's name, a bot's kind) and whether they are
    there. `status`: `open`, `person` (connected), `bot`, `away` (a person's seat waiting for them),
    `stand_in` (a stand-in bot plays a person's seat now: their clock ran out, or they left and the
    table handed it over)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seat: int
    name: str | None = None
    status: Literal["open", "person", "bot", "away", "stand_in"]


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
    away_after: int | None = None  # missed turns in a row before a stand-in keeps a seat (turn-based, on_timeout stand-in)
    deadline: str | None = None  # ISO 8601 UTC: when the seat in `to_move` runs out of time (null: nobody must decide)
    paused: bool = False  # the clock is stopped: out of time with on_timeout pause, or no person played for a whole round


class ListTables(Msg):
    """Lobby: one page of the tables the asker may see, newest activity first, those with open seats
    leading. `query` matches words of the mode, the set-up, the players' names and the id; `mine`:
    only the tables where the asker's identity holds a seat or that it made (where it is their move
    first); `finished`: False leaves out the tables whose game is over."""

    t: Literal["list_tables"] = "list_tables"
    seq: int
    query: Query = ""
    page: Annotated[int, Field(ge=0, le=100_000)] = 0
    size: Annotated[int, Field(ge=1, le=100)] = 20
    mine: bool = False
    finished: bool = True


class CreateTable(Msg):
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
    away_after: Annotated[int, Field(ge=1, le=100)] = 3  # missed turns in a row before a stand-in keeps a seat (stand-in)
    notify: Annotated[str, Field(min_length=1, max_length=1000)] | None = None  # a URL POSTed to when a person's move begins
    notify_format: NotifyFormat = "json"  # the body its receiver takes: ours, or a Discord, Slack or Matrix message


class NewLinkCode(Msg):
    """Lobby: a one-time code that links another door (the SSH or web door's lobby) to the asker's
    identity; answered with `link_code`, or `rejected` (an anonymous asker has nothing to link)."""

    t: Literal["new_link_code"] = "new_link_code"
    seq: int


class LinkDoor(Msg):
    """Lobby: `code` came from another door's `new_link_code`: this identity becomes that one (its
    name, its tables); answered with `linked`, or `rejected` (`bad_link_code`)."""

    t: Literal["link"] = "link"
    seq: int
    code: Annotated[str, Field(min_length=1, max_length=32)]


class LobbyWelcome(Msg):
    """A server's answer to a lobby hello: its name, the name this identity is known by there (chosen
    once, at its first visit), and how many tables it lists."""

    t: Literal["lobby_welcome"] = "lobby_welcome"
    proto: int
    server: str
    name: str
    tables: int = 0


class TablesPage(Msg):
    """One page of a lobby listing (`page` of `pages`, `total` tables matched)."""

    t: Literal["tables"] = "tables"
    seq: int
    page: int
    pages: int
    total: int
    rows: list[TableRow]


class Created(Msg):
    """A table was created: its id, and for a private table the code its joiners need."""

    t: Literal["created"] = "created"
    seq: int
    id: str
    code: str | None = None


class LinkCodeMsg(Msg):
    """The one-time code asked for (`new_link_code`), good until `expires` (ISO 8601 UTC) and once."""

    t: Literal["link_code"] = "link_code"
    seq: int
    code: str
    expires: str


class Linked(Msg):
    """This door is now the identity the code came from: `name` is its name from now on."""

    t: Literal["linked"] = "linked"
    seq: int
    name: str


class ListRecords(Msg):
    t: Literal["list_records"] = "list_records"
    seq: int
    page: Annotated[int, Field(ge=0, le=100_000)] = 0


class ListChallenges(Msg):
    t: Literal["list_challenges"] = "list_challenges"
    seq: int


class RecordRow(Msg):
    """One scenario and player count (bots' games apart): games, wins, the fastest win in turns, its first three teams."""

    mode: str
    setup: dict[str, str]
    about: str
    players: int
    bots: bool
    games: int
    wins: int
    fastest: int | None = None
    teams: list[list[str]] = Field(default_factory=list)


class RecordsMsg(Msg):
    """The club's records (`refused`: finished games whose saves did not verify, counted nowhere)."""

    t: Literal["records"] = "records"
    seq: int
    page: int
    pages: int
    rows: list[RecordRow]
    refused: int = 0


class BoardRow(Msg):
    """One try on a board: `rank` counts people's games only (None: a bot's, listed apart)."""

    rank: int | None
    name: str
    outcome: str
    turns: int
    rerolls: int
    bots: bool
    at: str


class ChallengeRow(Msg):
    """A challenge taking tries: its set-up and (public) seed, how many tried, the asker's own try."""

    id: str
    kind: str
    first: str
    last: str
    mode: str
    setup: dict[str, str | list[str]]
    about: str
    seed: int
    entries: int
    mine: BoardRow | None = None


class ChallengesMsg(Msg):
    t: Literal["challenges"] = "challenges"
    seq: int
    today: str
    rows: list[ChallengeRow]


class AskBoard(Msg):
    t: Literal["challenge_board"] = "challenge_board"
    seq: int
    challenge: TableId  # (a challenge's name: 1 to 32 characters, as a table's id)


class BoardMsg(Msg):
    t: Literal["board"] = "board"
    seq: int
    challenge: str
    total: int
    rows: list[BoardRow]


class SubmitChallenge(Msg):
    """One part of a try's save (`part` of `parts`, in order); answered once, after the last."""

    t: Literal["submit_challenge"] = "submit_challenge"
    seq: int
    challenge: TableId  # (a challenge's name: 1 to 32 characters, as a table's id)
    part: Annotated[int, Field(ge=0, le=511)]
    parts: Annotated[int, Field(ge=1, le=512)]
    data: Annotated[bytes, Field(min_length=1, max_length=2000)]


class Entered(Msg):
    """A try checked and on the board: its `rank` among people (None: a bot's, or below the first 100)."""

    t: Literal["entered"] = "entered"
    seq: int
    challenge: str
    rank: int | None
    outcome: str
    turns: int
    rerolls: int
    bots: bool
