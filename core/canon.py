"""The canonical encoding behind the state hash.

JSON with sorted keys and no floats is stable across machines and Python
versions and needs nothing outside the stdlib; BLAKE2b keeps it short.

`orjson`, when installed (`pip install 'cthulhu[fast]'`), writes the same bytes
about ten times faster: sorted keys, no spaces, UTF-8 unescaped, the same
escapes (tests/core/test_canon.py holds the two to the same bytes over states,
views and awkward strings). Anything it refuses (a key that is not a string,
an integer past 64 bits) goes to the standard library, which answers as it
always did. The standard library stays the reference: `plain_bytes`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

_PLAIN = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, check_circular=False)


def plain_bytes(data: Any) -> bytes:
    """The canonical bytes by the standard library alone (the reference)."""
    return _PLAIN.encode(data).encode()


def _fast_encoder() -> Callable[[Any], bytes] | None:
    try:
        import orjson
    except ImportError:
        return None
    dumps, sort = orjson.dumps, orjson.OPT_SORT_KEYS

    def fast_bytes(data: Any) -> bytes:
        try:
            out: bytes = dumps(data, option=sort)
        except TypeError:  # orjson.JSONEncodeError: not a shape orjson takes; the reference decides
            return plain_bytes(data)
        return out

    return fast_bytes


fast_bytes = _fast_encoder()  # None without orjson
canonical_bytes: Callable[[Any], bytes] = fast_bytes or plain_bytes


def digest(data: Any) -> str:
    return hashlib.blake2b(canonical_bytes(data), digest_size=16).hexdigest()
