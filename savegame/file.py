"""The save file format: bytes on disk <-> a validated `SaveFile`.

A save is ``MAGIC | format (u16) | body length (u64) | BLAKE2b-256(body) | body``
where the body is one msgpack map (saves/FORMAT.md has the field list), then,
from format 3, any number of appended records (the steps since the body was
written: an autosave appends, it does not rewrite). The magic catches files that
are not saves at all (and text-mode mangling, like PNG's), the length catches
truncation, the checksums catch flipped bytes, and the format version lets older
files load through explicit migrations.

Nothing here touches a game: this module only checks that a file is whole and
well formed. `replay` checks it against the rules; `writer` writes it.
Every failure is a `SaveError` subclass whose message names the problem; the
file itself is only ever read here.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import msgpack
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cthulhu.core import Setup

MAGIC = b"\x89CTH\r\n\x1a\n"
FORMAT_VERSION = 3  # 3: appended records after the body; 2: the dice commitment (`dice`); 1 had none
SUFFIX = ".save"

# The magic and the format version are fixed forever; what follows them may
# change with the format version (each version keeps its own decoder).
_HEAD = struct.Struct(">8sH")
_V1_REST = struct.Struct(">Q32s")  # body length, BLAKE2b-256 of the body
_V1_PREAMBLE = _HEAD.size + _V1_REST.size
# Format 3's appended record: a mark, the body length and its complement (a flipped length is
# caught, not taken for a cut), BLAKE2b-128 of the body, the body (a msgpack map).
RECORD_MARK = b"\xc1+"  # 0xc1 is never a msgpack byte
_RECORD = struct.Struct(">2sII16s")


class SaveError(Exception):
    """A save that cannot be read, or does not replay. `str()` is for a human."""

    problem = "unreadable"

    def __init__(self, message: str, *, path: str | Path | None = None, step: int | None = None) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.step = step
        super().__init__(f"{self.path}: {message}" if self.path else message)

    def at(self, path: str | Path) -> "SaveError":
        """The same error, naming the file it came from."""
        return type(self)(self.message, path=path, step=self.step)


class NotASave(SaveError):
    """The file does not start with the save magic (some other file)."""

    problem = "not_a_save"


class TruncatedSave(SaveError):
    """The file ends before the length its preamble announces."""

    problem = "truncated"


class CorruptSave(SaveError):
    """The checksum does not match: bytes were changed after writing."""

    problem = "checksum"


class UnsupportedFormat(SaveError):
    """A format version this program cannot read (newer, or no migration)."""

    problem = "format"


class BadStructure(SaveError):
    """The body is intact but is not msgpack, or not the fields a save has."""

    problem = "structure"


class ContentMismatch(SaveError):
    """The save was made with other game content than the one installed."""

    problem = "content"


class HashMismatch(SaveError):
    """Replaying the log gave another state than the one recorded at `step`."""

    problem = "hash_mismatch"


class ReplayRejected(SaveError):
    """A recorded command was refused by the rules on replay at `step`."""

    problem = "replay_rejected"


class DiceMismatch(SaveError):
    """The seed in the save is not the one its dice commitment was made to."""

    problem = "dice"


class SaveIOError(SaveError):
    """The operating system refused to read or write the file."""

    problem = "io"


# -- the validated model ----------------------------------------------------------------------------


STAND_IN_LINE = "a bot decided for this seat while its player was away"  # why `SaveHeader.sealed` steps are lines


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class PlayerRecord(_Model):
    """Who sat where. Seat tokens are secrets: only their hash is kept. `bot` names the
    kind of bot a host played the seat with (absent for people)."""

    seat: int = Field(ge=0)
    name: str
    token_hash: str | None = None
    bot: str | None = None

    def wire(self) -> dict[str, Any]:
        out = self.model_dump(mode="json")
        if out["bot"] is None:
            del out["bot"]  # files without bots keep the layout they always had
        return out


class SaveHeader(_Model):
    format: int
    content_version: str
    rules_version: str
    mode: str
    created: str  # ISO 8601, UTC; taken by net/ when the game was first saved
    updated: str
    players: list[PlayerRecord] = Field(default_factory=list)
    step: int = Field(ge=0)
    outcome: str | None = None
    # A few public facts for `cthulhu saves` (turn, Elder One awake...), so a
    # listing never has to replay. Informative only; replay is the truth.
    summary: dict[str, str | int | bool | None] = Field(default_factory=dict)
    table: str | None = None  # the table id a host served the game as (hosted games only)
    # Steps a host's stand-in bot decided for an away player: no take-back crosses them (`STAND_IN_LINE`).
    # Not in the rules' state, yet in every view (the prompt's take-back count), so a reload must know them.
    sealed: list[int] = Field(default_factory=list)

    def bot_seats(self) -> dict[int, str]:
        """The seats a bot played, by kind: a loaded game seats its bots again."""
        return {p.seat: p.bot for p in self.players if p.bot is not None}

    def wire(self) -> dict[str, Any]:
        """The header as written: the optional keys only when they are set."""
        out = self.model_dump(mode="json")
        out["players"] = [p.wire() for p in self.players]
        if out["table"] is None:
            del out["table"]
        if not out["sealed"]:
            del out["sealed"]
        return out


class DiceRecord(_Model):
    """The commitment peers were sent at the start and the salt that opens it (hex; net/commitment.py)."""

    commit: str
    salt: str


class SaveStep(_Model):
    """One applied command and the state hash right after it."""

    seat: int = Field(ge=0)
    command: dict[str, Any]
    hash: str


class SaveFile(_Model):
    """A whole save. `steps[k-1]` is the k-th command; step 0 is the start."""

    header: SaveHeader
    setup: Setup
    initial_hash: str
    snapshot_every: int = Field(ge=1)
    steps: list[SaveStep]
    # step -> `Game.canonical()` at that step (secrets included).
    snapshots: dict[int, dict[str, Any]] = Field(default_factory=dict)
    # None: written before saves kept a commitment (format 1).
    dice: DiceRecord | None = None

    def hash_at(self, step: int) -> str:
        """The recorded state hash after `step` commands."""
        return self.initial_hash if step == 0 else self.steps[step - 1].hash

    @property
    def last_step(self) -> int:
        return len(self.steps)


# -- encoding ----------------------------------------------------------------------------------------


def _packer() -> msgpack.Packer:
    return msgpack.Packer(use_bin_type=True, autoreset=True)


def pack_step(seat: int, command: dict[str, Any], state_hash: str) -> bytes:
    """One log entry as msgpack: ``[seat, command, hash bytes]`` (arrays keep it small)."""
    packed: bytes = _packer().pack([seat, command, bytes.fromhex(state_hash)])
    return packed


def pack_snapshot(step: int, canonical: dict[str, Any]) -> bytes:
    packed: bytes = _packer().pack([step, canonical])
    return packed


def pack_body(
    header: dict[str, Any],
    setup: dict[str, Any],
    initial_hash: str,
    snapshot_every: int,
    steps: list[bytes],
    snapshots: list[bytes],
    dice: dict[str, str] | None = None,
) -> bytes:
    """The body from already-packed log entries and snapshots.

    The autosave writer keeps each entry packed once, so a rewrite after every
    command costs a join, not a re-encoding of the whole game.
    """
    p = _packer()
    packed_dice = None if dice is None else {"commit": bytes.fromhex(dice["commit"]), "salt": bytes.fromhex(dice["salt"])}
    parts = [
        p.pack_map_header(7),
        p.pack("header"), p.pack(header),
        p.pack("setup"), p.pack(setup),
        p.pack("initial_hash"), p.pack(bytes.fromhex(initial_hash)),
        p.pack("snapshot_every"), p.pack(snapshot_every),
        p.pack("steps"), p.pack_array_header(len(steps)), *steps,
        p.pack("snapshots"), p.pack_array_header(len(snapshots)), *snapshots,
        p.pack("dice"), p.pack(packed_dice),
    ]  # fmt: skip
    return b"".join(parts)


def pack_record(header: dict[str, Any], steps: list[bytes], snapshots: list[bytes]) -> bytes:
    """One appended record: the steps and snapshots since the last one, and the header as it now is."""
    p = _packer()
    body = b"".join([
        p.pack_map_header(3),
        p.pack("header"), p.pack(header),
        p.pack("steps"), p.pack_array_header(len(steps)), *steps,
        p.pack("snapshots"), p.pack_array_header(len(snapshots)), *snapshots,
    ])  # fmt: skip
    checksum = hashlib.blake2b(body, digest_size=16).digest()
    return _RECORD.pack(RECORD_MARK, len(body), len(body) ^ 0xFFFFFFFF, checksum) + body


def frame(body: bytes) -> bytes:
    """Put the magic, the format version, the length and the checksum in front of a body."""
    checksum = hashlib.blake2b(body, digest_size=32).digest()
    return _HEAD.pack(MAGIC, FORMAT_VERSION) + _V1_REST.pack(len(body), checksum) + body


def encode(save: SaveFile) -> bytes:
    """The exact bytes of a save file (loading them gives `save` back)."""
    return frame(
        pack_body(
            save.header.wire(),
            save.setup.model_dump(mode="json"),
            save.initial_hash,
            save.snapshot_every,
            [pack_step(s.seat, s.command, s.hash) for s in save.steps],
            [pack_snapshot(k, v) for k, v in sorted(save.snapshots.items())],
            None if save.dice is None else save.dice.model_dump(),
        )
    )


# -- decoding ----------------------------------------------------------------------------------------


def _decode_framed(data: bytes) -> dict[str, Any]:
    """Versions 1 and 2 share the preamble (length, checksum) and a msgpack map body."""
    obj, end = _framed_body(data)
    if len(data) > end:
        raise CorruptSave(f"{len(data) - end} unexpected bytes after the end of the save")
    return obj


def _unpack_map(body: bytes, what: str) -> dict[str, Any]:
    try:
        obj = msgpack.unpackb(body, raw=False, strict_map_key=False)
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as exc:
        raise BadStructure(f"{what} is not valid msgpack ({type(exc).__name__})") from None
    if not isinstance(obj, dict):
        raise BadStructure(f"{what} is not a map")
    return obj


def _framed_body(data: bytes) -> tuple[dict[str, Any], int]:
    """The body after the preamble, checked, and where it ends."""
    if len(data) < _V1_PREAMBLE:
        raise TruncatedSave(f"truncated: the file is {len(data)} bytes, shorter than its {_V1_PREAMBLE}-byte preamble")
    length, checksum = _V1_REST.unpack_from(data, _HEAD.size)
    end = _V1_PREAMBLE + length
    body = data[_V1_PREAMBLE:end]
    if len(body) < length:
        raise TruncatedSave(f"truncated: the body should be {length} bytes but only {len(body)} are there")
    if hashlib.blake2b(body, digest_size=32).digest() != checksum:
        raise CorruptSave("checksum mismatch: the file was damaged or edited after it was written")
    return _unpack_map(body, "the body"), end


def _decode_appended(data: bytes) -> dict[str, Any]:
    """Version 3: the body, then the appended records, each adding its steps and snapshots and
    replacing the header. A last record cut short is what a kill during an append leaves (that
    step was never reported done): the save is the game as of the record before it. Anything
    else after the body that is not whole records is damage."""
    body, at = _framed_body(data)
    steps, snapshots = body.get("steps"), body.get("snapshots")
    while at < len(data):
        rest = len(data) - at
        if rest < _RECORD.size:
            if RECORD_MARK.startswith(data[at : at + 2]):
                break  # a record header cut short
            raise CorruptSave(f"{rest} unexpected bytes after the end of the save")
        mark, length, check, checksum = _RECORD.unpack_from(data, at)
        if mark != RECORD_MARK or length ^ check != 0xFFFFFFFF:
            raise CorruptSave(f"{rest} unexpected bytes after the end of the save (no appended record at byte {at})")
        start = at + _RECORD.size
        if start + length > len(data):
            break  # the last record cut short
        raw = data[start : start + length]
        if hashlib.blake2b(raw, digest_size=16).digest() != checksum:
            raise CorruptSave(f"checksum mismatch in the record at byte {at}: the file was damaged or edited after it was written")
        record = _unpack_map(raw, f"the record at byte {at}")
        if set(record) != {"header", "steps", "snapshots"} or not isinstance(steps, list) or not isinstance(snapshots, list):
            raise BadStructure(f"the record at byte {at} is not {{header, steps, snapshots}}")
        if not isinstance(record["steps"], list) or not isinstance(record["snapshots"], list):
            raise BadStructure(f"the record at byte {at} has fields of the wrong types")
        body["header"] = record["header"]
        steps.extend(record["steps"])
        snapshots.extend(record["snapshots"])
        at = start + length
    return body


# format version -> decoder of the bytes of a file in that version.
DECODERS: dict[int, Callable[[bytes], dict[str, Any]]] = {1: _decode_framed, 2: _decode_framed, 3: _decode_appended}

# from version -> function turning a decoded body of that version into one of
# the next version. Loading applies them in order up to FORMAT_VERSION. When the
# format changes: bump FORMAT_VERSION, add the new decoder, and add
# MIGRATIONS[old] here with a test that loads a file written in the old version.
def _v1_to_v2(body: dict[str, Any]) -> dict[str, Any]:
    """Format 1 saves made no dice commitment: they load with none (and verify says so)."""
    return {**body, "dice": None}


def _v2_to_v3(body: dict[str, Any]) -> dict[str, Any]:
    """Format 3 only added appended records: a format 2 body is a format 3 one with none."""
    return body


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2, 2: _v2_to_v3}


def migrate(body: dict[str, Any], version: int) -> dict[str, Any]:
    """Bring a decoded body from `version` up to FORMAT_VERSION, one step at a time."""
    while version < FORMAT_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise UnsupportedFormat(f"format version {version} is no longer readable (no migration to {version + 1})")
        body = step(body)
        version += 1
    return body


def _model_from_body(body: dict[str, Any]) -> SaveFile:
    try:
        raw_steps = body["steps"]
        raw_snaps = body["snapshots"]
        initial = body["initial_hash"]
        if not isinstance(raw_steps, list) or not isinstance(raw_snaps, list) or not isinstance(initial, bytes):
            raise TypeError
        steps = []
        for i, entry in enumerate(raw_steps, start=1):
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], bytes)):
                raise BadStructure(f"log entry {i} is not [seat, command, hash]")
            steps.append({"seat": entry[0], "command": entry[1], "hash": entry[2].hex()})
        snaps = {}
        for entry in raw_snaps:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int)):
                raise BadStructure("a snapshot is not [step, state]")
            snaps[entry[0]] = entry[1]
        dice = body["dice"]
        if dice is not None:
            if not (isinstance(dice, dict) and set(dice) == {"commit", "salt"} and all(isinstance(v, bytes) for v in dice.values())):
                raise BadStructure("the dice commitment is not {commit, salt}")
            dice = {"commit": dice["commit"].hex(), "salt": dice["salt"].hex()}
        fields = {
            "header": body["header"],
            "setup": body["setup"],
            "initial_hash": initial.hex(),
            "snapshot_every": body["snapshot_every"],
            "steps": steps,
            "snapshots": snaps,
            "dice": dice,
        }
        extra = set(body) - {"header", "setup", "initial_hash", "snapshot_every", "steps", "snapshots", "dice"}
        if extra:
            raise BadStructure(f"unknown fields in the save: {', '.join(sorted(map(str, extra)))}")
    except KeyError as exc:
        raise BadStructure(f"the save has no {exc.args[0]!r} field") from None
    except TypeError:
        raise BadStructure("the save's fields have the wrong types") from None
    try:
        save = SaveFile.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BadStructure(f"bad field {where}: {first['msg']}") from None
    _check_consistent(save)
    return save


def _check_consistent(save: SaveFile) -> None:
    h = save.header
    if h.step != len(save.steps):
        raise BadStructure(f"the header says step {h.step} but the log has {len(save.steps)} commands")
    if h.mode != save.setup.mode:
        raise BadStructure(f"the header says mode {h.mode!r} but the setup says {save.setup.mode!r}")
    for k in save.snapshots:
        if not 0 <= k <= len(save.steps):
            raise BadStructure(f"a snapshot is at step {k}, outside the log (0..{len(save.steps)})")
    for k in h.sealed:
        if not 1 <= k <= len(save.steps):
            raise BadStructure(f"a stand-in's line is at step {k}, outside the log (1..{len(save.steps)})")


def decode(data: bytes) -> SaveFile:
    """Check and parse the bytes of a save file; raise a `SaveError` naming what is wrong."""
    if len(data) < _HEAD.size:
        if data and MAGIC.startswith(data[: len(MAGIC)]):
            raise TruncatedSave(f"truncated: only {len(data)} bytes")
        raise NotASave("not a cthulhu save (empty)" if not data else "not a cthulhu save (no save header)")
    magic, version = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise NotASave("not a cthulhu save (it does not start with the save header)")
    decoder = DECODERS.get(version)
    if decoder is None:
        readable = ", ".join(map(str, sorted(DECODERS)))
        raise UnsupportedFormat(
            f"format version {version} cannot be read: this cthulhu reads versions {readable}"
            + (" (the save is from a newer cthulhu, or damaged)" if version > FORMAT_VERSION else "")
        )
    body = migrate(decoder(data), version)
    if isinstance(body.get("header"), dict):
        body["header"]["format"] = FORMAT_VERSION
    return _model_from_body(body)


def load(path: str | Path) -> SaveFile:
    """Read and check a save file (the file is only read, never changed)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise SaveIOError("no such file", path=path) from None
    except IsADirectoryError:
        raise SaveIOError("that is a folder, not a save file", path=path) from None
    except OSError as exc:
        raise SaveIOError(f"cannot read it: {exc.strerror or exc}", path=path) from None
    try:
        return decode(data)
    except SaveError as exc:
        raise exc.at(path) from None


def save_files(folder: str | Path) -> Iterable[Path]:
    """The save files in a folder (temporary files of interrupted writes are hidden)."""
    base = Path(folder)
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if p.suffix == SUFFIX and not p.name.startswith(".") and p.is_file())
