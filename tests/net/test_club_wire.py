"""The lobby's messages for records and challenges on the wire: each goes through a frame and
back; a try's part as large as it may be fits a peer's frame; the largest answers the server
sends (a page of records naming three teams of five long names a row, a full board) fit the
host's frame."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from cthulhu.net.frames import FrameDecoder, encode_frame
from cthulhu.net.limits import PEER_FRAME
from cthulhu.net.lobbyclient import PART
from cthulhu.net.lobbymessages import (
    AskBoard, BoardMsg, BoardRow, ChallengeRow, ChallengesMsg, Entered, ListChallenges, ListRecords, RecordRow, RecordsMsg, SubmitChallenge,
)
from cthulhu.net.messages import parse_to_host, parse_to_peer
from cthulhu.server.challenge import BOARD_SIZE
from cthulhu.server.records import PAGE, TEAMS

NAME = "N" * 24  # a name is kept to 24 characters
BOARD_ROW = BoardRow(rank=100, name=NAME, outcome="won", turns=999, rerolls=999, bots=False, at="2026-12-05T23:59:59+00:00")
RECORD_ROW = RecordRow(mode="main", setup={"episode": "hollowmere_asylum", "elder_one": "cthulhu"},
                       about="Hollowmere Asylum, Cthulhu", players=5, bots=True, games=10**6, wins=10**6, fastest=999,
                       teams=[[NAME] * 5] * TEAMS)
TO_HOST = [ListRecords(seq=1, page=2), ListChallenges(seq=2), AskBoard(seq=3, challenge="weekly-2026-W49"),
           SubmitChallenge(seq=4, challenge="daily-2026-12-05", part=0, parts=3, data=bytes(range(256)) * 7)]
TO_PEER = [RecordsMsg(seq=1, page=0, pages=1, rows=[RECORD_ROW], refused=2),
           ChallengesMsg(seq=2, today="2026-12-05", rows=[ChallengeRow(id="daily-2026-12-05", kind="daily", first="2026-12-05",
                         last="2026-12-05", mode="shamblers", setup={"difficulty": "hard"}, about="Hard", seed=2**63 - 1, entries=3,
                         mine=BOARD_ROW)]),
           BoardMsg(seq=3, challenge="daily-2026-12-05", total=4, rows=[BOARD_ROW, BOARD_ROW.model_copy(update={"rank": None})]),
           Entered(seq=4, challenge="daily-2026-12-05", rank=None, outcome="lost", turns=3, rerolls=0, bots=True)]


@pytest.mark.parametrize("msg", TO_HOST, ids=lambda m: m.t)
def test_what_a_peer_asks_goes_through_a_peers_frame(msg):
    (data,) = FrameDecoder(PEER_FRAME).feed(encode_frame(msg.wire()))
    assert parse_to_host(data) == msg


@pytest.mark.parametrize("msg", TO_PEER, ids=lambda m: m.t)
def test_what_the_server_answers_goes_through_a_frame(msg):
    (data,) = FrameDecoder().feed(encode_frame(msg.wire()))
    assert parse_to_peer(data) == msg


def test_the_largest_part_and_the_largest_answers_fit_their_frames():
    part = SubmitChallenge(seq=2**31, challenge="x" * 32, part=511, parts=512, data=b"\xff" * PART)
    (data,) = FrameDecoder(PEER_FRAME).feed(encode_frame(part.wire()))
    assert parse_to_host(data) == part
    for answer in (RecordsMsg(seq=2**31, page=99, pages=100, rows=[RECORD_ROW] * PAGE, refused=10**6),
                   BoardMsg(seq=2**31, challenge="x" * 32, total=10**6, rows=[BOARD_ROW] * BOARD_SIZE)):
        (data,) = FrameDecoder().feed(encode_frame(answer.wire()))
        assert parse_to_peer(data) == answer
    with pytest.raises(ValidationError):
        SubmitChallenge(seq=1, challenge="x", part=0, parts=1, data=b"\xff" * (PART + 49))  # past what a part may hold
