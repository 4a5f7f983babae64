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
    TooManyValues,
    check_bytes,
    decode_body,
    encode_frame,
)
from cthulhu.net.limits import FIRST_FRAME, PEER_FRAME, DecodeLimits

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


# ---- a peer's frames are walked as bytes before msgpack builds them --------------------------------


def _values_and_depth(value, depth: int = 1) -> tuple[int, int]:
    """What `check_bytes` bounds, counted on the decoded value itself: every map, array, key and
    scalar; and the nesting, the top-level map counting as 1."""
    if isinstance(value, dict):
        inner = [_values_and_depth(v, depth + 1) for v in value.values()]
        return 1 + len(value) + sum(n for n, _ in inner), max([depth, *(d for _, d in inner)])
    if isinstance(value, list):
        inner = [_values_and_depth(v, depth + 1) for v in value]
        return 1 + sum(n for n, _ in inner), max([depth, *(d for _, d in inner)])
    return 1, depth - 1


def test_the_byte_walk_counts_values_and_depth_exactly_as_the_decoded_value_has_them():
    rng = random.Random(23)
    limits = DecodeLimits(frame=1 << 20, str_len=1 << 16, array_len=1 << 10, map_len=1 << 10, depth=5, values=40)
    refused = accepted = 0
    for _ in range(3000):
        tree = {"t": "x", "v": _random_tree(rng)}
        values, depth = _values_and_depth(tree)
        body = msgpack.packb(tree, use_bin_type=True)
        if depth > limits.depth:
            with pytest.raises((TooDeep, TooManyValues)):  # whichever it meets first
                check_bytes(body, limits)
            refused += 1
        elif values > limits.values:
            with pytest.raises(TooManyValues):
                check_bytes(body, limits)
            refused += 1
        else:
            check_bytes(body, limits)
            assert decode_body(body, limits) == tree
            accepted += 1
    assert refused > 500 and accepted > 500  # both sides of each line were tried


def test_a_deeply_nested_frame_is_refused_before_msgpack_builds_a_list_of_it():
    """1 KB of nested 15-wide arrays: msgpack itself would build ~1,000 lists (about 180 KB) before
    failing, a quarter of a millisecond of the host's time. The walk refuses it at the ninth level."""
    import tracemalloc

    body = b"\x9f" * 1024
    tracemalloc.start()
    try:
        with pytest.raises(TooDeep):
            decode_body(body, PEER_FRAME)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4096, peak


@pytest.mark.parametrize(
    "body, error",
    [
        (msgpack.packb({"t": "command", "seq": 1, "command": {"kind": "x", **{f"a{n}": list(range(16)) for n in range(13)}}}), TooManyValues),
        (msgpack.packb({"t": "command", "seq": 1, "command": {"kind": "x", "d": [[[]] * 16] * 16}}), TooManyValues),
        (b"\xdc\x00\x10" * 1365, TooDeep),
        (b"\x81\xa1t" + b"\x91" * 1021, TooDeep),
        (b"\x81\xa1t\xc7\x01\x05z", BadBody),  # an extension type
        (b"\x82\xa1t\xa1x\xa1s\xdb\x00\x00\x10\x00", BadBody),  # a string longer than allowed (and than the frame)
        (b"\x83\xa1t\xa1x", BadBody),  # cut short
    ],
)
def test_what_a_peer_may_not_send_is_refused_by_the_walk_typed(body, error):
    with pytest.raises(error):
        check_bytes(body, PEER_FRAME)
    dec = FrameDecoder(PEER_FRAME)
    out = dec.feed(_body_frame(body) + encode_frame({"t": "ping", "n": 2}))
    assert isinstance(out[0], error) and not out[0].fatal and out[1] == {"t": "ping", "n": 2}


def test_every_real_message_passes_the_walk():
    """The frames peers really send are far inside the bounds: a hello with every field at its
    longest, the largest real command, chat of 500 four-byte characters."""
    hello = {"t": "hello", "proto": 2, "name": "\U0001f419" * 40, "code": "c" * 64, "seat": 3, "token": "t" * 64, "watch": False}
    assert decode_body(msgpack.packb(hello), FIRST_FRAME) == hello
    command = {"t": "command", "seq": 2**31, "version": 10**6, "command": {"kind": "pay", "chaos": 0, "color": "red", "madness": 0}}
    chat = {"t": "chat", "text": "\U0001f419" * 500}
    for message in (command, chat, {"t": "undo", "seq": 1, "version": 4}, {"t": "ping", "n": 1}):
        assert decode_body(msgpack.packb(message), PEER_FRAME) == message


def test_random_bytes_through_the_walk_are_typed_errors_or_what_msgpack_reads():
    rng = random.Random(11)
    for _ in range(3000):
        body = rng.randbytes(rng.randint(1, 80))
        for limits in (FIRST_FRAME, PEER_FRAME):
            try:
                decode_body(body, limits)
            except FrameError:
                pass
