"""Take-backs over real sockets: the deciding seat sends `undo`, the host applies it, every peer's
view follows hash-checked, the others read what was taken back, and the save holds the game as it
now stands (it verifies, and so do the dice)."""

from __future__ import annotations

import pytest
import trio

from cthulhu.core import Game, Setup
from cthulhu.core.rng import Rng
from cthulhu.net.client import PeerSession, TrioPeer, ViewBot, play_bot
from cthulhu.net.delta import view_hash
from cthulhu.table import SaveTo, TableSpec, open_table
from cthulhu.net.messages import Delta, Rejected
from cthulhu.savegame import load, replay

pytestmark = pytest.mark.trio


async def player(port: int, seat: int, *, undo_every: int, out: dict) -> None:
    """A bot peer at `seat` that, now and then, takes back what it may instead of choosing."""
    name, seed = f"p{seat}", seat
    session = PeerSession(name, seat=seat)
    chooser, dice = ViewBot("random", seed), Rng(seed + 500)
    peer = await TrioPeer.connect("127.0.0.1", port, session)
    answered = None
    out[name] = {"session": session, "undos": 0, "taken_back_seen": 0, "refused": 0}
    try:
        while session.game_over is None:
            messages = await peer.receive()
            if not messages:
                break
            for m in messages:
                if isinstance(m, Delta) and any(e.get("type") == "undone" for e in m.events):
                    out[name]["taken_back_seen"] += 1
                if isinstance(m, Rejected):
                    out[name]["refused"] += 1
                    answered = None
            prompt = session.my_prompt
            if prompt is None or prompt["version"] == answered or not (session.table and session.table.started):
                continue
            answered = prompt["version"]
            if prompt.get("undo", 0) > 0 and dice.below("undo", undo_every) == 0:
                session.send_undo()
                out[name]["undos"] += 1
            else:
                session.send_command(chooser.choose(session.mirror.view, session.table.mode), answered)
            await peer.flush()
    finally:
        await peer.aclose()
    await trio.to_thread.run_sync(session.verify_dice)


@pytest.mark.parametrize("mode", ["main", "shamblers"])
async def test_undos_over_real_sockets_keep_every_peer_in_step_and_the_save_faithful(mode, tmp_path):
    game = Game.new(Setup(mode=mode, seed=21, players=2))
    host = open_table(TableSpec(start=game, save=SaveTo(file=tmp_path / "undo.save", fsync=False)))
    host_hashes: dict[int | None, str] = {}
    host.on_delta = lambda seq, key, h: host_hashes.__setitem__(key, h)
    out: dict = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(host.serve)
        watcher = PeerSession("watcher", watch=True)
        wpeer = await TrioPeer.connect("127.0.0.1", host.port, watcher)

        async def watching() -> None:
            while watcher.game_over is None and await wpeer.receive():
                pass
            await wpeer.aclose()
            await trio.to_thread.run_sync(watcher.verify_dice)

        nursery.start_soon(watching)
        async with trio.open_nursery() as peers:
            for i in range(2):
                peers.start_soon(lambda i=i: player(host.port, i, undo_every=3, out=out))
        with trio.fail_after(30):
            while watcher.dice is None:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()

    undos = sum(o["undos"] for o in out.values())
    assert game.outcome is not None and undos >= 3, out
    sessions = [o["session"] for o in out.values()] + [watcher]
    for s in sessions:
        assert not s.mirror.stale and s.mirror.hash == view_hash(game.view(s.seat)) == host_hashes[s.seat]
        assert s.dice.verified, s.dice  # every take-back restored the table shown at its step
        assert len(s.record.commands) == game.step
    # Every peer read every take-back, whoever made it; refused ones were the only refusals.
    assert all(o["taken_back_seen"] == undos - sum(x["refused"] for x in out.values()) for o in out.values())
    assert watcher.record.commands == [(seat, wire) for seat, wire in host.story.record]
    save = load(tmp_path / "undo.save")
    assert save.last_step == game.step
    assert replay(save, verify=True).state_hash() == game.state_hash()
    assert save.dice is not None and save.dice.commit == host.dice.commit


async def test_an_undo_from_a_seat_that_is_not_deciding_or_after_a_reveal_is_refused_and_changes_nothing():
    game = Game.new(Setup(mode="main", seed=22, players=2))
    host = open_table(TableSpec(start=game))
    async with trio.open_nursery() as nursery:
        await nursery.start(host.serve)
        peers = []
        for name in ("a", "b"):
            p = await TrioPeer.connect("127.0.0.1", host.port, PeerSession(name))
            while not p.session.welcomed:
                await p.receive()
            peers.append(p)
        deciding = next(p for p in peers if p.session.seat == game.prompt.seat)
        other = next(p for p in peers if p is not deciding)
        before = game.state_hash()
        for p, why in ((other, "another seat is deciding"), (deciding, "nothing has been decided yet")):
            while p.session.table is None or not p.session.table.started or p.session.mirror.prompt is None:
                await p.receive()
            p.session.send_undo()
            await p.flush()
            while not p.session.rejections:
                await p.receive()
            assert p.session.rejections[-1].code == "cannot_undo" and why in p.session.rejections[-1].reason
        assert game.state_hash() == before and game.step == 0
        nursery.cancel_scope.cancel()


async def test_bots_never_take_anything_back():
    """A whole game of bots (in the host and as peers), watched: no take-back is ever made."""
    game = Game.new(Setup(mode="main", seed=23, players=2))
    host = open_table(TableSpec(start=game, bots={1: "heuristic"}))
    seen: list[str] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(host.serve)
        watcher = PeerSession("watcher", watch=True)
        wpeer = await TrioPeer.connect("127.0.0.1", host.port, watcher)

        async def watching() -> None:
            while watcher.game_over is None:
                messages = await wpeer.receive()
                if not messages:
                    break
                seen.extend(e.get("type") for m in messages if isinstance(m, Delta) for e in m.events)
            await wpeer.aclose()

        nursery.start_soon(watching)
        bot = await play_bot("127.0.0.1", host.port, bot="random", seed=4, name="bot peer")
        with trio.fail_after(30):
            while watcher.game_over is None:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    assert game.outcome is not None and bot.dice.verified and len(seen) > game.step
    assert "undone" not in seen
