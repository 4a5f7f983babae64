"""Wire message models: round trips, strictness, typed refusals that never echo input."""

from __future__ import annotations

import pytest

from cthulhu.net.frames import FrameDecoder, encode_frame
from cthulhu.net.messages import (
    PROTOCOL_VERSION,
    ProtocolError,
    BadMessage,
    Chat,
    CommandMsg,
    Delta,
    Error,
    GameOverMsg,
    Hello,
    Lobby,
    Ping,
    Pong,
    Rejected,
    SeatInfo,
    Snapshot,
    SnapshotRequest,
    Table,
    UnexpectedMessage,
    UnknownMessage,
    Welcome,
    parse_to_host,
    parse_to_peer,
)

TABLE = Table(mode="main", seats=[SeatInfo(seat=0, kind="human", name="Ann", connected=True)])
TO_HOST = [
    Hello(proto=PROTOCOL_VERSION, name="Ann", code="abc", seat=1, token="tok"),
    CommandMsg(seq=3, version=7, command={"kind": "move", "to": "a"}),
    SnapshotRequest(seq=4, reason="hash"),
    Chat(text="hi"),
    Ping(n=1),
    Pong(n=2),
]
TO_PEER = [
    Welcome(proto=1, seat=0, token="tok", table=TABLE, seq=0, view={"a": [1]}, hash="h"),
    Lobby(table=TABLE),
    Rejected(seq=3, code="illegal", reason="no"),
    Delta(seq=1, step=1, ops=[["s", ["a"], 1], ["d", ["b"]]], hash="h", events=[{"type": "moved"}]),
    Snapshot(seq=2, view={}, hash="h"),
    Chat(text="hi", name="Ann", seat=0),
    Error(code="bad_frame", reason="x", fatal=True, details=["a: b"]),
    GameOverMsg(outcome="won", seed=7, step=10, state_hash="h"),
]


@pytest.mark.parametrize("msg", TO_HOST)
def test_to_host_round_trip_through_frames(msg):
    (data,) = FrameDecoder().feed(encode_frame(msg.wire()))
    assert parse_to_host(data) == msg


@pytest.mark.parametrize("msg", TO_PEER)
def test_to_peer_round_trip_through_frames(msg):
    (data,) = FrameDecoder().feed(encode_frame(msg.wire()))
    assert parse_to_peer(data) == msg


def test_unknown_and_unexpected_types():
    with pytest.raises(UnknownMessage):
        parse_to_host({"t": "launch_missiles"})
    with pytest.raises(UnexpectedMessage):
        parse_to_host({"t": "delta", "seq": 1, "step": 1, "ops": [], "hash": "h"})
    with pytest.raises(UnexpectedMessage):
        parse_to_peer({"t": "hello", "proto": 1, "name": "x"})


@pytest.mark.parametrize(
    "data",
    [
        {"t": "ping", "n": 1, "extra": 2},  # extra field
        {"t": "ping", "n": True},  # bool is not an int
        {"t": "ping", "n": "1"},
        {"t": "command", "seq": 1, "command": [1]},
        {"t": "hello", "proto": 1, "name": ""},
        {"t": "hello", "proto": 1, "name": "x" * 41},
        {"t": "chat", "text": "x" * 501},
    ],
)
def test_strict_validation(data):
    with pytest.raises(BadMessage) as info:
        parse_to_host(data)
    assert info.value.details


def test_errors_do_not_echo_input():
    secret = "SECRET-INPUT-VALUE"
    with pytest.raises(BadMessage) as info:
        parse_to_host({"t": "ping", "n": secret})
    assert secret not in info.value.reason and not any(secret in d for d in info.value.details)


@pytest.mark.parametrize("data", [
    {"t": "create_table", "seq": 1, "mode": "main", "options": {"secret_input_value": 5}},  # a map's key is input too
    {"t": "create_table", "seq": 1, "mode": "main", "options": {"secret_input_value": ["a", 7]}},
    {"t": "secret_input_value"},  # an unknown message type
])
def test_errors_do_not_echo_keys_or_types_from_the_wire(data):
    with pytest.raises(ProtocolError) as info:
        parse_to_host(data)
    said = [str(info.value), *getattr(info.value, "details", [])]
    assert not any("secret_input_value" in line for line in said), said


def test_the_protocol_document_speaks_of_this_version_and_these_limits():
    """net/PROTOCOL.md is what a third-party client is written from: its version, its handshake
    and its table of frame limits say what the code does."""
    import re
    from pathlib import Path

    from cthulhu.net.limits import FIRST_FRAME, HOST_FRAME, PEER_FRAME

    text = (Path(__file__).resolve().parents[2] / "net" / "PROTOCOL.md").read_text(encoding="utf-8")
    assert f"(version {PROTOCOL_VERSION})" in text.splitlines()[0]
    assert re.findall(r"hello\{proto: (\d+)", text) == [str(PROTOCOL_VERSION)]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[1].endswith(" B"):
            rows[cells[0]] = [c.replace(",", "").removesuffix(" B") for c in cells[1:]]
    for row, limits in (("a peer's first frame", FIRST_FRAME), ("a peer's later frames", PEER_FRAME), ("the host's frames", HOST_FRAME)):
        (cells,) = [v for k, v in rows.items() if k.startswith(row)]
        values = "—" if limits.values is None else str(limits.values)
        assert cells == [str(limits.frame), str(limits.str_len), str(limits.array_len), str(limits.map_len), str(limits.depth), values], row
