"""A challenge try's save read back from a server's store, so a record can be replayed later
(`cthulhu replay --store WHERE daily-2026-12-05:1`).

The server keeps each try's save as it was sent and verified (schema 9), beside its entry. Reading
it changes nothing and migrates nothing: a PostgreSQL URL is read over one plain connection, a
SQLite server's data folder is opened read-only (a running server may keep writing it). A try is
named by its challenge and either its place on the board (1 is the first, in the board's order:
people ranked, then bots' games) or the name it was sent under.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from cthulhu.net import clean_name
from cthulhu.savegame.file import SaveIOError

TRY = re.compile(r"((?:daily-\d{4}-\d{2}-\d{2})|(?:weekly-\d{4}-W\d{2})):(.+)")
_BOARD = "SELECT name, save FROM challenge_entries WHERE challenge = {0} ORDER BY bots, won DESC, turns, rerolls, at, identity_id"


def is_try(name: str) -> bool:
    """`name` names a challenge try (CHALLENGE:PLACE or CHALLENGE:NAME), not a table."""
    return TRY.fullmatch(name) is not None


def read_try(where: str, name: str) -> bytes:
    """The save of the try `name` at the server whose store is `where` (a PostgreSQL URL or a
    SQLite server's data folder); `SaveIOError` (one line) when there is none to be had."""
    from .postgres import is_url

    found = TRY.fullmatch(name)
    assert found is not None  # (`is_try` first)
    challenge, pick = found.groups()
    rows = _postgres_rows(where, challenge, name) if is_url(where) else _sqlite_rows(Path(where), challenge, name)
    if not rows:
        raise SaveIOError(f"the server keeps no try at {challenge}", path=name)
    if pick.isdigit():
        place = int(pick)
        if not 1 <= place <= len(rows):
            raise SaveIOError(f"{challenge}'s board has places 1 to {len(rows)}", path=name)
        _, save = rows[place - 1]
    else:
        mine = [save for sent_by, save in rows if clean_name(sent_by) == clean_name(pick)]
        if len(mine) != 1:
            raise SaveIOError(f"{len(mine) or 'no'} tries at {challenge} were sent by {clean_name(pick) or '?'}"
                              + ("; name its place on the board instead" if mine else ""), path=name)
        save = mine[0]
    if save is None:
        raise SaveIOError("that try was entered before the server kept the tries' saves", path=name)
    return bytes(save)


def _sqlite_rows(data: Path, challenge: str, name: str) -> list[tuple[str, Any]]:
    from . import DATABASE

    path = data / DATABASE
    if not path.is_file():
        raise SaveIOError(f"{data} is no server's data folder (it has no {DATABASE})", path=name)
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return list(db.execute(_BOARD.format("?"), (challenge,)).fetchall())
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise SaveIOError(f"cannot read {path}: {exc}", path=name) from None


def _postgres_rows(url: str, challenge: str, name: str) -> list[tuple[str, Any]]:
    import psycopg

    from .postgres import _connect, _first, describe
    from .store import StoreError

    where = describe(url)
    try:
        with _connect(url, where) as db:
            if db.execute("SELECT to_regclass('cthulhu_schema')").fetchone() == (None,):
                raise SaveIOError(f"{where} is not a cthulhu server's database", path=name)
            return list(db.execute(_BOARD.format("%s"), (challenge,)).fetchall())
    except (psycopg.Error, StoreError) as exc:
        raise SaveIOError(f"cannot read it: {_first(exc)}", path=name) from None
