"""The club's records: per mode, scenario (episode and Elder One, or Shamblers level) and player
count, how many games were played and won, and the fastest win in turns with the teams who did it.

Co-op games have no opponent to rate a player against, so a club keeps records of its scenarios
instead. A table's game counts once it is over and its save has been replayed and checked
(`server.verified`), in a worker thread, one save at a time; its result is kept in the store
(`add_result`), so the records outlive a restart and a game is replayed once. Tables finished
while the server was down (or before it kept records) are replayed at start, archived ones too.
A save that does not verify is kept as refused, counted apart and never ranked. Bots' games (a
seat played by a bot) have rows of their own.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from cthulhu.core import Setup, modes
from cthulhu.core.choices import ADVICE
from cthulhu.net import RecordRow, RecordsMsg
from cthulhu.net import clean_text
from cthulhu.savegame import SaveError, SaveFile, SaveIOError, load
from cthulhu.savegame.shelf import Shelf, load_kept

from .store import GameResult, TableRecord
from .verified import NotFinished, verified

if TYPE_CHECKING:
    from .club import Club
    from .table import ServerTable

log = logging.getLogger(__name__)
TEAMS = 3  # the teams a row names for its fastest win (the first to do it)
PAGE = 40  # rows an answer holds (each names up to 3 teams of 5: 40 of them fit a frame)


def scenario(setup: Setup) -> dict[str, str]:
    """The one-id set-up choices that make a scenario (a default filled in; the house rule and the
    figures chosen are no part of it): {"episode": "wexley_mill", "elder_one": "hastur"}."""
    from cthulhu.content import builtin

    mode = modes.get(setup.mode)
    content = builtin().modes.get(mode.name)
    out = {}
    for option in mode.options:
        if option is ADVICE or option.many:
            continue
        choice = setup.one(option.name) or next(iter(option.defaults(content)), None)
        if choice is not None:
            out[option.name] = choice
    return out


def _key(ids: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(ids.items()))


def _ids(key: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in key.split())


def _words(mode_name: str, ids: dict[str, str]) -> str:
    from cthulhu.content import builtin

    mode = modes.get(mode_name)
    content = builtin().modes.get(mode.name)
    words = []
    for option in mode.options:
        if option.name in ids:
            words.append(next((c.name for c in option.values(content) if c.id == ids[option.name]), ids[option.name]))
    return ", ".join(words)


def _save_of(source: Path | Shelf) -> SaveFile:
    """The save kept at `source`: its file, or its database rows (a `Shelf`: no file there)."""
    if isinstance(source, Path):
        return load(source)
    save = load_kept(source)
    if save is None:
        raise SaveIOError("no save is kept for it", path=source.where)
    return save


def result_of(record: TableRecord, source: Path | Shelf, content: Any = None) -> GameResult | None:
    """A finished table's result from its save (replayed and checked), or None while its save does
    not show the end yet (read while its last step was being written: tried again later)."""
    setup = Setup.model_validate(record.setup)
    key, finished = _key(scenario(setup)), record.last_move or record.updated
    try:
        game = verified(_save_of(source), content, allow_other_content=True)  # (a game that still replays hash for hash counts)
    except NotFinished:
        return None
    except SaveError as exc:
        return GameResult(record.id, record.mode, key, setup.players, False, record.outcome or "?", 0, [], finished, exc.message)
    return GameResult(record.id, record.mode, key, setup.players, game.bots, game.outcome, game.turns, list(game.team), finished)


class Records:
    """The results kept so far (read from the store once, then kept up to date) and the rows made from them."""

    def __init__(self, club: Club) -> None:
        self.club = club
        self.results: dict[str, GameResult] = {}
        self._loaded: trio.Event | None = None
        self._pending: set[str] = set()
        self._limiter = trio.CapacityLimiter(1)  # one replay at a time

    async def ready(self) -> None:
        """The results in memory (the first caller reads them from the store, and queues the
        finished tables that have none: archived ones, and any finished while nobody counted)."""
        loaded = self._loaded
        if loaded is not None:
            await loaded.wait()
            if self._loaded is None:  # the first caller's reading failed: this one asks again
                await self.ready()
            return
        loaded = self._loaded = trio.Event()
        store = self.club.server.store
        try:
            for result in await self.club.in_store(store.results):
                self.results[result.table] = result
            archived = await self.club.in_store(store.archived)
        except BaseException:
            self._loaded = None
            raise
        finally:
            loaded.set()
        for record in archived:
            self._queue(record, store.shelf(record.id) or self.club.server.folder / record.save)

    def saw(self, table: ServerTable) -> None:
        """A table's record changed: a game just over (or over before the start) is replayed and counted."""
        self._queue(table.record, table.shelf or table.save_path)

    def _queue(self, record: TableRecord, path: Path | Shelf) -> None:
        if not record.finished or record.id in self.results or record.id in self._pending:
            return
        nursery = self.club.nursery()
        if nursery is not None:
            self._pending.add(record.id)
            nursery.start_soon(self._count, record, path)

    async def _count(self, record: TableRecord, path: Path | Shelf) -> None:
        try:
            await self.ready()
            if record.id in self.results:
                return
            result = await trio.to_thread.run_sync(result_of, record, path, limiter=self._limiter)
            if result is None:
                return
            await self.club.in_store(lambda: self.club.server.store.add_result(result))
            self.results[record.id] = result
            if result.problem is not None:
                log.warning("table %s's save does not verify, so its game is no record: %s", record.id, clean_text(result.problem))
        except Exception as exc:  # a save gone, the store refusing...: counted at the next start, and the server goes on
            log.warning("table %s's game could not be counted yet (%s)", record.id, clean_text(str(exc)))
        finally:
            self._pending.discard(record.id)

    async def listing(self, seq: int, page: int = 0) -> RecordsMsg:
        await self.ready()
        groups: dict[tuple[str, str, int, bool], list[GameResult]] = defaultdict(list)
        refused = 0
        for result in self.results.values():
            if result.problem is not None:
                refused += 1
            else:
                groups[(result.mode, result.scenario, result.players, result.bots)].append(result)
        rows = []
        for (mode, key, players, bots), games in sorted(groups.items()):
            wins = sorted((r for r in games if r.outcome == "won"), key=lambda r: (r.turns, r.finished, r.table))
            fastest = wins[0].turns if wins else None
            teams: list[list[str]] = []
            for r in wins:
                if r.turns == fastest and r.team not in teams and len(teams) < TEAMS:
                    teams.append(list(r.team))
            ids = _ids(key)
            rows.append(RecordRow(mode=mode, setup=ids, about=_words(mode, ids), players=players, bots=bots, games=len(games),
                                  wins=len(wins), fastest=fastest, teams=teams))
        pages = max(1, -(-len(rows) // PAGE))
        return RecordsMsg(seq=seq, page=page, pages=pages, rows=rows[page * PAGE : (page + 1) * PAGE], refused=refused)
