"""Deltas between two views: set/remove operations at paths, and the view hash.

An operation is a short list, cheap on the wire:

* ``["s", path, value]`` sets the value at ``path`` (a list of map keys and
  list indices). An index equal to the list's length appends. The empty path
  replaces the whole view.
* ``["d", path]`` removes a map key or a list item (lists only shrink from
  the end, so indices of the items kept never move).

`diff` compares types as well as values (``True == 1`` in Python, not on the
wire) and falls back to one ``set`` of a whole container when that encodes
smaller than its piecewise operations. The hash is BLAKE2 over the canonical
encoding (`cthulhu.core.canon.digest`), so host and mirror agree whatever the
key order.
"""

from __future__ import annotations

from typing import Any

import msgpack

from cthulhu.core.canon import digest

Op = list[Any]
_pack = msgpack.Packer().pack  # one packer, reused: creating one per call costs more than packing


class DeltaError(Exception):
    """An operation that does not fit the view it is applied to (the mirror must resync)."""

    code = "bad_delta"


def view_hash(view: Any) -> str:
    """`cthulhu.core.canon.digest(view)`: the hash a delta or a welcome carries."""
    return digest(view)


def diff(old: Any, new: Any) -> list[Op]:
    """Operations that turn `old` into `new` (``apply(old, diff(old, new)) == new``)."""
    out: list[Op] = []
    if type(old) is dict and type(new) is dict and old is not new:
        _diff_map(old, new, [], out)  # a view's root differs at every step (its `step`): not compared whole first
    else:
        _diff(old, new, [], out)
    return out


def _diff(old: Any, new: Any, path: list[Any], out: list[Op]) -> None:
    if old is new:
        return  # views share their unchanging parts (the map, the reference cards): skip them whole
    kind = type(new)
    if type(old) is not kind:
        out.append(["s", path, new])
    elif kind is dict or kind is list:
        if old == new and (_same_parts(old, new) or _pack(old) == _pack(new)):
            return  # `==` is C-speed but says True == 1; the same parts, or else the packed bytes, tell them apart
        if kind is dict:
            _diff_map(old, new, path, out)
        else:
            _diff_list(old, new, path, out)
    elif old != new:
        out.append(["s", path, new])


def _diff_map(old: dict[str, Any], new: dict[str, Any], path: list[Any], out: list[Op]) -> None:
    sub: list[Op] = []
    for k in old:
        if k not in new:
            sub.append(["d", [*path, k]])
    floor = 1  # bytes the whole map packs to besides the values `sub` sets: its header, keys, shared parts
    for k, v in new.items():
        floor += 1 + len(k)
        if k in old:
            was = old[k]
            if was is v:
                if type(v) is dict or type(v) is list:
                    floor += _shared_size(v)
                continue
            if type(v) is dict or type(v) is list or type(was) is not type(v):
                _diff(was, v, [*path, k], sub)
            elif was != v:  # a scalar changed: what `_diff` says of it, without the call
                sub.append(["s", [*path, k], v])
        else:
            sub.append(["s", [*path, k], v])
    _emit(sub, path, new, out, floor)


def _diff_list(old: list[Any], new: list[Any], path: list[Any], out: list[Op]) -> None:
    sub: list[Op] = []
    n_old, n_new = len(old), len(new)
    for i in range(min(n_old, n_new)):
        _diff(old[i], new[i], [*path, i], sub)
    if n_new > n_old:
        sub.extend(["s", [*path, i], new[i]] for i in range(n_old, n_new))
    else:
        sub.extend(["d", [*path, i]] for i in range(n_old - 1, n_new - 1, -1))
    _emit(sub, path, new, out, 1)


def _same_parts(old: Any, new: Any) -> bool:
    """Whether two equal containers hold the very same objects (a view rebuilds a list around the
    parts it keeps from the step before: then nothing inside can differ, not even True from 1)."""
    if isinstance(new, list):
        return all(a is b for a, b in zip(old, new))
    return all(old[k] is v for k, v in new.items())


def _emit(sub: list[Op], path: list[Any], new: Any, out: list[Op], floor: int) -> None:
    """Keep the piecewise operations unless one whole `set` is smaller.

    The values `sub` sets are disjoint parts of `new`, so `new` packs to at least their bytes plus
    `floor` (what else it surely holds), and `sub` to their bytes plus its own framing (headers,
    kinds, paths): when `floor` is above that framing, the whole cannot be smaller and is not packed
    (a view's root holds the parts every step shares, so it is almost never packed)."""
    if len(sub) > 1:
        framing = (1 if len(sub) < 16 else 3 if len(sub) < 65536 else 5) + sum(3 + len(_pack(op[1])) for op in sub)
        if floor > framing:
            out.extend(sub)
            return
        whole: Op = ["s", path, new]
        if len(_pack(whole)) <= len(_pack(sub)):
            out.append(whole)
            return
    out.extend(sub)


# Packed sizes of the parts views share by identity from step to step (the map, the reference
# cards), so `_emit` need not pack them again; bounded. Views are read-only: a part changed in
# place would keep a stale size, which only makes a delta larger than it could be, never wrong.
_sizes: dict[int, tuple[Any, int]] = {}


def _shared_size(value: Any) -> int:
    entry = _sizes.get(id(value))
    if entry is not None and entry[0] is value:
        return entry[1]
    if len(_sizes) >= 4096:
        _sizes.clear()
    size = len(_pack(value))
    _sizes[id(value)] = (value, size)
    return size


def _key(container: Any, key: Any, how: str) -> Any:
    """Check `key` against `container` for `how` in ("get", "set", "del")."""
    if isinstance(container, dict):
        if not isinstance(key, str):
            raise DeltaError(f"map key {key!r} is not a string")
        if how != "set" and key not in container:
            raise DeltaError(f"no key {key!r}")
        return key
    if isinstance(container, list):
        if not isinstance(key, int) or isinstance(key, bool):
            raise DeltaError(f"list index {key!r} is not an integer")
        limit = len(container) + 1 if how == "set" else len(container)
        if not 0 <= key < limit:
            raise DeltaError(f"list index {key} out of range")
        if how == "del" and key != len(container) - 1:
            raise DeltaError("list items are only removed from the end")
        return key
    raise DeltaError(f"cannot index into a {type(container).__name__}")


def apply(view: Any, ops: list[Op]) -> Any:
    """Apply `ops` to `view` in place where possible; return the (possibly new) root.

    Raises `DeltaError` on the first operation that does not fit; the view may
    then be partly changed, which is why a failing mirror asks for a snapshot.
    """
    root = view
    if not isinstance(ops, list):
        raise DeltaError("operations must be a list")
    for op in ops:
        if not isinstance(op, list) or len(op) not in (2, 3) or op[0] not in ("s", "d"):
            raise DeltaError("an operation is ['s', path, value] or ['d', path]")
        kind, path = op[0], op[1]
        if not isinstance(path, list) or (kind == "s") != (len(op) == 3):
            raise DeltaError("an operation is ['s', path, value] or ['d', path]")
        if not path:
            if kind == "d":
                raise DeltaError("cannot remove the whole view")
            root = op[2]
            continue
        parent = root
        for key in path[:-1]:
            parent = parent[_key(parent, key, "get")]
        last = _key(parent, path[-1], "set" if kind == "s" else "del")
        if kind == "d":
            del parent[last]
        elif isinstance(parent, list) and last == len(parent):
            parent.append(op[2])
        else:
            parent[last] = op[2]
    return root
