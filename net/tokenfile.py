"""A seat token kept in one file, for a player who comes back through a front end the host serves.

`cthulhu host --ssh/--web` starts one `cthulhu join --token-file FILE` per visitor,
with one file per visitor identity (an SSH public key, a browser cookie), so the
same visitor reclaims the same seat after a dropped connection. The file is the
visitor's secret: mode 0600, written atomically, never logged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def read_token(path: Path) -> tuple[int | None, str] | None:
    """(seat, token) from the file, or None when it is missing or not ours."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    seat, token = data.get("seat"), data.get("token")
    if not isinstance(token, str) or not token or not (seat is None or (isinstance(seat, int) and not isinstance(seat, bool))):
        return None
    return seat, token


def write_token(path: Path, seat: int | None, token: str) -> None:
    """Replace the file's contents in one step; only its owner may read it."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"seat": seat, "token": token}, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def forget_token(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
