"""Length-prefixed msgpack frames, sans-IO.

A frame is a 4-byte big-endian body length followed by one msgpack map with a
string key ``"t"``. Each body is decoded on its own with a bounded ``unpackb``
(never a streaming ``Unpacker``), so a malformed body costs one answer and the
connection survives; only a bad *length* (zero or above the limit) loses the
stream's framing and must close the connection.

Every decode is bounded by a `DecodeLimits` (`net.limits`): the host reads a
connection's first frame with tiny limits, its later frames with small ones,
and peers read the host's frames with generous ones. The lengths are enforced
by msgpack at each header, before it allocates anything.

Decoded bodies are walked once to enforce a nesting depth and a closed set of
value types (no floats, no extension types): msgpack itself accepts ~1,000-deep
nesting, which later breaks ``repr``/``deepcopy`` with ``RecursionError``.
"""

from __future__ import annotations

import struct
from typing import Any

import msgpack

from .limits import HOST_FRAME, DecodeLimits

MAX_FRAME = HOST_FRAME.frame  # body bytes of the largest frame anyone sends
MAX_DEPTH = HOST_FRAME.depth  # containers inside containers, counting the top-level map as 1
HEADER = struct.Struct(">I")

_SCALARS = (str, int, bool, bytes, type(None))


class FrameError(Exception):
    """Something wrong with a frame. `fatal` errors lose the framing: close the connection."""

    code = "bad_frame"
    fatal = False

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class FrameTooLarge(FrameError):
    """The declared length is above the limit (or zero): the stream cannot be trusted any more."""

    code = "frame_too_large"
    fatal = True


class BadBody(FrameError):
    """The body is not valid msgpack (truncated, trailing bytes, unknown type byte...)."""

    code = "bad_msgpack"


class TooDeep(FrameError):
    """The body nests containers deeper than `MAX_DEPTH`."""

    code = "too_deep"


class BadShape(FrameError):
    """The body decodes but is not a map with a string ``"t"``, or holds a value type we never use."""

    code = "bad_shape"


def check_tree(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """Raise `TooDeep`/`BadShape` unless `value` is plain wire data (iterative: no recursion limit)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > max_depth:
                raise TooDeep(f"nesting deeper than {max_depth}")
            for k, v in item.items():
                if not isinstance(k, str):
                    raise BadShape("map keys must be strings")
                if not isinstance(v, _SCALARS):
                    stack.append((v, depth + 1))
        elif isinstance(item, list):
            if depth > max_depth:
                raise TooDeep(f"nesting deeper than {max_depth}")
            for v in item:
                if not isinstance(v, _SCALARS):
                    stack.append((v, depth + 1))
        elif not isinstance(item, _SCALARS):
            raise BadShape(f"values of type {type(item).__name__} are not allowed on the wire")


def decode_body(body: bytes, limits: DecodeLimits = HOST_FRAME) -> dict[str, Any]:
    """One frame body -> a checked dict with a string ``"t"``; raises a `FrameError` subclass."""
    if len(body) > limits.frame:
        raise FrameTooLarge(f"frame body of {len(body)} bytes is above {limits.frame}")
    try:
        obj = msgpack.unpackb(
            body,
            raw=False,
            use_list=True,
            strict_map_key=True,
            timestamp=0,
            max_str_len=limits.str_len,
            max_bin_len=limits.str_len,
            max_array_len=limits.array_len,
            max_map_len=limits.map_len,
            max_ext_len=0,
        )
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as exc:
        # StackError, ExtraData and FormatError are ValueError subclasses; name the class, never the input.
        raise BadBody(f"undecodable msgpack ({type(exc).__name__})") from None
    if not isinstance(obj, dict):
        raise BadShape("a frame body must be a map")
    check_tree(obj, limits.depth)
    t = obj.get("t")
    if not isinstance(t, str) or not t:
        raise BadShape("a frame body needs a string 't'")
    return obj


def encode_body(message: dict[str, Any]) -> bytes:
    body: bytes = msgpack.packb(message, use_bin_type=True)
    if len(body) > MAX_FRAME:
        raise FrameTooLarge(f"refusing to send a {len(body)}-byte frame (limit {MAX_FRAME})")
    return body


def encode_frame(message: dict[str, Any]) -> bytes:
    """A plain dict -> header + body. Raises `FrameTooLarge` rather than send what the peer must refuse."""
    body = encode_body(message)
    return HEADER.pack(len(body)) + body


class FrameDecoder:
    """Feed it bytes as they arrive; it hands back whole frames.

    `feed` returns a list whose items are either a decoded dict or a non-fatal
    `FrameError` (the caller answers it and carries on). A fatal error (bad
    length) is raised and the decoder refuses all further input. `limits` may
    be changed between calls (the host relaxes them after a valid hello);
    `max_frames` leaves later frames buffered, to be decoded under new limits.
    """

    def __init__(self, limits: DecodeLimits = HOST_FRAME) -> None:
        self.limits = limits
        self._buf = bytearray()
        self._failed: FrameError | None = None

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes | bytearray, *, max_frames: int | None = None) -> list[dict[str, Any] | FrameError]:
        if self._failed is not None:
            raise self._failed
        self._buf += data
        out: list[dict[str, Any] | FrameError] = []
        while len(self._buf) >= HEADER.size and (max_frames is None or len(out) < max_frames):
            (length,) = HEADER.unpack_from(self._buf)
            limit = self.limits.frame
            if length == 0 or length > limit:
                self._buf.clear()
                self._failed = FrameTooLarge(f"declared frame length {length} is outside 1..{limit}")
                raise self._failed
            end = HEADER.size + length
            if len(self._buf) < end:
                break
            body = bytes(self._buf[HEADER.size : end])
            del self._buf[:end]
            try:
                out.append(decode_body(body, self.limits))
            except FrameError as exc:
                out.append(exc)
        return out
