"""A server of many tables (`cthulhu server`): one trio process, a lobby, a store that outlives it.

Layout: `server` (the tables, their connections, the writer and the sweep), `table` (one table:
its record and, while in use, its host; its pace), `lobby` (a lobby session), `listing` (what a
lobby lists), `people` (identities, names, who holds which seat), `store` (the records and the
store's interface), `sqlite` (the store in SQLite). The design beyond one process is in
DESIGN.md beside this file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .notify import Notifier, NotifyPolicy
from .server import Refused, ServerLimits, TableServer
from .sqlite import SqliteStore
from .store import Changes, Loaded, Store, StoreError, StoreTooNew, TableRecord

DATABASE = "server.db"


def open_server(data: Path, *, name: str | None = None, limits: ServerLimits = ServerLimits(), wall: Any = None,
                notifier: Notifier | None = None) -> TableServer:
    """The server of the data folder `data` (made if new, 0700), its store opened and read.
    Raises `StoreError` (one line) for a database it must not use, `SaveLocked` when another
    process serves the same folder."""
    from cthulhu.savegame import hold, release

    data.mkdir(parents=True, exist_ok=True, mode=0o700)
    (data / "tables").mkdir(exist_ok=True, mode=0o700)
    hold(data / DATABASE)  # one server per data folder (the lock goes with the process, kill -9 included)
    try:
        store = SqliteStore(data / DATABASE)
        loaded = store.load()
    except BaseException:
        release(data / DATABASE)
        raise
    chosen = name or loaded.settings.get("name") or "cthulhu"
    server = TableServer(data, store, loaded, name=chosen, limits=limits, wall=wall, notifier=notifier)
    if name and loaded.settings.get("name") != name:
        server._changes.settings["name"] = name
    return server


__all__ = ["Changes", "Loaded", "Notifier", "NotifyPolicy", "Refused", "ServerLimits", "SqliteStore", "Store", "StoreError", "StoreTooNew", "TableRecord",
           "TableServer", "open_server"]
