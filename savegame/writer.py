"""Writing saves so that no crash can lose or break one.

Every write goes to a temporary file in the same folder, is flushed and
fsynced, replaces the save with `os.replace` (atomic on POSIX and Windows) and
then fsyncs the folder so the rename itself survives a power cut. A `kill -9`
at any instant leaves either the previous save or the new one, plus at worst a
stale temporary file, which the next writer sweeps away.

`SaveWriter` is the host's autosave: `append(seat, command_wire, state_hash)`
after every applied command, before any peer hears of it, and `truncate(step)`
after a take-back, so the file always holds the game exactly as it stands. A
write appends one record (the steps since the last write and the header as it now
is: `Chunk`), so a step costs the same at step 300 as at step 3; the whole file is
rewritten atomically (no records, as `encode` makes it) when it is new, after a
take-back or a failed write, at the end of the game, and once the records outweigh the body (so the file
stays at most twice its compact size). A `kill -9` during an append leaves the
last record cut short, which loading ignores: that step was never reported done.
It also keeps the game's dice commitment (`dice`), made when the file is started,
which the host sends to every peer.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from cthulhu.core import Command, Game, Setup, modes

from .dice import Dice
from .lock import hold, release
from .shelf import Shelf
from .file import (
    FORMAT_VERSION,
    PlayerRecord,
    SaveFile,
    SaveIOError,
    frame,
    pack_body,
    pack_record,
    pack_snapshot,
    pack_step,
)

DEFAULT_SNAPSHOT_EVERY = 25
STALE_TEMP_SECONDS = 3600.0


def now_iso() -> str:
    """The wall clock, for headers only (the rules core never sees a clock)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@lru_cache(maxsize=1)
def rules_version() -> str:
    """The installed cthulhu version; the state hashes are what really pin the rules."""
    try:
        return metadata.version("cthulhu")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
        return "unknown"


def hash_token(token: str) -> str:
    """What a save keeps of a seat token: a keyed BLAKE2 hash, never the token."""
    return hashlib.blake2b(token.encode(), digest_size=16, person=b"cthulhu-seat").hexdigest()


def token_matches(token: str, token_hash: str | None) -> bool:
    """Whether `token` is the one whose hash a save kept (constant time)."""
    return token_hash is not None and hmac.compare_digest(hash_token(token), token_hash)


def summarize(game: Game) -> dict[str, str | int | bool | None]:
    """Public facts for save listings (the mode's own `summary` hook, from a spectator view)."""
    hook = modes.get(game.setup.mode).summary
    return hook(game) if hook is not None else {}


# -- atomic writes -----------------------------------------------------------------------------------


def _temp_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse; the data is still safe
        pass
    finally:
        os.close(fd)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # our own temp files are never left behind while we run
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_temp_files(folder: str | Path, name: str | None = None) -> list[Path]:
    """Delete temporary files left by interrupted writes (of `name`, or of any save).

    A temp file is stale when its writer process is gone, or when it is older
    than an hour (pids get reused). Returns what was removed.
    """
    base = Path(folder)
    removed = []
    pattern = f".{name}.*.tmp" if name else ".*.tmp"
    for tmp in base.glob(pattern):
        parts = tmp.name.rsplit(".", 3)  # ".<name>", "<pid>", "<random>", "tmp"
        try:
            pid = int(parts[1])
            age = time.time() - tmp.stat().st_mtime
        except (ValueError, IndexError, OSError):
            continue
        if not _pid_alive(pid) or age > STALE_TEMP_SECONDS:
            with suppress(OSError):
                tmp.unlink()
                removed.append(tmp)
    return removed


def write_atomic(path: str | Path, data: bytes, *, fsync: bool = True, what: str = "the save") -> None:
    """Replace `path` with `data` so that readers see the old bytes or the new, never a mix.
    A refusal is a `SaveIOError` naming the file and `what` it is."""
    target = Path(path)
    tmp = _temp_name(target)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # saves hold the seed
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        with suppress(OSError):
            tmp.unlink()
        raise SaveIOError(f"cannot write {what}: {exc.strerror or exc}", path=target) from None
    except BaseException:
        with suppress(OSError):
            tmp.unlink()
        raise
    if fsync:
        _fsync_dir(target.parent)


