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

A peer's frames are also walked over as bytes *before* msgpack sees them
(`check_bytes`): their nesting depth and their number of values are bounded
there, because msgpack builds every container it reads and accepts ~1,000-deep
nesting. Building and then throwing away 1,000 nested lists is what made a
1 KB frame cost the host more than a whole command (a quarter of a
millisecond and more; README "Hostile peers"); the walk costs about a
microsecond per ten values and stops at the first one too many. Decoded
bodies are then walked once more for a closed set of value types (no floats,
no extension types) and, for the host's own large frames, the depth.
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


class TooManyValues(FrameError):
    """The body holds more values (maps, arrays, keys and scalars) than `DecodeLimits.values`."""

    code = "too_many_values"


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


# How each first byte of a msgpack value is laid out: (kind, n). Scalars take n bytes in all; strings and
# binaries have their length in the n bytes after the first (n = 0: a fix-str, length in the byte itself);
# arrays and maps have their count likewise. Extension types and the never-used 0xc1 are refused.
_SCALAR, _BYTES, _ARRAY, _MAP, _REFUSED = range(5)


def _layout() -> tuple[tuple[int, int], ...]:
    table = [(_REFUSED, 0)] * 256
    for byte in [*range(0x00, 0x80), *range(0xE0, 0x100), 0xC0, 0xC2, 0xC3]:  # fixints, nil, false, true
        table[byte] = (_SCALAR, 1)
    for byte in range(0x80, 0x90):
        table[byte] = (_MAP, 0)
    for byte in range(0x90, 0xA0):
        table[byte] = (_ARRAY, 0)
    for byte in range(0xA0, 0xC0):
        table[byte] = (_BYTES, 0)
    for byte, size in ((0xCA, 5), (0xCB, 9), (0xCC, 2), (0xCD, 3), (0xCE, 5), (0xCF, 9), (0xD0, 2), (0xD1, 3), (0xD2, 5), (0xD3, 9)):
        table[byte] = (_SCALAR, size)  # floats pass here and are refused by type after decoding
    for byte, size in ((0xC4, 1), (0xC5, 2), (0xC6, 4), (0xD9, 1), (0xDA, 2), (0xDB, 4)):
        table[byte] = (_BYTES, size)
    for byte, kind, size in ((0xDC, _ARRAY, 2), (0xDD, _ARRAY, 4), (0xDE, _MAP, 2), (0xDF, _MAP, 4)):
        table[byte] = (kind, size)
    return tuple(table)


_LAYOUT = _layout()


def check_bytes(body: bytes, limits: DecodeLimits) -> None:
    """Walk a body's msgpack structure without building it: `TooManyValues`, `TooDeep` or `BadBody`
    as soon as it breaks `limits.values` or `limits.depth` (or is cut short, or holds an extension)."""
    budget = limits.values
    if budget is None:
        return
    end, pos, left = len(body), 0, 1  # `left`: values still to come in the innermost open container
    outer: list[int] = []  # `left` of each container around it
    layout, from_bytes, most = _LAYOUT, int.from_bytes, limits.depth
    while True:
        while left == 0:
            if not outer:
                return  # trailing bytes, if any, are msgpack's to refuse
            left = outer.pop()
        if pos >= end:
            raise BadBody("undecodable msgpack (cut short)")
        budget -= 1
        if budget < 0:
            raise TooManyValues(f"more than {limits.values} values in one frame")
        left -= 1
        kind, size = layout[body[pos]]
        if kind == _SCALAR:
            pos += size
        elif kind == _BYTES:
            length = from_bytes(body[pos + 1 : pos + 1 + size], "big") if size else body[pos] & 0x1F
            if length > limits.str_len:
                raise BadBody("undecodable msgpack (a string above the limit)")
            pos += 1 + size + length
        elif kind == _REFUSED:
            raise BadBody("undecodable msgpack (an extension or unused type)")
        else:
            count = from_bytes(body[pos + 1 : pos + 1 + size], "big") if size else body[pos] & 0x0F
            if count > (limits.map_len if kind == _MAP else limits.array_len):
                raise BadBody("undecodable msgpack (a map or array above the limit)")
            if len(outer) >= most:  # this container would sit at depth len(outer) + 1
                raise TooDeep(f"nesting deeper than {most}")
            pos += 1 + size
            if count:
                outer.append(left)
                left = count * 2 if kind == _MAP else count


def decode_body(body: bytes, limits: DecodeLimits = HOST_FRAME) -> dict[str, Any]:
    """One frame body -> a checked dict with a string ``"t"``; raises a `FrameError` subclass."""
    if len(body) > limits.frame:
        raise FrameTooLarge(f"frame body of {len(body)} bytes is above {limits.frame}")
    check_bytes(body, limits)
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

    def take_rest(self) -> bytes:
        """The bytes fed but not decoded yet, handed over (another reader goes on from them)."""
        rest = bytes(self._buf)
        self._buf.clear()
        return rest

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
