"""The server's records of its tables made again from their saves (`cthulhu server --rebuild`).

For a data folder whose `server.db` was lost (deleted, emptied) while `tables/` kept the saves:
each save holds the game (set-up, seed, every command), who sat where (names, seat-token hashes,
the bots' kinds), and when it was made and last saved, so a table comes back with its game, its
seats and its bots; its people take their seats back with the seat tokens their machines keep.
What only the database held is lost: identities, who created a table, what each player last
saw, a turn-based table's pace (it comes back live), a bot pause other than the default, the
notification address, and whether a table was private and its code (only the record had it).
A rebuilt table is therefore private with a new code, printed here: nothing once private is
listed to strangers, and seated players come back by token, which no code stops.

It only fills a database that lists no table (missing, empty, or new); it never overwrites one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cthulhu.core import modes
from cthulhu.net import new_table_code
from cthulhu.net import clean_name, clean_text
from cthulhu.savegame import SaveError, SaveFile, load, resume
from cthulhu.savegame.file import save_files
from cthulhu.table import StandIns, TableSpec

from .store import Changes, Store, StoreError, TableRecord
from .table import setup_words


@dataclass(frozen=True, slots=True)
class Found:
    """One save of `tables/`: the record made from it, or why it was skipped."""

    path: Path
    record: TableRecord | None = None
    skipped: str | None = None

    def line(self) -> str:
        if self.record is None:
            return f"skipped {self.path.name}: {clean_text(self.skipped or '')}"
        r = self.record
        people = ", ".join(clean_text(str(s["name"])) if s["name"] else "open" for s in r.seats)
        end = f", over ({r.outcome})" if r.finished else ""
        return f"listed  {r.id}: {r.mode}, step {r.step}{end}, seats: {people}; code {r.code}"


def record_of(path: Path, default_delay: float = 0.5) -> TableRecord:
    """The table a server's save describes (`SaveError` or `ValueError`: it cannot be listed)."""
    save: SaveFile = load(path)
    header = save.header
    if header.table is None or f"{header.table}.save" != path.name:
        raise ValueError("not a server table's save (its table id is not its file name)")
    game = resume(save)  # every step checked: a save that does not replay is not listed
    mode = modes.get(game.setup.mode)
    bots = header.bot_seats()
    named = {p.seat: p for p in header.players}
    seats = []
    for n in range(game.setup.players):
        player = named.get(n)
        status = "open" if player is None else "bot" if player.bot is not None else "away"
        seats.append({"seat": n, "name": (clean_name(player.name) or "player") if player is not None else None, "status": status})
    prompt = game.prompt
    started = game.step > 0 or all(s["status"] != "open" for s in seats)  # (a table waiting for players: nobody to move)
    return TableRecord(
        id=header.table, mode=mode.name,
        spec=TableSpec(start=game.setup, bots=bots, stand_ins=StandIns(kind=next(iter(bots.values()), mode.default_bot)), bot_delay=default_delay),
        created=header.created, save=path.name, private=True, code=new_table_code(), about=setup_words(game.setup)[1],
        seats=seats, step=game.step, to_move=[prompt.seat] if prompt is not None and game.outcome is None and started else [],
        finished=game.outcome is not None, outcome=game.outcome, last_move=header.updated if game.step else None,
        updated=header.updated,
    )


def scan(folder: Path) -> Iterator[Found]:
    """Every save in `folder`, as a record or a reason it was skipped."""
    for path in save_files(folder):
        try:
            yield Found(path, record=record_of(path))
        except (SaveError, ValueError, KeyError) as exc:
            yield Found(path, skipped=str(getattr(exc, "message", None) or exc).splitlines()[0])


def rebuild(store: Store, folder: Path) -> Iterator[Found]:
    """List in `store` every table whose save is in `folder`, one commit per table; each as it is
    done. `StoreError` before anything is written when the store lists tables already."""
    loaded = store.load()
    kept = len(loaded.tables) + len(store.archived())
    if kept:
        raise StoreError(f"the server's database lists {kept} table{'s' if kept != 1 else ''} already; "
                         "--rebuild only fills an empty or missing one (nothing was changed)")
    for found in scan(folder):
        if found.record is not None:
            store.commit(Changes(tables={found.record.id: found.record}))
        yield found
