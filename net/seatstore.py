"""Seat tokens kept on the player's own machine, so the same join command takes the seat back.

One small JSON file in the user data folder (`seats.json`, mode 0600 in a 0700
folder): for every seat this machine holds, the address it was joined at, the
table id, the player's name and the token; and, for each server of many tables
it has visited, the identity key it is known by there. A host restarted from its save is
the same table (the id is in the save), so its seats come back too. A hosting
terminal keeps its own seat's token here as well, and the table codes it gave
out, so `cthulhu host --load` serves the same code again.

Updates are read-modify-write under a lock on a file next to it, so two
terminals joining at once cannot lose each other's tokens; writes are atomic.

The file counts seats from 1, as every screen does (`"seats_from": 1`); a file written before
that (no such key) counted from 0 and is read as it was meant. `SeatEntry.seat` is the
protocol's, from 0.
"""

from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from cthulhu.savegame.folder import user_data_dir

KEEP = 200  # entries kept, newest first: a store never grows without bound


@dataclass(frozen=True)
class SeatEntry:
    address: str
    table: str | None
    name: str
    seat: int
    token: str
    hosting: bool = False
    updated: str = ""


def _seat_from(entry: dict[str, Any], shift: int) -> dict[str, Any]:
    """`entry` with its seat number moved by `shift` (the file's count to the protocol's and back)."""
    seat = entry.get("seat")
    return {**entry, "seat": seat + shift} if isinstance(seat, int) and not isinstance(seat, bool) else entry


def normal_address(address: str) -> str:
    return address.strip().lower()


class SeatStore:
    """The tokens and codes this machine remembers (`path` defaults to the user data folder)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else user_data_dir() / "seats.json"

    # -- reading -----------------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"seats": [], "codes": {}, "identities": {}}
        if not isinstance(data, dict):
            return {"seats": [], "codes": {}, "identities": {}}
        shift = 1 if data.get("seats_from") == 1 else 0  # files from before counted from 0
        seats = [_seat_from(e, -shift) for e in data.get("seats", []) if isinstance(e, dict)]
        codes = data.get("codes") if isinstance(data.get("codes"), dict) else {}
        identities = data.get("identities") if isinstance(data.get("identities"), dict) else {}
        return {"seats": seats, "codes": codes, "identities": identities}

    def entries(self) -> list[SeatEntry]:
        out = []
        for raw in self._read()["seats"]:
            try:
                out.append(SeatEntry(**{k: raw[k] for k in SeatEntry.__dataclass_fields__ if k in raw}))
            except TypeError:
                continue  # a damaged entry is skipped, never fatal
        return out

    def find(self, *, name: str | None, address: str | None = None, table: str | None = None, hosting: bool = False) -> SeatEntry | None:
        """The newest seat for `name` (None: anyone's) at `address` (joining) or at `table` (hosting)."""
        for e in self.entries():
            if (name is not None and e.name != name) or e.hosting != hosting:
                continue
            if address is not None and e.address != normal_address(address):
                continue
            if table is not None and e.table != table:
                continue
            return e
        return None

    def identity_for(self, address: str) -> str | None:
        """The identity key this machine keeps for the server at `address`, if it has one."""
        key = self._read()["identities"].get(normal_address(address))
        return key if isinstance(key, str) else None

    def identity(self, address: str) -> str:
        """This machine's identity key for the server at `address` (made and kept the first time):
        a server of many tables knows its players by it (their name, "my tables"), and by nothing
        else of this machine. One key per server, so servers cannot tell they see the same player."""
        known = self.identity_for(address)
        if known is not None:
            return known
        from .invite import new_seat_token

        with self._update() as data:
            key = data["identities"].setdefault(normal_address(address), new_seat_token())
            data["identities"] = dict(list(data["identities"].items())[-KEEP:])
        return str(key)

    def code_for(self, table: str) -> str | None:
        code = self._read()["codes"].get(table)
        return code if isinstance(code, str) else None

    # -- writing -----------------------------------------------------------------------------

    @contextmanager
    def _update(self) -> Iterator[dict[str, Any]]:
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(folder / f".{self.path.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            data = self._read()
            yield data
            from cthulhu.savegame.writer import write_atomic  # 0600, atomic

            on_disk = {**data, "seats": [_seat_from(e, 1) for e in data["seats"]], "seats_from": 1}
            write_atomic(self.path, json.dumps(on_disk, indent=1, sort_keys=True).encode(), fsync=False, what="the seat tokens")
        finally:
            os.close(fd)

    def remember(self, *, address: str, table: str | None, name: str, seat: int, token: str, hosting: bool = False) -> None:
        entry = SeatEntry(normal_address(address), table, name, seat, token, hosting, datetime.now(timezone.utc).isoformat(timespec="seconds"))
        with self._update() as data:
            same = (entry.address if not hosting else None, entry.table, entry.name, entry.hosting)
            kept = [e for e in data["seats"] if (e.get("address") if not hosting else None, e.get("table"), e.get("name"), e.get("hosting", False)) != same]
            data["seats"] = [asdict(entry), *kept][:KEEP]

    def forget(self, token: str) -> None:
        """Drop a token the host no longer takes (its seat was freed, or the table is gone)."""
        with self._update() as data:
            data["seats"] = [e for e in data["seats"] if e.get("token") != token]

    def remember_code(self, table: str, code: str | None) -> None:
        with self._update() as data:
            if code is None:
                data["codes"].pop(table, None)
            else:
                data["codes"][table] = code
                data["codes"] = dict(list(data["codes"].items())[-KEEP:])
