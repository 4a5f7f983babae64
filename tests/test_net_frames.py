"""Frame codec: round trips and fuzzing (random bytes, truncation, nesting, huge lengths)."""

from __future__ import annotations

import random
import struct

import msgpack
import pytest

from cthulhu.net.frames import (
    HEADER,
    MAX_DEPTH,
    MAX_FRAME,
    BadBody,
    BadShape,
    FrameDecoder,
    FrameError,
    FrameTooLarge,
    TooDeep,
    decode_body,
    encode_frame,
)

SAMPLES = [
    {"t": "ping", "n": 1},
    {"t": "x", "a": [1, 2, [3, {"b": None}]], "s": "é" * 10, "bin": b"\x00\xff", "neg": -(2**63), "ok": True},
    {"t": "delta", "ops": [["s", ["a", 0], {"k": [1, 2]}], ["d", ["b"]]], "hash": "ab" * 16},
]


def _random_tree(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 5 or roll < 0.4:
        return rng.choice([None, True, False, rng.randint(-(2**40), 2**40), "s" * rng.randint(0, 5), b"b"])
    if roll < 0.7:
        return [_random_tree(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{i}": _random_tree(rng, depth + 1) for i in range(rng.randint(0, 4))}


@pytest.mark.parametrize("message", SAMPLES)
def test_round_trip_whole_and_byte_by_byte(message):
    frame = encode_frame(message)
    assert FrameDecoder().feed(frame) == [message]
    dec = FrameDecoder()
    got = []
    for i in range(len(frame)):
        got += dec.feed(frame[i : i + 1])
    assert got == [message]
    assert dec.buffered == 0


def test_random_trees_round_trip():
    rng = random.Random(1)
    dec = FrameDecoder()
    for _ in range(300):
        message = {"t": "x", "v": _random_tree(rng)}
        data = encode_frame(message)
        cut = rng.randint(0, len(data))
        assert dec.feed(data[:cut]) + dec.feed(data[cut:]) == [message]


def test_several_frames_in_one_chunk():
    data = b"".join(encode_frame(m) for m in SAMPLES)
    assert FrameDecoder().feed(data) == SAMPLES


@pytest.mark.parametrize("length", [0, MAX_FRAME + 1, 2**32 - 1])
def test_bad_declared_length_is_fatal_and_poisons(length):
    dec = FrameDecoder()
    with pytest.raises(FrameTooLarge) as info:
        dec.feed(struct.pack(">I", length) + b"\x80")
    assert info.value.fatal
    with pytest.raises(FrameTooLarge):
        dec.feed(encode_frame({"t": "ping", "n": 1}))


def test_refuses_to_encode_oversized():
    with pytest.raises(FrameTooLarge):
        encode_frame({"t": "x", "s": "a" * MAX_FRAME})


def _body_frame(body: bytes) -> bytes:
    return HEADER.pack(len(body)) + body


@pytest.mark.parametrize(
    "body, error",
    [
        (msgpack.packb({"t": "ping", "n": 1})[:-1], BadBody),  # truncated
        (msgpack.packb({"t": "ping"}) + b"\x01", BadBody),  # trailing byte
        (b"\xc1", BadBody),  # never-used type byte
        (msgpack.packb([1, 2]), BadShape),
        (msgpack.packb({"n": 1}), BadShape),
        (msgpack.packb({"t": 3}), BadShape),
        (msgpack.packb({1: 2, "t": "x"}), BadBody),  # int map key
        (msgpack.packb({"t": "x", "f": 1.5}), BadShape),  # floats never travel
        (msgpack.packb({"t": "x", "e": msgpack.ExtType(5, b"zz")}), BadBody),
        (b"\x91" * 2000 + b"\xc0", BadBody),  # deeper than msgpack's own stack
    ],
)
def test_bad_bodies_are_typed_and_the_stream_survives(body, error):
    dec = FrameDecoder()
    out = dec.feed(_body_frame(body) + encode_frame({"t": "ping", "n": 2}))
    assert len(out) == 2
    assert isinstance(out[0], error) and not out[0].fatal
    assert out[1] == {"t": "ping", "n": 2}


def test_deep_nesting_is_refused_after_decoding():
    deep: object = None
    for _ in range(900):
        deep = [deep]
    with pytest.raises(TooDeep):
        decode_body(msgpack.packb({"t": "x", "d": deep}))
    ok: object = None
    for _ in range(MAX_DEPTH - 1):
        ok = [ok]
    assert decode_body(msgpack.packb({"t": "x", "d": ok}))["d"] == ok


def test_random_bytes_never_escape_as_untyped_errors():
    rng = random.Random(7)
    for _ in range(2000):
        dec = FrameDecoder()
        blob = rng.randbytes(rng.randint(0, 200))
        try:
            out = dec.feed(blob)
        except FrameTooLarge:
            continue
        assert all(isinstance(x, (dict, FrameError)) for x in out)
        # random bodies behind a valid length must decode to a typed result too
        body = rng.randbytes(rng.randint(1, 100))
        out = FrameDecoder().feed(_body_frame(body))
        assert len(out) == 1 and isinstance(out[0], (dict, FrameError))