@dataclass(frozen=True)
class Chunk:
    """What one write puts on disk: the whole file (`offset` None) or a record appended at `offset`,
    and what the file then holds (`steps`, `snapshots`, `size`; `base`: the size of its body part).
    `after`: the version of the write a record follows (0 for the whole file). A record is right
    only on top of that write: once another lies there, it must be built again (`HostSave`)."""

    version: int
    epoch: int
    offset: int | None
    data: bytes
    steps: int
    snapshots: int
    base: int
    after: int = 0

    @property
    def size(self) -> int:
        return (self.offset or 0) + len(self.data)


def put(path: str | Path, chunk: Chunk, *, fsync: bool = True) -> None:
    """Write `chunk`: the whole file atomically, or its record at its offset (cutting off first
    whatever a failed write left there, so writing the same chunk twice is harmless)."""
    if chunk.offset is None:
        write_atomic(path, chunk.data, fsync=fsync)
        return
    try:
        fd = os.open(path, os.O_WRONLY)  # never created here: the file holds the body already
        try:
            os.ftruncate(fd, chunk.offset)
            view = memoryview(chunk.data)
            at = chunk.offset
            while view:
                done = os.pwrite(fd, view, at)
                view, at = view[done:], at + done
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise SaveIOError(f"cannot write the save: {exc.strerror or exc}", path=path) from None


# -- the autosave writer -----------------------------------------------------------------------------


def _player_records(players: Iterable[Any]) -> list[PlayerRecord]:
    out = []
    for p in players:
        out.append(p if isinstance(p, PlayerRecord) else PlayerRecord.model_validate(p))
    return out


