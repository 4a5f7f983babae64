"""Absent players at a host: an away seat played by a bot until its player returns, a freed seat
taken by a new joiner, `away_bot` for a headless host, a token that outlives a changed table code,
and a second connection with the same token taking the seat over.

On in-memory streams and virtual time (pytest-trio's `autojump_clock`): "the table waits" is
checked after a virtual half minute in which nothing happened, never after a real sleep.
`test_net_host.py` plays the same host over real sockets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio
import trio.testing

from cthulhu.net.client import TrioPeer
from cthulhu.net.delta import view_hash
from cthulhu.table import SaveTo, StandIns, TableSpec
from cthulhu.savegame import load, resume, seek

from support.memory import MemoryTable, memory_table, play_to_the_end, play_until_seat_decides, until
from support.net_games import make_game

pytestmark = pytest.mark.trio
SAFETY = 600  # virtual seconds: a net against hangs (it costs no real time)


@asynccontextmanager
async def _table(*, seed: int, players: int, **spec) -> AsyncIterator[MemoryTable]:
    """A host serving a fresh main game on in-memory streams, under the safety net."""
    async with memory_table(TableSpec(start=make_game("main", seed=seed, players=players), **spec)) as table:
        with trio.fail_after(SAFETY):
            yield table


def _seat(peer: TrioPeer, index: int):
    return peer.session.table.seats[index]


async def test_an_away_seat_is_played_by_a_bot_until_its_player_returns(autojump_clock):
    async with _table(seed=3, players=2, code="c") as table:
        host = table.host
        game = host.game
        a, token = await _bob_leaves_as_his_turn_comes(table)
        await until(a, lambda: _seat(a, 1).name == "Bob" and not _seat(a, 1).connected)
        step = game.step
        assert game.prompt.seat == 1  # the table waits for Bob...
        host.hand_to_bot(1)  # ...until the host hands his seat to a bot
        await until(a, lambda: _seat(a, 1).stand_in and a.session.mirror.view["step"] > step)
        assert _seat(a, 1).kind == "human" and _seat(a, 1).name == "Bob"

        b = await table.connect("Bob", code="c", token=token)  # Bob is back: the bot leaves
        assert b.session.seat == 1 and b.session.mirror.view == game.view(1)
        await until(a, lambda: _seat(a, 1).connected and not _seat(a, 1).stand_in)
        assert host.seats[1].stand_in is None
        await play_until_seat_decides(a, 1)
        step = game.step
        await trio.sleep(30)  # virtual time: half a minute in which nothing may happen
        assert game.step == step and game.prompt.seat == 1  # Bob's decision waits for Bob again
        await until(b, lambda: b.session.my_prompt is not None)
        b.session.send_command(b.session.my_prompt["options"][0]["command"])
        await b.flush()
        await until(b, lambda: b.session.mirror.view["step"] > step)
        assert host.crashes == 0


async def test_a_freed_seat_refuses_the_old_token_and_goes_to_a_new_joiner(autojump_clock):
    async with _table(seed=3, players=2, code="c") as table:
        host = table.host
        a = await table.connect("Ann", code="c")
        b = await table.connect("Bob", code="c")
        token = b.session.token
        await b.aclose()
        await until(a, lambda: _seat(a, 1).name == "Bob" and not _seat(a, 1).connected)
        with pytest.raises(ValueError):
            host.free_seat(0)  # Ann is here: only an away seat can be freed
        host.free_seat(1)
        await until(a, lambda: _seat(a, 1).kind == "open")
        old = await table.connect("Bob", code="c", token=token)
        assert old.session.closed is not None and old.session.closed.code == "bad_token"
        cy = await table.connect("Cy", code="c")
        assert cy.session.seat == 1 and cy.session.token not in (None, token)
        await until(a, lambda: _seat(a, 1).name == "Cy" and _seat(a, 1).connected)


async def test_away_bot_hands_a_seat_over_by_itself_and_the_game_ends(autojump_clock):
    """A headless host (no dialog): `away_bot` seconds after a player leaves, a bot plays on."""
    async with _table(seed=5, players=2, code="c", stand_ins=StandIns(kind="random", after=20)) as table:
        host = table.host
        game = host.game
        b = await table.connect("Bob", code="c")
        await b.aclose()  # Bob leaves before anyone plays
        left = trio.current_time()
        ann = await play_to_the_end(await table.connect("Ann", code="c"))
        assert ann.game_over is not None and game.outcome is not None
        assert trio.current_time() - left >= 20  # the table waited the 20 (virtual) seconds first
        assert ann.seat == 1 and host.seats[0].stand_in is not None and ann.table.seats[0].stand_in


async def test_a_seat_token_outlives_a_new_table_code(autojump_clock):
    """A host restarted elsewhere with another code still gives its players their seats back."""
    async with _table(seed=3, players=2, code="first") as table:
        host = table.host
        a = await table.connect("Ann", code="first")
        token = a.session.token
        await a.aclose()
        host.code = "second"
        back = await table.connect("Ann", code="first", token=token)
        assert back.session.seat == 0 and back.session.closed is None
        stranger = await table.connect("Eve", code="first")
        assert stranger.session.closed is not None and stranger.session.closed.code == "bad_code"


async def test_the_same_token_from_a_second_connection_takes_the_seat_and_tells_the_first(autojump_clock):
    async with _table(seed=3, players=1) as table:
        host = table.host
        first = await table.connect("Ann")
        second = await table.connect("Ann", token=first.session.token)
        assert second.session.seat == 0
        while await first.receive():
            pass
        assert first.session.closed is not None and first.session.closed.code == "replaced"
        assert host.seats[0].peer.name == "Ann" and not host.seats[0].away


async def _bob_leaves_as_his_turn_comes(table: MemoryTable) -> tuple[TrioPeer, str]:
    """Ann and Bob sit down, Ann plays until Bob decides, Bob's connection closes: (Ann, Bob's token)."""
    a = await table.connect("Ann", code="c")
    b = await table.connect("Bob", code="c")
    token = b.session.token
    await play_until_seat_decides(a, 1)
    await b.aclose()
    return a, token


async def _stand_in_begins_bobs_run(table: MemoryTable) -> tuple[str, int]:
    """Bob leaves as his turn comes and a stand-in begins a Run for him
    (no die rolled, nothing drawn: Bob's own Run could be taken back), then leaves the seat to him.
    Returns Bob's token and the step before the Run."""
    host = table.host
    game = host.game
    a, token = await _bob_leaves_as_his_turn_comes(table)
    assert game.prompt.kind == "action"
    await until(a, lambda: not _seat(a, 1).connected)
    while not host.seats[1].away:  # the host has let go of Bob's connection
        await trio.sleep(0.01)  # virtual time

    class RunOnce:
        """Begins a Run for Bob, then leaves the seat."""

        def choose(self, g, seat):
            host.seats[1].stand_in = None
            return next(o.command for o in g.prompt.options if o.command.kind == "run")

    step = game.step
    host.seats[1].stand_in = RunOnce()
    host._wake()
    await until(a, lambda: a.session.mirror.view["step"] > step)
    assert game.prompt.seat == 1 and game.prompt.kind != "action"
    return token, step


async def test_a_returning_player_cannot_take_back_what_their_stand_in_decided(autojump_clock):
    """A stand-in bot's decisions are the table's, not its player's to undo: Bob comes back to a Run
    his stand-in began and is offered no take-back; one he asks for anyway is refused, naming why."""
    async with _table(seed=3, players=2, code="c") as table:
        game = table.host.game
        token, step = await _stand_in_begins_bobs_run(table)
        b = await table.connect("Bob", code="c", token=token)
        assert b.session.seat == 1 and b.session.my_prompt["undo"] == 0
        with pytest.raises(Exception, match="a bot decided for this seat while its player was away"):
            game.undo(1)
        b.session.send_undo()
        await b.flush()
        await until(b, lambda: bool(b.session.rejections))
        assert "a bot decided for this seat" in b.session.rejections[-1].reason and game.step == step + 1


async def test_a_stand_ins_line_is_saved_so_a_host_killed_and_loaded_shows_the_same_views(tmp_path):
    """The line under a stand-in's decisions is in the save as soon as the step is: a host killed
    then and loaded again (a full replay) or a seek gives every seat the view the peers were shown,
    and Bob still cannot take his stand-in's Run back. (On the real clock: the save is written in a
    worker thread, which an autojump clock cannot see.)"""
    path = tmp_path / "table.save"
    async with _table(seed=3, players=2, code="c", save=SaveTo(file=path, fsync=False)) as table:
        game = table.host.game
        await _stand_in_begins_bobs_run(table)
        shown = [view_hash(game.view(seat)) for seat in (0, 1)]
        assert game.view(1)["prompt"]["undo"] == 0
        save = load(path)  # what is on disk now, with Ann told of the step
        assert save.last_step == game.step
        for again in (resume(save), seek(save, save.last_step)):
            assert [view_hash(again.view(seat)) for seat in (0, 1)] == shown
            with pytest.raises(Exception, match="a bot decided for this seat while its player was away"):
                again.undo(1)


async def test_the_last_player_to_sit_down_is_welcomed_to_a_game_under_way(autojump_clock):
    """The welcome of whoever takes the last open seat already says the game has started, so their
    interface never shows a moment of "waiting for players" (and the first one's says it waits)."""
    async with _table(seed=3, players=2, code="c") as table:
        host = table.host
        a = await table.connect("Ann", code="c")
        assert a.session.table.started is False
        b = await table.connect("Bob", code="c")
        assert b.session.table.started is True and host.started.is_set()
        await until(a, lambda: a.session.table.started)


async def test_a_welcome_never_shows_a_step_still_being_saved(tmp_path):
    """A step is told only once it is on disk (a host killed then must not lose it), welcomes too:
    a spectator who arrives while Ann's step is being written (the disk held up: the test holds the
    save's write lock) is welcomed with the game as the save holds it, never a step ahead of it.
    (On the real clock: the save is written in a worker thread, which an autojump clock cannot see.)"""
    path = tmp_path / "table.save"
    async with _table(seed=3, players=1, code="c", save=SaveTo(file=path, fsync=False)) as table:
        host = table.host
        a = await table.connect("Ann", code="c")
        await until(a, lambda: a.session.my_prompt is not None)
        step = host.game.step
        seen: list[tuple[int, int]] = []  # (the welcome's step, the last step on disk when it came)

        async def watch() -> None:
            w = await table.connect("Cy", code="c", watch=True)
            seen.append((w.session.mirror.view["step"], load(path).last_step))
            await w.aclose()

        with host.saves._lock:  # the disk is slow: the write of Ann's step waits
            a.session.send_command(a.session.my_prompt["options"][0]["command"])
            await a.flush()
            while host.game.step == step:  # applied, not yet saved nor told
                await trio.sleep(0.01)
            table.nursery.start_soon(watch)
            await trio.testing.wait_all_tasks_blocked()
        await until(a, lambda: a.session.mirror.view["step"] > step)
        while not seen:
            await trio.sleep(0.01)
        ((told, on_disk),) = seen
        assert told <= on_disk, f"welcomed at step {told} with step {on_disk} on disk"
