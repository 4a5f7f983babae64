"""`cthulhu server --data DIR --migrate-to postgresql://...`: a SQLite server's records and saves
copied into a new PostgreSQL database, every table replayed there to its hashes (`server.migrate`).

The folder must not be served meanwhile (its lock is taken, as a server takes it); it is only read,
so the SQLite server can be started again as it was if anything goes wrong. One line a table
checked, then a summary; a refusal is one line and exit 2, with nothing committed.
"""

from __future__ import annotations

from pathlib import Path

from .common import refuse


def migrate(data: Path, url: str) -> int:
    from cthulhu.savegame import SaveLocked, hold, release
    from cthulhu.server import DATABASE, StoreError
    from cthulhu.server.migrate import MigrationFailed, migrate as copy
    from cthulhu.server.postgres import PostgresStore

    source = data / DATABASE
    if not source.is_file():
        return refuse("server", f"{data} holds no server's database ({DATABASE}): there is nothing to migrate")
    try:
        hold(source)
    except SaveLocked as exc:
        return refuse("server", f"{data} is served now: stop that server first ({exc.message})")
    try:
        target = PostgresStore(url)
        try:
            copied = copy(source, data / "tables", target, say=lambda line: print(line, flush=True))
        finally:
            target.close()
    except (StoreError, MigrationFailed, OSError) as exc:
        return refuse("server", str(exc))
    finally:
        release(source)
    rows = copied.rows
    print(f"Migrated {data} into {target.where}: {rows['tables']} tables ({copied.saves} saves, {copied.steps} steps, every one "
          f"replayed to its hashes), {rows['identities']} identities, {rows['seats']} seats. Serve it with "
          "`cthulhu server --store URL` (the SQLite folder is unchanged).", flush=True)
    for table_id in copied.unsaved:
        print(f"no save file for table {table_id}: it starts from its set-up when first opened", flush=True)
    return 0
