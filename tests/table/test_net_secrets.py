"""Hidden information: record every frame of full games and search them for secrets.

Secrets are the seed, the PRNG state, and the order of every hidden pile (decks,
the tentacle/chaos bag, the Shambler track): whatever the canonical state keeps
under such a key at any step. Only `game_over` may reveal the seed.
"""

from __future__ import annotations

import re

import msgpack
import pytest
import trio

from cthulhu.net.client import PeerSession, TrioPeer, play_bot
from cthulhu.net.frames import FrameDecoder
from cthulhu.table import TableSpec, open_table

from support.net_games import MODES, make_game

pytestmark = pytest.mark.trio

SEED = 0x5EED_C0DE_1234_5678
SECRET_KEY = re.compile(r"(deck|bag|track)$")
RNG_KEYS = {"rng", "counters", "seed"}


class RecordingSession(PeerSession):
    def __post_init__(self) -> None:
        super().__post_init__()
        self.raw = bytearray()

    def receive_data(self, data: bytes):
        self.raw += data
        return super().receive_data(data)


def _hidden_orders(canonical, path=""):
    """Every list of 3+ items kept under a secret-sounding key of the canonical state."""
    if isinstance(canonical, dict):
        for k, v in canonical.items():
            p = f"{path}/{k}"
            if SECRET_KEY.search(str(k)) and "discard" not in p and isinstance(v, list) and len(v) >= 3:
                yield p, v
            else:
                yield from _hidden_orders(v, p)
    elif isinstance(canonical, list):
        for i, v in enumerate(canonical):
            yield from _hidden_orders(v, f"{path}/{i}")


def _walk(value):
    stack = [value]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)


CODE = "~table-code~"  # no id, token or hash can hold it by chance (a hex "c0de" could: a random table id once did)


@pytest.mark.parametrize("mode", MODES)
async def test_no_secret_in_any_frame_of_full_games(mode):
    game = make_game(mode, seed=SEED, players=3)
    hidden: dict[str, list] = {}

    def snapshot_secrets(*_):
        for path, order in _hidden_orders(game.canonical()["state"]):
            hidden[f"{path}@{game.step}"] = list(order)

    snapshot_secrets()
    assert mode == "main" or hidden, "the test must know at least one secret pile of this mode"
    sessions = []
    async with trio.open_nursery() as nursery:
        host = open_table(TableSpec(start=game, bots={2: "random"}, code=CODE))
        host.on_delta = snapshot_secrets
        await nursery.start(host.serve)

        async def one(i, watch=False):
            s = RecordingSession(f"p{i}", code=CODE, watch=watch)
            sessions.append(await play_bot("127.0.0.1", host.port, seed=i, session=s))

        async with trio.open_nursery() as peers:
            peers.start_soon(one, 0)
            peers.start_soon(one, 1)
            peers.start_soon(one, 9, True)
        nursery.cancel_scope.cancel()

    assert game.outcome is not None and len(sessions) == 3
    seed_bytes = [msgpack.packb(SEED), str(SEED).encode(), hex(SEED)[2:].encode()]
    salt = [host.dice.salt, host.dice.salt.hex().encode()]  # the commitment's salt opens it: the end only
    hidden_orders = {msgpack.packb(v) for v in hidden.values()}
    tokens = [s.token for s in sessions if s.token]
    for s in sessions:
        frames = FrameDecoder().feed(bytes(s.raw))
        assert frames and all(isinstance(f, dict) for f in frames)
        assert frames[-1]["t"] == "game_over" and frames[-1]["seed"] == SEED  # revealed at the end only
        assert frames[-1]["salt"] == host.dice.salt.hex()
        for frame in frames[:-1]:
            raw = msgpack.packb(frame)
            assert not any(b in raw for b in seed_bytes), f"seed in a {frame['t']} frame"
            assert not any(b in raw for b in salt), f"the commitment's salt in a {frame['t']} frame"
            assert CODE.encode() not in raw, "table code sent to a peer"
            for value in _walk(frame):
                if isinstance(value, dict):
                    assert not RNG_KEYS & value.keys(), f"rng state in a {frame['t']} frame"
                elif isinstance(value, list) and len(value) >= 3:
                    assert msgpack.packb(value) not in hidden_orders, f"a hidden pile's order in a {frame['t']} frame"
        others = [t for t in tokens if t != s.token]
        assert not any(t.encode() in bytes(s.raw) for t in others), "another seat's token leaked"


@pytest.mark.parametrize("mode", ["main", "shamblers"])
async def test_no_secret_in_what_a_peer_joining_mid_game_is_sent(mode):
    """The story so far (a `recap` of the latest events, replayed by the host) and the rest of a late
    welcome hold no seed, no RNG state and no hidden pile's order at any step played."""
    from dataclasses import replace

    from cthulhu.core.bots import make_bot
    from cthulhu.table.log import MemoryLog
    from cthulhu.table import Host
    from cthulhu.table import TableSpec
    from cthulhu.table.resolve import resolve

    game = make_game(mode, seed=SEED, players=3)
    log = MemoryLog()
    hidden: set[bytes] = set()
    bot = make_bot("random", mode, 3)
    while game.step < 60 and game.outcome is None:
        hidden |= {msgpack.packb(v) for _, v in _hidden_orders(game.canonical()["state"])}
        seat = game.prompt.seat
        cmd = bot.choose(game, seat)
        game.apply(seat, cmd)
        log.append(seat, cmd.wire(), game.state_hash())
    hidden |= {msgpack.packb(v) for _, v in _hidden_orders(game.canonical()["state"])}
    assert mode == "main" or hidden
    async with trio.open_nursery() as nursery:
        spec = TableSpec(start=game, code=CODE)
        host = Host(spec, replace(resolve(spec), log=log))  # a game under way, with the commands that made it
        await nursery.start(host.serve)
        late = RecordingSession("late", code=CODE, watch=True)
        peer = await TrioPeer.connect("127.0.0.1", host.port, late)
        with trio.fail_after(10):
            while not any(f.get("t") == "recap" for f in FrameDecoder().feed(bytes(late.raw))):
                await peer.receive()
        await peer.aclose()
        nursery.cancel_scope.cancel()
    frames = FrameDecoder().feed(bytes(late.raw))
    recap = next(f for f in frames if f["t"] == "recap")
    assert recap["entries"] and recap["step"] == game.step
    seed_bytes = [msgpack.packb(SEED), str(SEED).encode(), hex(SEED)[2:].encode()]
    for frame in frames:
        if frame["t"] == "game_over":
            continue  # a game already over reveals its seed (and only there)
        raw = msgpack.packb(frame)
        assert not any(b in raw for b in seed_bytes), f"seed in a {frame['t']} frame"
        assert CODE.encode() not in raw
        for value in _walk(frame):
            if isinstance(value, dict):
                assert not RNG_KEYS & value.keys(), f"rng state in a {frame['t']} frame"
            elif isinstance(value, list) and len(value) >= 3:
                assert msgpack.packb(value) not in hidden, f"a hidden pile's order in a {frame['t']} frame"
