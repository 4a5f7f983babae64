"""Deltas: diff/apply property test on random nested data, hashing, malformed operations."""

from __future__ import annotations

import copy
import random

import msgpack
import pytest

from cthulhu.net.delta import DeltaError, apply, diff, view_hash


def _tree(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 4 or roll < 0.35:
        return rng.choice([None, True, False, 0, 1, rng.randint(-5, 5), "a", "b", ""])
    if roll < 0.65:
        return [_tree(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {rng.choice("abcdef"): _tree(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def _mutate(rng: random.Random, value, depth: int = 0):
    """A nearby value: most of the tree kept, a few things changed."""
    if rng.random() < 0.1 or depth > 4:
        return _tree(rng, depth)
    if isinstance(value, dict):
        out = {k: (_mutate(rng, v, depth + 1) if rng.random() < 0.3 else v) for k, v in value.items() if rng.random() > 0.1}
        if rng.random() < 0.2:
            out[rng.choice("abcdefg")] = _tree(rng, depth + 1)
        return out
    if isinstance(value, list):
        out = [(_mutate(rng, v, depth + 1) if rng.random() < 0.3 else v) for v in value]
        if rng.random() < 0.2:
            out.append(_tree(rng, depth + 1))
        if out and rng.random() < 0.2:
            out.pop()
        return out
    return value


def _wire(x):
    """Through msgpack and back, as the mirror will see it."""
    return msgpack.unpackb(msgpack.packb(x), raw=False)


def test_diff_apply_property():
    rng = random.Random(42)
    for _ in range(3000):
        old = {"root": _tree(rng)}
        new = _mutate(rng, old)
        ops = diff(old, new)
        mirror = copy.deepcopy(old)
        got = apply(mirror, _wire(ops))
        assert got == new
        assert view_hash(got) == view_hash(new)
        assert old == {"root": old["root"]}  # diff did not mutate its input


def test_bool_and_int_are_different():
    ops = diff({"a": 1, "b": [True]}, {"a": True, "b": [1]})
    assert apply({"a": 1, "b": [True]}, ops) == {"a": True, "b": [1]}
    assert view_hash({"a": 1}) != view_hash({"a": True})


def test_no_ops_for_equal_views_and_small_delta_for_small_change():
    view = {"map": [{"id": i, "figures": [i, i + 1]} for i in range(50)], "step": 3}
    assert diff(view, copy.deepcopy(view)) == []
    new = copy.deepcopy(view)
    new["step"] = 4
    new["map"][7]["figures"].append(99)
    ops = diff(view, new)
    assert ops == [["s", ["map", 7, "figures", 2], 99], ["s", ["step"], 4]]
    assert len(msgpack.packb(ops)) * 10 < len(msgpack.packb(new))


def test_hash_ignores_key_order():
    assert view_hash({"a": 1, "b": 2}) == view_hash({"b": 2, "a": 1})


@pytest.mark.parametrize(
    "view, ops",
    [
        ({"a": 1}, [["d", ["b"]]]),
        ({"a": [1, 2]}, [["d", ["a", 0]]]),  # only from the end
        ({"a": [1]}, [["s", ["a", 5], 1]]),
        ({"a": 1}, [["s", ["a", "b"], 1]]),
        ({"a": {}}, [["s", ["a", 0], 1]]),
        ({"a": []}, [["s", ["a", True], 1]]),
        ({}, [["x", ["a"]]]),
        ({}, [["s", ["a"]]]),
        ({}, [["d", []]]),
        ({}, ["s"]),
        ({}, {"s": 1}),
        ({}, [["s", "a", 1]]),
    ],
)
def test_bad_ops_raise_delta_error(view, ops):
    with pytest.raises(DeltaError):
        apply(view, ops)


def test_root_set_replaces_view():
    assert apply({"a": 1}, [["s", [], {"b": 2}]]) == {"b": 2}


def test_view_hash_is_the_core_digest():
    from cthulhu.core.canon import digest

    rng = random.Random(3)
    for _ in range(200):
        v = {"v": _tree(rng), "s": "é"}
        assert view_hash(v) == digest(v)


def _reference_diff(old, new, path=()):
    """The plain rule the host's shortcuts must keep: recurse into containers, and set a whole
    container when it packs no larger than its piecewise operations."""
    if type(old) is not type(new):
        return [["s", list(path), new]]
    if isinstance(new, (dict, list)):
        if msgpack.packb(old) == msgpack.packb(new):
            return []
        sub = []
        if isinstance(new, dict):
            sub += [["d", [*path, k]] for k in old if k not in new]
            for k, v in new.items():
                sub += _reference_diff(old[k], v, (*path, k)) if k in old else [["s", [*path, k], v]]
        else:
            for i in range(min(len(old), len(new))):
                sub += _reference_diff(old[i], new[i], (*path, i))
            sub += [["s", [*path, i], new[i]] for i in range(len(old), len(new))]
            sub += [["d", [*path, i]] for i in range(len(old) - 1, len(new) - 1, -1)]
        if len(sub) > 1 and len(msgpack.packb(["s", list(path), new])) <= len(msgpack.packb(sub)):
            return [["s", list(path), new]]
        return sub
    return [] if old == new else [["s", list(path), new]]


def test_the_shortcuts_choose_what_packing_everything_would():
    """Shared parts are skipped by identity and sizes are bounded instead of packed, yet every
    diff is the one the plain rule gives (trees that keep most of their parts, as views do)."""
    rng = random.Random(11)
    for _ in range(3000):
        old = {"map": _tree(rng), "big": [_tree(rng) for _ in range(6)], "n": rng.randint(0, 3)}
        new = _mutate(rng, old)
        assert diff(old, new) == _reference_diff(old, new)
