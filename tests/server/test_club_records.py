"""The club's records at a server: a table's game counts once it is over and its save replays
(people's games and games with a bot in rows of their own), the results are the store's (a
restart replays nothing it counted), a finished game nobody counted yet (a server from before
the records, or stopped first) is counted at the start, and a save that does not verify is
counted apart, never ranked."""

from __future__ import annotations

import sqlite3

import pytest
import trio

from cthulhu.net.lobbymessages import RecordsMsg, TablesPage
from cthulhu.net.messages import Rejected

from support.challenge_saves import edited
from support.memory import create, memory_server, play_to_the_end

pytestmark = pytest.mark.trio


async def _records(ms, count: int) -> RecordsMsg:
    """The records, asked again (on virtual time) until `count` games are in them, counted or refused."""
    for _ in range(600):
        lobby = await ms.lobby("Ada", "key-ada")
        answer = await lobby.records()
        assert isinstance(answer, RecordsMsg)
        if sum(row.games for row in answer.rows) + answer.refused >= count:
            return answer
        await trio.sleep(1)
    raise AssertionError(f"the records never held {count} games: {answer}")


def _rows(answer: RecordsMsg) -> list[tuple]:
    return [(r.mode, r.setup, r.about, r.players, r.bots, r.games, r.wins, r.fastest, r.teams) for r in answer.rows]


async def test_finished_games_are_counted_from_their_saves_and_kept(tmp_path, clock):
    data = tmp_path / "data"
    async with memory_server(data) as ms:
        lobby = await ms.lobby("Ada", "key-ada")
        alone = await create(lobby, mode="shamblers", options={"difficulty": "easy"}, seats=1, bots=0)
        with_bot = await create(lobby, mode="shamblers", options={"difficulty": "easy"}, seats=2, bots=1)
        ends = {}
        for table in (alone, with_bot):
            session = await play_to_the_end(await ms.peer(table.id, "Ada", ident="key-ada"))
            ends[table.id] = session.game_over
        first = await _records(ms, 2)
    people, bots = sorted(first.rows, key=lambda r: r.bots)
    assert (people.mode, people.setup, people.about, people.players, people.bots, people.games) == ("shamblers", {"difficulty": "easy"}, "Easy", 1, False, 1)
    assert (bots.players, bots.bots, bots.games) == (2, True, 1) and first.refused == 0
    for row, table in ((people, alone), (bots, with_bot)):
        won = ends[table.id].outcome == "won"
        assert row.wins == int(won) and (row.fastest is not None) == won and row.teams == ([["Ada"]] if won and row is people else
                                                                                              [["Ada", "random bot"]] if won else [])

    db = sqlite3.connect(data / "server.db")
    with db:
        db.execute("DELETE FROM results WHERE table_id = ?", (alone.id,))  # as a server from before the records left it
    db.close()
    saves = data / "tables"
    tampered = saves / f"{with_bot.id}.save"

    def other_first_command(fields):
        """The first two neighbouring steps whose commands differ, swapped (swapping two equal ones,
        as a bot's first two steps may be, would change nothing)."""
        steps = fields["steps"]
        n = next(n for n in range(len(steps) - 1) if steps[n]["command"] != steps[n + 1]["command"])
        steps[n]["command"], steps[n + 1]["command"] = steps[n + 1]["command"], steps[n]["command"]

    tampered.write_bytes(edited(tampered.read_bytes(), other_first_command))
    async with memory_server(data) as ms:
        again = await _records(ms, 2)
    assert _rows(again) == _rows(first)  # the table counted again from its save; the other from the store, not replayed

    db = sqlite3.connect(data / "server.db")
    with db:
        db.execute("DELETE FROM results WHERE table_id = ?", (with_bot.id,))
    db.close()
    async with memory_server(data) as ms:
        last = await _records(ms, 2)
    assert last.refused == 1 and _rows(last) == _rows(first)[:1]  # the edited save is no record


async def test_a_game_kept_in_postgresql_is_counted_from_its_rows(tmp_path, clock, pg_url):
    """In PostgreSQL the saves are rows, not files: a finished game there is a record like any other
    (it was read from a file that is not there, and refused as a save that does not verify)."""
    async with memory_server(tmp_path / "data", store_url=pg_url) as ms:
        lobby = await ms.lobby("Ada", "key-ada")
        table = await create(lobby, mode="shamblers", options={"difficulty": "easy"}, seats=1, bots=0)
        await play_to_the_end(await ms.peer(table.id, "Ada", ident="key-ada"))
        answer = await _records(ms, 1)
    assert answer.refused == 0 and [(r.players, r.bots, r.games) for r in answer.rows] == [(1, False, 1)]
    assert not (tmp_path / "data" / "tables" / f"{table.id}.save").exists()  # (no file was read)


async def test_a_store_that_cannot_answer_is_one_line_and_the_server_goes_on(tmp_path, clock, caplog):
    data = tmp_path / "data"
    async with memory_server(data) as ms:
        db = sqlite3.connect(data / "server.db")
        with db:
            db.execute("DROP TABLE results")  # the records' table gone under the running server
            db.execute("DROP TABLE challenge_entries")
        db.close()
        lobby = await ms.lobby("Ada", "key-ada")
        for answer in (await lobby.records(), await lobby.challenges()):
            assert isinstance(answer, Rejected) and (answer.code, answer.reason) == (
                "store_trouble", "the server cannot read or write its records just now; try again later")
        assert isinstance(await lobby.tables(), TablesPage)  # the lobby, and the server, go on
        await create(lobby)
    assert "the store could not answer for the records or a challenge: no such table: results" in caplog.text
