"""A challenge at a real server on 127.0.0.1 (port 0): today's are listed, a try is the save of the
whole game, sent in parts and replayed by the server before it enters the board; one try per
identity (a refused save is no try), none without an identity, a bot's game listed apart, and the
board the same after a restart."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
import trio

from cthulhu.net.lobbyclient import PART, open_lobby
from cthulhu.net.lobbymessages import BoardMsg, ChallengesMsg, Entered
from cthulhu.net.messages import Rejected
from cthulhu.savegame import release
from cthulhu.server import open_server

from support.challenge_saves import edited, save_bytes, today

pytestmark = pytest.mark.trio
NOON = datetime(2026, 12, 5, 12, 0, tzinfo=timezone.utc)


async def _serving(data, nursery):
    server = open_server(data, wall=lambda: NOON)
    port = await nursery.start(server.serve, 0, "127.0.0.1")
    return server, port


async def test_tries_are_checked_ranked_and_kept(tmp_path):
    day = today()
    won = save_bytes(day, "won", tmp_path, name="Ada")
    assert len(won) > PART  # sent in more than one part
    lost = save_bytes(day, "lost", tmp_path, name="Bob")
    slower = save_bytes(day, "won", tmp_path, name="Cy", first_seed=1)
    by_bot = save_bytes(day, "won", tmp_path, name="Dee", bot="heuristic")

    def other_seed(fields):
        fields["setup"]["seed"] += 1

    data = tmp_path / "data"
    async with trio.open_nursery() as nursery:
        server, port = await _serving(data, nursery)
        async with open_lobby("127.0.0.1", port, "Ada", ident="key-ada") as ada:
            listed = await ada.challenges()
            assert isinstance(listed, ChallengesMsg) and listed.today == "2026-12-05"
            row = next(r for r in listed.rows if r.id == day.id)
            assert (row.seed, row.mode, row.setup["difficulty"], row.entries, row.mine) == (day.setup.seed, "shamblers", "hard", 0, None)
            entered = await ada.submit(day.id, won)
            assert isinstance(entered, Entered) and (entered.rank, entered.outcome, entered.bots) == (1, "won", False), entered
            again = await ada.submit(day.id, won)
            assert isinstance(again, Rejected) and (again.code, again.reason) == ("already_entered", f"you have had your try at {day.id}")
            mine = next(r for r in (await ada.challenges()).rows if r.id == day.id)
            assert mine.entries == 1 and mine.mine is not None and mine.mine.outcome == "won"
        async with open_lobby("127.0.0.1", port, "Bob", ident="key-bob") as bob:
            forged = await bob.submit(day.id, edited(lost, other_seed))
            assert isinstance(forged, Rejected) and (forged.code, forged.reason) == ("forged", f"refused: its seed is not the one {day.id} names")
            assert isinstance(await bob.submit(day.id, lost), Entered)  # a refused save was no try
            closed = await bob.submit("daily-2026-11-01", lost)
            assert isinstance(closed, Rejected) and closed.code == "closed"
        for name, save in (("Cy", slower), ("Dee", by_bot)):
            async with open_lobby("127.0.0.1", port, name, ident=f"key-{name}") as lobby:
                assert isinstance(await lobby.submit(day.id, save), Entered)
        async with open_lobby("127.0.0.1", port, "nobody") as anonymous:
            refused = await anonymous.submit(day.id, won)
            assert isinstance(refused, Rejected) and refused.code == "no_identity"
            board = await anonymous.board(day.id)
        nursery.cancel_scope.cancel()
    server.store.close()
    release(data / "server.db")
    assert isinstance(board, BoardMsg) and board.total == 4
    ranked = [(r.rank, r.name, r.outcome, r.bots) for r in board.rows]
    assert ranked[2:] == [(3, "Bob", "lost", False), (None, "Dee", "won", True)]  # a win first, whatever its turns; a bot's apart
    first, second = board.rows[:2]
    assert {first.name, second.name} == {"Ada", "Cy"} and (first.rank, second.rank) == (1, 2)
    assert (first.turns, first.rerolls) <= (second.turns, second.rerolls)
    async with trio.open_nursery() as nursery:  # a restart: the board is the store's
        server, port = await _serving(data, nursery)
        async with open_lobby("127.0.0.1", port, "Ada", ident="key-ada") as ada:
            assert (await ada.board(day.id)).rows == board.rows
            assert isinstance(await ada.submit(day.id, won), Rejected)
        nursery.cancel_scope.cancel()
    server.store.close()
    release(data / "server.db")
