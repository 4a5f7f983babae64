"""What the host does per command, made cheaper without changing a byte of what it says (issue 39):
the state hash reads the state without copying it, a delta frame is written as plain data (the same
bytes the message model writes) and never validated, and one write scope serves every write to a
peer (only a write that waits counts toward `send_timeout`)."""

from __future__ import annotations

import random

import pytest
import trio
import trio.testing

from cthulhu.core import Game, Setup
from cthulhu.core.canon import digest
from cthulhu.net import Delta, FrameDecoder, Gate, Limits, Quiet, encode_frame, view_hash
from cthulhu.net.delta import apply
from cthulhu.net.messages import parse_to_peer
from cthulhu.table.broadcast import Views
from cthulhu.table.peers import Peer, Serving, serve_peer


def _played(mode: str, seed: int, players: int):
    """A random game of `mode`, yielded after every step."""
    rng = random.Random(seed)
    game = Game.new(Setup(mode=mode, seed=seed, players=players))
    while game.outcome is None:
        prompt = game.prompt
        assert prompt is not None
        events = game.apply(prompt.seat, rng.choice(prompt.options).command)
        yield game, prompt.seat, events


@pytest.mark.parametrize("mode, players", [("main", 5), ("shamblers", 2)])
def test_the_state_hash_is_the_digest_of_the_canonical_state_at_every_step(mode, players):
    for seed in (1, 2):
        steps = 0
        for game, _seat, _events in _played(mode, seed, players):
            assert game.state_hash() == digest(game.canonical()), f"seed {seed} step {game.step}"
            steps += 1
        assert steps > 20


def test_the_main_game_hashes_its_state_without_copying_it():
    """`Rules.hashed` shares the state's own lists and dicts (read at once, let go); `canonical`
    still hands out a copy to keep."""
    game = Game.new(Setup(mode="main", seed=3, players=4))
    state = game.state
    hashed = game.rules.hashed(state)
    kept = game.rules.canonical(state)
    assert hashed == kept
    assert hashed["mythos_deck"] is state.mythos_deck and hashed["investigators"][0]["levels"] is state.investigators[0].levels
    assert kept["mythos_deck"] is not state.mythos_deck and kept["investigators"][0]["levels"] is not state.investigators[0].levels


def test_a_delta_frame_is_the_one_the_message_model_writes_and_no_model_is_built_for_it(monkeypatch):
    built: list[object] = []
    model_init = Delta.__init__

    def counted(self, **data):
        built.append(data)
        model_init(self, **data)

    monkeypatch.setattr(Delta, "__init__", counted)
    seq = 0
    for game, seat, events in _played("main", 4, 5):
        if seq == 0:
            views = Views(game)
            mirror = views.now(0).view
        seq += 1
        told = [e.wire() for e in events]
        stand_in = seq % 7 == 0
        frames = views.delta([0, 1, 2, 3, 4, None], seq, told, [seat, {"kind": "x"}], stand_in=stand_in)
        assert not built, "the host validated a delta it built itself"
        (digest_, frame), = set(frames.values())  # one frame for the whole table, the same bytes for everyone
        [decoded] = FrameDecoder().feed(frame)
        msg = parse_to_peer(decoded)  # what a peer checks of it
        assert isinstance(msg, Delta) and msg.hash == digest_ and msg.seq == seq and msg.step == game.step and msg.stand_in == stand_in
        assert encode_frame(msg.wire()) == frame
        mirror = apply(mirror, msg.ops)
        assert view_hash(mirror) == digest_ == view_hash(game.view(0))
        built.clear()
        if seq == 40:
            break
    assert seq == 40


async def _serve(limits: Limits):
    """A peer served over a lockstep pair (a write waits until the other end reads): its client end."""
    client, server = trio.testing.lockstep_stream_pair()
    gate = Gate(limits, trio.current_time)
    peer = Peer.new(1, "p", 0, "10.0.0.1", limits, Quiet())

    async def hear(_peer, _msg):
        pass

    serving = Serving(limits, gate.allowance, hear, lambda _frame: None)
    return client, peer, serving, lambda: serve_peer(server, peer, FrameDecoder(limits.peer_frame), serving)


@pytest.mark.trio
async def test_only_a_write_that_waits_counts_toward_the_send_timeout(autojump_clock):
    limits = Limits(send_timeout=5.0, idle_timeout=1000.0, pong_timeout=1000.0)
    client, peer, _serving, serve = await _serve(limits)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve)
        await trio.sleep(60)  # nothing to write for far longer than the timeout: no write waited
        assert not peer.gone
        for n in range(3):
            assert peer.push(encode_frame({"t": "pong", "n": n}))
            await trio.sleep(4)  # each write waits 4 s for the reader: less than the timeout
            assert [f["n"] for f in FrameDecoder().feed(await client.receive_some())] == [n]
            assert not peer.gone
        start = trio.current_time()
        assert peer.push(encode_frame({"t": "pong", "n": 9}))  # and nobody reads this one
        while not peer.gone:
            await trio.sleep(0.5)
        assert trio.current_time() - start == pytest.approx(5.0, abs=0.6)
        nursery.cancel_scope.cancel()
