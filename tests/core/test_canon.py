"""orjson and the standard library write the same canonical bytes, so every hash is the same with either.

The test environment installs orjson (the `test` extra), so both encoders are
exercised; the standard library's is the reference (`plain_bytes`).
"""

from __future__ import annotations

import pytest

from cthulhu.core import Game, Setup
from cthulhu.core import canon
from cthulhu.core.bots import make_bot
from cthulhu.core.sim import game_seed

AWKWARD = ["", "plain", 'quote " and \\ backslash', "tab\tnew\nline\rreturn\x08\x0c", "\x00\x01\x1f\x7f\x80",
           "ünïcödé ✓ 🐙 ﷽", "\u2028\u2029", "zzz", "Z", "a" * 300]


def _states_and_views() -> list[object]:
    out: list[object] = []
    for mode, players in (("main", 1), ("main", 3), ("shamblers", 2)):
        for n in range(6):
            game = Game.new(Setup(mode=mode, seed=game_seed(3, n), players=players))
            bots = {}
            while game.outcome is None and game.state.turn <= 12:
                if game.step % 7 == 0:
                    out += [game.canonical(), game.view(None), game.view(game.prompt.seat)]
                seat = game.prompt.seat
                bot = bots.setdefault(seat, make_bot("heuristic" if n % 2 else "random", mode, seat))
                game.apply(seat, bot.choose(game, seat))
            out += [game.canonical(), game.view(None)]
    return out


def test_the_fast_encoder_is_installed_here():
    assert canon.fast_bytes is not None and canon.canonical_bytes is canon.fast_bytes


def test_states_and_views_encode_to_the_same_bytes_both_ways():
    cases = _states_and_views()
    assert len(cases) > 300
    for data in cases:
        assert canon.fast_bytes(data) == canon.plain_bytes(data)


@pytest.mark.parametrize("text", AWKWARD)
def test_awkward_strings_as_keys_and_values(text):
    data = {text: [text, {"k": text, text + "x": 1}], "n": [0, -1, 2**63 - 1, -(2**63), True, False, None], "e": {}, "l": []}
    assert canon.fast_bytes(data) == canon.plain_bytes(data)


def test_what_orjson_refuses_is_answered_by_the_standard_library():
    for data in ({1: "a", 2: "b"}, {"big": 2**70}, [2**64]):
        assert canon.fast_bytes(data) == canon.plain_bytes(data)
    with pytest.raises(TypeError):
        canon.fast_bytes({"x": object()})


def test_keys_sort_alike():
    data = {text: n for n, text in enumerate(AWKWARD + ["é", "e", "ε", "\U0001f419", "\uffff"])}
    assert canon.fast_bytes(data) == canon.plain_bytes(data)
