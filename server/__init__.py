"""A server of many tables (`cthulhu server`): one trio process, a lobby, a store that outlives it.

Layout: `server` (the tables, their connections, the writer and the sweep), `table` (one table:
its record and, while in use, its host; its pace), `lobby` (a lobby session), `refused` (what a lobby request is refused with), `listing` (what a
lobby lists, kept in its order), `untouched` (tables nobody sat at yet: capped, expiring), `people`
(identities, names, who holds which seat), `store` (the records and the
store's interface), `sqlite` (the store in SQLite), `limits` (what a server allows); notifications: `moves` (what is news),
`notices` (what is said, in each receiver's body), `hookurl` (where it may go), `notify` (the POSTs); games as records: `club`
(what they share), `records` (the club's records), `challenge` (the challenges' tries and boards), `verified` (what a replayed save
proves). `postgres` (the store, and the tables' saves, in PostgreSQL),
`migrate` (a SQLite server copied into PostgreSQL), `lease` and `fleet` (several processes on one database). The design beyond one
process is in DESIGN.md beside this file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .hookurl import NotifyPolicy
from .notify import Notifier
from .limits import ServerLimits
from .refused import Refused
from .server import TableServer
from .sqlite import SqliteStore
from .store import Changes, Loaded, Store, StoreError, StoreTooNew, TableRecord

DATABASE = "server.db"


def open_server(data: Path, *, name: str | None = None, limits: ServerLimits = ServerLimits(), wall: Any = None,
                notifier: Notifier | None = None, store_url: str | None = None) -> TableServer:
    """The server of the data folder `data` (made if new, 0700), its store opened and read: the
    SQLite file in `data`, or the PostgreSQL database `store_url` names (which keeps the saves too).
    Raises `StoreError` (one line) for a database it must not use, `SaveLocked` when another
    process serves the same folder."""
    from cthulhu.savegame import hold, release

    data.mkdir(parents=True, exist_ok=True, mode=0o700)
    (data / "tables").mkdir(exist_ok=True, mode=0o700)
    hold(data / DATABASE)  # one server per data folder (the lock goes with the process, kill -9 included)
    try:
        store: Store
        if store_url is not None:
            from .postgres import PostgresStore

            store = PostgresStore(store_url)
        else:
            lost_database(data)
            store = SqliteStore(data / DATABASE)
        try:
            loaded = store.load()
        except BaseException:
            store.close()
            raise
    except BaseException:
        release(data / DATABASE)
        raise
    chosen = name or loaded.settings.get("name") or "cthulhu"
    server = TableServer(data, store, loaded, name=chosen, limits=limits, wall=wall, notifier=notifier)
    if name and loaded.settings.get("name") != name:
        server._changes.settings["name"] = name
    return server


def lost_database(data: Path) -> None:
    """`StoreError` when `server.db` is missing or empty but `tables/` holds saves: the records were
    lost, and starting afresh would leave those tables unlisted (`--rebuild` lists them again)."""
    import shlex

    from cthulhu.savegame.file import save_files

    database, journal = data / DATABASE, data / f"{DATABASE}-wal"
    # (an empty file whose journal holds transactions not yet folded in is not lost: SQLite reads them)
    lost = not database.exists() or (database.stat().st_size == 0 and not (journal.is_file() and journal.stat().st_size))
    saves = sum(1 for _ in save_files(data / "tables")) if lost else 0
    if saves:
        what = "is empty" if database.exists() else "is missing"
        raise StoreError(f"the server's database {database} {what}, but {data / 'tables'} holds {saves} table "
                         f"save{'s' if saves != 1 else ''}; nothing was changed (restore a copy of it, or run "
                         f"`cthulhu server --data {shlex.quote(str(data))} --rebuild` to list the tables again from their saves)")


__all__ = ["Changes", "Loaded", "Notifier", "NotifyPolicy", "Refused", "ServerLimits", "SqliteStore", "Store", "StoreError", "StoreTooNew", "TableRecord",
           "TableServer", "open_server"]
