"""The canonical encoding behind the state hash.

JSON with sorted keys and no floats is stable across machines and Python
versions and needs nothing outside the stdlib; BLAKE2b keeps it short.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_bytes(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def digest(data: Any) -> str:
    return hashlib.blake2b(canonical_bytes(data), digest_size=16).hexdigest()