class SaveWriter:
    """A save being written as the game goes: the host's command log on disk.

    `append(seat, command_wire, state_hash)` has the signature of the host's
    in-memory `CommandLog.append`; call it after `Game.apply` succeeds and before
    broadcasting, so every step any peer saw is on disk. It snapshots the live
    `game` every `snapshot_every` steps for fast seeking.
    """

    def __init__(
        self,
        path: str | Path,
        game: Game,
        *,
        players: Iterable[Any] = (),
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
        fsync: bool = True,
        autosave: bool = True,
        created: str | None = None,
        clock: Callable[[], str] = now_iso,
        dice: Dice | None = None,
        started: bool | None = None,
        shelf: Shelf | None = None,
        _initial_hash: str | None = None,
    ) -> None:
        if game.step != 0 and _initial_hash is None:
            raise ValueError("a SaveWriter starts at step 0; use SaveWriter.resume or save_game for a game in progress")
        if snapshot_every < 1:
            raise ValueError("snapshot_every must be at least 1")
        self.path = Path(path)  # (on a `shelf`: the save's name, for messages)
        self.shelf = shelf
        if shelf is None:
            hold(self.path)  # before anything is written or swept: SaveLocked if another process has it
        self._held = shelf is None
        self.game = game
        self.players = _player_records(players)
        self.snapshot_every = snapshot_every
        self.fsync = fsync
        self.autosave = autosave
        self.clock = clock  # example saves pass a fixed clock so they are byte-reproducible
        self.created = created or clock()
        self.content_version = str(game.content.version)
        self.setup_dict = game.setup.model_dump(mode="json")
        self.initial_hash = _initial_hash or game.state_hash()
        self.table: str | None = None  # the table id a host serves this game as (kept across restarts)
        self.dice = dice if dice is not None else Dice.new(game.setup.seed)
        if self.dice.seed != game.setup.seed:
            raise ValueError("the dice commitment is for another seed than this game's")
        self.hashes: list[str] = []
        self.sealed: list[int] = []  # steps a stand-in bot decided (`SaveHeader.sealed`)
        self._steps: list[bytes] = []
        self._snapshots: list[tuple[int, bytes]] = []
        self._disk: Chunk | None = None  # the last chunk known written (None: rewrite the whole file next)
        self._built = 0  # chunks made so far
        self._settled = 0  # the newest chunk whose write is known to have worked or failed
        self._epoch = 0  # take-backs so far: a chunk of an earlier epoch says nothing about the log now
        # An autosave of a new game waits for its first command: starting and quitting at once
        # leaves no file (the same choices make the same game again). A resumed or hand-written save writes.
        # (`started` says so for a writer whose owner writes it, as a host does: `open_table`.)
        self.started = (_initial_hash is not None or not autosave) if started is None else started
        if _initial_hash is None:
            self._snapshots.append((0, pack_snapshot(0, game.canonical())))
            if shelf is None:
                sweep_temp_files(self.path.parent, self.path.name)

    # The host's CommandLog interface.
    def append(self, seat: int, command: dict[str, Any] | Command, state_hash: str) -> None:
        """Record one applied command and the state hash after it; autosave."""
        wire = command.wire() if isinstance(command, Command) else dict(command)
        step = len(self._steps) + 1
        if self.game.step != step:
            raise ValueError(f"append() for step {step} but the game is at step {self.game.step}: call it right after apply()")
        self._steps.append(pack_step(seat, wire, state_hash))
        self.hashes.append(state_hash)
        self.started = True
        if step % self.snapshot_every == 0 or self.game.outcome is not None:
            self._snapshots.append((step, pack_snapshot(step, self.game.canonical())))
        if self.autosave:
            self.write()

    record = append

    def truncate(self, step: int) -> None:
        """After a take-back: keep the first `step` commands (and the snapshots up to them); autosave."""
        if not 0 <= step <= self.step:
            raise ValueError(f"truncate({step}) outside the log (0..{self.step})")
        if self.game.step != step:
            raise ValueError(f"truncate({step}) but the game is at step {self.game.step}: call it right after undo()")
        if step < len(self._steps):
            self._epoch += 1  # the records on disk hold steps the log no longer has: rewrite
            self._disk = None
        del self._steps[step:]
        del self.hashes[step:]
        self.sealed = [k for k in self.sealed if k <= step]
        self._snapshots = [(k, packed) for k, packed in self._snapshots if k <= step]
        if self.autosave:
            self.write()

    def commands(self) -> list[tuple[int, dict[str, Any]]]:
        """The log as (seat, command wire) pairs, e.g. for a peer that joins a loaded game."""
        import msgpack

        out = []
        for packed in self._steps:
            seat, command, _hash = msgpack.unpackb(packed, raw=False)
            out.append((seat, command))
        return out

    @property
    def step(self) -> int:
        return len(self._steps)

    def seal(self, step: int) -> None:
        """A stand-in bot decided step `step` (already appended): a reload draws the take-back line there
        too; saved on the next write (the host writes before anyone hears of the step)."""
        self.sealed.append(step)

    def keep(self) -> None:
        """Worth a file from now on, before the first command (a seat another terminal holds a token for)."""
        self.started = True

    def set_players(self, players: Iterable[Any]) -> None:
        """Seats, names and token hashes (e.g. when someone joins); saved on the next write."""
        self.players = _player_records(players)

    def close(self) -> None:
        """Let other processes have the save (at exit this happens by itself)."""
        if self._held:
            self._held = False
            release(self.path)

    def header(self) -> dict[str, Any]:
        header = {
            "format": FORMAT_VERSION,
            "content_version": self.content_version,
            "rules_version": rules_version(),
            "mode": self.game.setup.mode,
            "created": self.created,
            "updated": self.clock(),
            "players": [p.wire() for p in self.players],
            "step": self.step,
            "outcome": self.game.outcome if self.game.step == self.step else None,
            "summary": summarize(self.game) if self.game.step == self.step else {},
        }
        if self.table is not None:
            header["table"] = self.table
        if self.sealed:
            header["sealed"] = list(self.sealed)
        return header

    def to_bytes(self) -> bytes:
        dice = {"commit": self.dice.commit, "salt": self.dice.salt.hex()}
        snapshots = [packed for _k, packed in self._snapshots]
        body = pack_body(self.header(), self.setup_dict, self.initial_hash, self.snapshot_every, self._steps, snapshots, dice)
        return frame(body)

    def chunk(self) -> Chunk:
        """The next write: a record of what the file lacks, or the whole file (see the module)."""
        self._built += 1
        disk = self._disk
        over = self.game.outcome is not None and self.game.step == self.step  # a finished game's file is left compact
        if disk is not None and disk.epoch == self._epoch and disk.size - disk.base < disk.base and not over:
            snapshots = [packed for _k, packed in self._snapshots[disk.snapshots :]]
            record = pack_record(self.header(), self._steps[disk.steps :], snapshots)
            return Chunk(self._built, self._epoch, disk.size, record, len(self._steps), len(self._snapshots), disk.base, disk.version)
        data = self.to_bytes()
        return Chunk(self._built, self._epoch, None, data, len(self._steps), len(self._snapshots), len(data))

    def written(self, chunk: Chunk) -> None:
        """`chunk` is on disk: the next write appends to it."""
        if self._settle(chunk):
            self._disk = chunk if chunk.epoch == self._epoch else None

    def lost(self, chunk: Chunk) -> None:
        """Writing `chunk` failed: what the file holds is unknown, so the next write is the whole file."""
        if self._settle(chunk):
            self._disk = None

    @property
    def where(self) -> str:
        """Where the save is kept, for messages: its file, or its shelf (a database: no file there)."""
        return self.shelf.where if self.shelf is not None else str(self.path)

    def fits(self, chunk: Chunk) -> bool:
        """Whether `chunk` may be written now: the whole file always, a record only on top of the
        write it follows (a record built before another write landed would overlap it)."""
        return chunk.offset is None or (self._disk is not None and self._disk.version == chunk.after)

    def _settle(self, chunk: Chunk) -> bool:
        """Writes may finish out of order (the host saves from more than one task): only news of a
        newer chunk than any heard of counts (every append cuts the file back to its offset first)."""
        if chunk.version <= self._settled:
            return False
        self._settled = chunk.version
        return True

    def put(self, chunk: Chunk, *, fsync: bool = True) -> None:
        """Write `chunk` where the save is kept: its file (its folder made if need be), or its shelf."""
        if self.shelf is not None:
            self.shelf.put(chunk, fsync=fsync)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        put(self.path, chunk, fsync=fsync)

    def write(self) -> None:
        """Write the save (a `SaveIOError` if the disk refuses); nothing before a new game's first
        command (`started`)."""
        if not self.started:
            return
        chunk = self.chunk()
        try:
            self.put(chunk, fsync=self.fsync)
        except BaseException:
            self.lost(chunk)
            raise
        self.written(chunk)

    flush = write

    @classmethod
    def resume(
        cls,
        path: str | Path,
        save: SaveFile,
        game: Game,
        *,
        fsync: bool = True,
        autosave: bool = True,
        shelf: Shelf | None = None,
    ) -> "SaveWriter":
        """Carry on writing `save` (already replayed to its last step as `game`), to its file or
        its `shelf`. The save's dice commitment carries on; a format 1 save gets one now.
        """
        if game.step != save.last_step:
            raise ValueError(f"the game is at step {game.step} but the save ends at step {save.last_step}")
        dice = None if save.dice is None else Dice(save.setup.seed, bytes.fromhex(save.dice.salt))
        writer = cls(
            path,
            game,
            players=save.header.players,
            snapshot_every=save.snapshot_every,
            fsync=fsync,
            autosave=False,
            created=save.header.created,
            dice=dice,
            shelf=shelf,
            _initial_hash=save.initial_hash,
        )
        writer.content_version = save.header.content_version
        writer.table = save.header.table
        writer.sealed = list(save.header.sealed)
        writer._steps = [pack_step(s.seat, s.command, s.hash) for s in save.steps]
        writer.hashes = [s.hash for s in save.steps]
        writer._snapshots = [(k, pack_snapshot(k, v)) for k, v in sorted(save.snapshots.items())]
        writer.autosave = autosave
        if shelf is None:
            sweep_temp_files(writer.path.parent, writer.path.name)
        return writer


