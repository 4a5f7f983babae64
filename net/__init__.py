"""The wire, both ends: frames, the messages and their checks, view deltas, the dice check, the
peer client and the lobby client, the limits and the gate, listening, seat tokens and codes, and
the words both ends say of clocks and rows. Below `table` (a table at run time) and every front end.

Other packages import these names from here (`from cthulhu.net import Hello`), never the modules.
Each module is loaded when one of its names is first asked for (PEP 562), so a command that only
cleans text does not load the peer client and trio with it; `tests/core/test_surface.py` holds the
names, the table below and the imports for the type checker to one another.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import tls
    from .budgets import Allowance, PrefixBudgets, SharedBudget, lobby_pace, pace, prefix_of
    from .client import LOST, RECONNECT_FOR, AfterDrop, ConnectionTrouble, PeerSession, TrioPeer, play_bot, reconnect_delays
    from .clock import AWAY_AFTER, MAX_AWAY_AFTER, ON_TIMEOUT, format_duration, pace_words, parse_duration
    from .commitment import DiceVerdict, public_setup
    from .delta import diff, view_hash
    from .frames import HEADER, MAX_FRAME, FrameDecoder, FrameError, FrameTooLarge, encode_body, encode_frame
    from .gate import Crowd, Gate, Quiet, Refusal
    from .invite import join_address, join_command, new_seat_token, new_table_code, new_table_id
    from .limits import Limits, TokenBucket
    from .listen import Doorstep, peer_address, read_hello, refuse, serve_listeners
    from .lobbyclient import Answer, LobbyClient, LobbyRefused, TrioLobby, every_record, open_lobby
    from .lobbymessages import (
        AskBoard, BoardMsg, BoardRow, ChallengeRow, ChallengesMsg, CreateTable, Created, Entered, LinkCodeMsg, LinkDoor,
        Linked, ListChallenges, ListRecords, ListTables, LobbyWelcome, NewLinkCode, RecordRow, RecordsMsg, SeatRow,
        SubmitChallenge, TableRow, TablesPage,
    )
    from .messages import (
        PROTOCOL_VERSION, Back, Chat, Clock, CommandMsg, Delta, Error, GameOverMsg, Hello, History, Lobby, Ping, Pong,
        ProtocolError, RecapMsg, Redirect, Rejected, SeatInfo, SinceMsg, Snapshot, SnapshotRequest, Table, Undo,
        UnexpectedMessage, Welcome, parse_to_host,
    )
    from .playagain import play_again_command
    from .route import RedirectRefused, Route
    from .rowwords import board_words, challenge_words, moving_words, output_width, record_line, table_lines, when_words
    from .seatstore import SeatStore
    from .textclean import CHAT_MAX, NAME_MAX, CleanFormatter, clean_chat, clean_name, clean_text, clean_tree
    from .thinking import decide, decide_off_loop
    from .tls import TlsFailed, failure, serve_tls
    from .wirebase import NotifyFormat, OnTimeout

# module -> the names other packages import from it
_FACE: dict[str, tuple[str, ...]] = {
    "budgets": ("Allowance", "PrefixBudgets", "SharedBudget", "lobby_pace", "pace", "prefix_of"),
    "client": ("LOST", "RECONNECT_FOR", "AfterDrop", "ConnectionTrouble", "PeerSession", "TrioPeer", "play_bot", "reconnect_delays"),
    "clock": ("AWAY_AFTER", "MAX_AWAY_AFTER", "ON_TIMEOUT", "format_duration", "pace_words", "parse_duration"),
    "commitment": ("DiceVerdict", "public_setup"),
    "delta": ("diff", "view_hash"),
    "frames": ("HEADER", "MAX_FRAME", "FrameDecoder", "FrameError", "FrameTooLarge", "encode_body", "encode_frame"),
    "gate": ("Crowd", "Gate", "Quiet", "Refusal"),
    "invite": ("join_address", "join_command", "new_seat_token", "new_table_code", "new_table_id"),
    "limits": ("Limits", "TokenBucket"),
    "listen": ("Doorstep", "peer_address", "read_hello", "refuse", "serve_listeners"),
    "lobbyclient": ("Answer", "LobbyClient", "LobbyRefused", "TrioLobby", "every_record", "open_lobby"),
    "lobbymessages": (
        "AskBoard", "BoardMsg", "BoardRow", "ChallengeRow", "ChallengesMsg", "CreateTable", "Created", "Entered",
        "LinkCodeMsg", "LinkDoor", "Linked", "ListChallenges", "ListRecords", "ListTables", "LobbyWelcome", "NewLinkCode",
        "RecordRow", "RecordsMsg", "SeatRow", "SubmitChallenge", "TableRow", "TablesPage",
    ),
    "messages": (
        "PROTOCOL_VERSION", "Back", "Chat", "Clock", "CommandMsg", "Delta", "Error", "GameOverMsg", "Hello", "History",
        "Lobby", "Ping", "Pong", "ProtocolError", "RecapMsg", "Redirect", "Rejected", "SeatInfo", "SinceMsg", "Snapshot",
        "SnapshotRequest", "Table", "Undo", "UnexpectedMessage", "Welcome", "parse_to_host",
    ),
    "playagain": ("play_again_command",),
    "route": ("RedirectRefused", "Route"),
    "rowwords": ("board_words", "challenge_words", "moving_words", "output_width", "record_line", "table_lines", "when_words"),
    "seatstore": ("SeatStore",),
    "textclean": ("CHAT_MAX", "NAME_MAX", "CleanFormatter", "clean_chat", "clean_name", "clean_text", "clean_tree"),
    "thinking": ("decide", "decide_off_loop"),
    "tls": ("TlsFailed", "failure", "serve_tls"),
    "wirebase": ("NotifyFormat", "OnTimeout"),
}
_WHERE = {name: module for module, names in _FACE.items() for name in names}
_NAMESPACES = ("tls",)  # modules used as a namespace of their own (`tls.client_context`), as trio has `trio.socket`

__all__ = [  # (written out: the type checker reads it)
    "AWAY_AFTER", "AfterDrop", "Allowance", "Answer", "AskBoard", "Back", "BoardMsg", "BoardRow", "CHAT_MAX", "ChallengeRow",
    "ChallengesMsg", "Chat", "CleanFormatter", "Clock", "CommandMsg", "ConnectionTrouble", "CreateTable", "Created", "Crowd",
    "Delta", "DiceVerdict", "Doorstep", "Entered", "Error", "FrameDecoder", "FrameError", "FrameTooLarge", "GameOverMsg",
    "Gate", "HEADER", "Hello", "History", "LOST", "Limits", "LinkCodeMsg", "LinkDoor", "Linked", "ListChallenges", "ListRecords",
    "ListTables", "Lobby", "LobbyClient", "LobbyRefused", "LobbyWelcome", "MAX_AWAY_AFTER", "MAX_FRAME", "NAME_MAX",
    "NewLinkCode", "NotifyFormat", "ON_TIMEOUT", "OnTimeout", "PROTOCOL_VERSION", "PeerSession", "Ping", "Pong",
    "PrefixBudgets", "ProtocolError", "Quiet", "RECONNECT_FOR", "RecapMsg", "RecordRow", "RecordsMsg", "Redirect", "RedirectRefused", "Refusal", "Rejected", "Route",
    "SeatInfo", "SeatRow", "SeatStore", "SharedBudget", "SinceMsg", "Snapshot", "SnapshotRequest", "SubmitChallenge", "Table",
    "TableRow", "TablesPage", "TlsFailed", "TokenBucket", "TrioLobby", "TrioPeer", "Undo", "UnexpectedMessage", "Welcome", "clean_chat",
    "board_words", "challenge_words", "clean_name", "clean_text", "clean_tree", "decide", "decide_off_loop", "diff", "encode_body", "encode_frame", "every_record", "failure",
    "format_duration", "join_address", "join_command", "lobby_pace", "moving_words", "new_seat_token", "new_table_code",
    "new_table_id", "open_lobby", "output_width", "pace", "pace_words", "parse_duration", "parse_to_host", "peer_address",
    "play_again_command", "play_bot", "prefix_of", "public_setup", "read_hello", "reconnect_delays", "record_line", "refuse",
    "serve_listeners", "serve_tls", "table_lines", "tls", "view_hash", "when_words",
]


if not TYPE_CHECKING:  # (the type checker reads the imports above: a name missing from them is an error)

    def __getattr__(name: str) -> Any:
        if name in _NAMESPACES:
            return importlib.import_module(f".{name}", __name__)
        module = _WHERE.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value  # once loaded, an attribute like any other
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
