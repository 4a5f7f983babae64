"""The story so far (issue 22): a peer that joins mid-game, or a game loaded from its save, is
told the latest events, rebuilt by replaying the command log on the host; bounded, and after a
dropped connection only what was missed."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import msgpack
import pytest
import trio

from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.net.client import PeerSession, TrioPeer
from cthulhu.net.frames import FrameDecoder
from cthulhu.table import Host
from cthulhu.net.limits import HOST_FRAME
from cthulhu.table.log import MemoryLog
from cthulhu.net.messages import RecapMsg
from cthulhu.table.recap import RECAP_BYTES, Recap
from cthulhu.table import TableSpec, open_table
from cthulhu.table.resolve import resolve

MODES = ["main", "shamblers"]


def played(mode: str, steps: int, seed: int = 5, players: int = 2) -> tuple[Game, MemoryLog, list[tuple[int, list[dict]]]]:
    """A game `steps` commands in, its command log, and the events of every step (as peers were sent them)."""
    game = Game.new(Setup(mode=mode, seed=seed, players=players))
    log = MemoryLog()
    told = [(0, [e.wire() for e in game.start_events])]
    bots = {seat: make_bot("heuristic", mode, seed + seat) for seat in range(players)}
    while game.step < steps and game.outcome is None:
        seat = game.prompt.seat
        cmd = bots[seat].choose(game, seat)
        events = game.apply(seat, cmd)
        log.append(seat, cmd.wire(), game.state_hash())
        told.append((game.step, [e.wire() for e in events]))
    return game, log, [(n, evs) for n, evs in told if evs]


def host_of(game: Game, log: MemoryLog) -> Host:
    """The host of a game that comes with the commands that made it, as a loaded save does."""
    spec = TableSpec(start=game)
    return Host(spec, replace(resolve(spec), log=log))


async def recap_of(port: int) -> tuple[RecapMsg, bytes]:
    """A watcher's recap message and its raw frame."""
    session = PeerSession("late", watch=True)
    raw = bytearray()
    peer = await TrioPeer.connect("127.0.0.1", port, session)
    try:
        with trio.fail_after(60):  # a safety net only: a loaded machine is slow, never wrong
            while True:
                data = await peer.stream.receive_some(65536)
                raw += data
                for msg in session.receive_data(data):
                    if isinstance(msg, RecapMsg):
                        frame = next(f for f in FrameDecoder(HOST_FRAME).feed(bytes(raw)) if f.get("t") == "recap")
                        return msg, msgpack.packb(frame)
    finally:
        await peer.aclose()


@pytest.mark.trio
@pytest.mark.parametrize("mode", MODES)
async def test_a_watcher_who_joins_mid_game_is_told_the_latest_steps_as_they_were_told(mode):
    game, log, told = played(mode, 40)
    host = host_of(game, log)
    async with trio.open_nursery() as nursery:
        await nursery.start(host.serve)
        recap, frame = await recap_of(host.port)
        nursery.cancel_scope.cancel()
    entries = [(n, evs) for n, evs in recap.entries]
    assert recap.step == game.step and entries and entries[-1][0] == game.step
    assert entries == told[-len(entries):]  # the newest steps, each with exactly the events its delta carried
    assert len(frame) <= RECAP_BYTES + 64  # bounded, far inside the host's frame limit
    assert sum(len(evs) for _, evs in entries) <= Recap().limit


@pytest.mark.trio
async def test_the_recap_follows_play_and_forgets_what_was_taken_back():
    game, log, told = played("main", 0, players=1)
    host = host_of(game, log)
    async with trio.open_nursery() as nursery:
        await nursery.start(host.serve)
        player = await TrioPeer.connect("127.0.0.1", host.port, PeerSession("Ann"))
        with trio.fail_after(60):  # a safety net only: a loaded machine is slow, never wrong
            while player.session.my_prompt is None:
                await player.receive()
            before = game.step
            run = next(o["command"] for o in player.session.my_prompt["options"] if o["command"]["kind"] == "run")
            player.session.send_command(run)
            await player.flush()
            while game.step == before or player.session.mirror.view.get("step") != game.step:
                await player.receive()  # the take-back names the prompt this peer was shown: wait for it to arrive
            assert host.story.recap.step == before + 1  # the step just played is part of the story
            player.session.send_undo()
            await player.flush()
            while game.step != before:
                await player.receive()
        recap, _ = await recap_of(host.port)
        await player.aclose()
        nursery.cancel_scope.cancel()
    assert not player.session.rejections
    assert recap.step == before and recap.entries[-1][0] <= before  # the step taken back is no part of it


def test_a_recap_keeps_whole_steps_within_its_bounds():
    recap = Recap(limit=10)
    for step in range(1, 20):
        recap.add(step, [{"type": "x", "n": step}] * 3)
    assert sum(len(evs) for _, evs in recap.entries) <= 10 and recap.step == 19
    assert [n for n, _ in recap.entries] == [17, 18, 19]
    assert [n for n, _ in recap.newest(budget=60)] == [19]  # the frame takes the newest that fit
    recap.cut(17)
    assert recap.step == 17


def test_every_stand_in_decision_after_the_step_seen_is_told_even_past_what_the_recap_keeps():
    recap = Recap(limit=10)
    for step in range(1, 20):
        recap.add(step, [{"type": "x", "n": step}] * 3, stand_in=0 if step % 4 == 0 else None)
    assert recap.floor == 16  # steps 1 to 16 are no longer told...
    since = recap.since(seen=5, step=19)
    assert since.older == 11 and since.stand_in == [[8, 0], [12, 0], [16, 0]]  # ...but each decision made for seat 0 is counted
    assert recap.since(seen=12, step=19).stand_in == [[16, 0]]


def test_a_dropped_watcher_is_told_what_it_missed_once_and_nothing_twice():
    """A watcher's connection is cut while bots play on; back at the table, its link delivers the
    missed steps as `Earlier` news: every event of the game reaches it once, in order."""
    from support.tui_drive import told_events

    from cthulhu.table import ThreadedHost
    from cthulhu.tui.link import Earlier
    from cthulhu.tui.netlink import JoinAs, NetLink

    async def main() -> None:
        game = Game.new(Setup(mode="shamblers", seed=3, players=1))
        embedded = ThreadedHost(open_table(TableSpec(start=game, bots={0: "heuristic"}, bot_delay=0.02)))
        port = await embedded.start()
        link = NetLink(JoinAs(host="127.0.0.1", port=port, watch=True))
        got: list[dict] = []
        missed = 0  # events told as earlier ones after the first update: the steps played while away
        try:
            first = await link.open()
            got += told_events(first)
            updates = link.updates()
            cut = False
            while True:
                update = await asyncio.wait_for(updates.__anext__(), 30)
                got += told_events(update)
                missed += len(told_events(update)) if isinstance(update, Earlier) else 0
                if not cut and game.step >= 10:
                    cut = True
                    link._conns[0].writer.close()  # the connection drops; the link comes back by itself
                if update.view.get("outcome"):
                    break
            assert cut and missed > 0
        finally:
            await link.close()
            await embedded.stop()
        everything = Recap.replayed(game, embedded.host.story.record, limit=10**6).events()
        assert got == everything

    asyncio.run(asyncio.wait_for(main(), 90))