def _entries(log: Iterable[Any]) -> Iterable[tuple[int, dict[str, Any], str]]:
    """Accept (seat, command, hash) triples or objects with seat/command/hash attributes."""
    for item in log:
        if isinstance(item, Sequence) and not isinstance(item, (str, bytes)):
            seat, command, state_hash = item
        else:
            seat, command, state_hash = item.seat, item.command, item.hash
        wire = command.wire() if isinstance(command, Command) else dict(command)
        yield int(seat), wire, str(state_hash)


def save_game(
    path: str | Path,
    game: Game,
    log: Iterable[Any],
    *,
    players: Iterable[Any] = (),
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
    created: str | None = None,
    fsync: bool = True,
    dice: Dice | None = None,
) -> SaveFile:
    """Save a game in progress from its command log (e.g. on quit).

    Replays the log from the setup to take snapshots and to check that the log
    really leads to `game`: a save that would not load is never written.
    """
    from .replay import replay_entries

    start = Game.new(Setup.model_validate(game.setup.model_dump()), game.content)
    writer = SaveWriter(path, start, players=players, snapshot_every=snapshot_every, fsync=fsync, autosave=False, created=created, dice=dice)
    replay_entries(start, _entries(log), on_step=writer.append)
    final = game.state_hash()
    if writer.hashes and writer.hashes[-1] != final or (not writer.hashes and writer.initial_hash != final):
        raise ValueError("the command log does not lead to this game's state; not saving")
    writer.write()
    from .file import load

    return load(path)
