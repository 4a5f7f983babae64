"""The challenges at a server: today's are listed, a player's save is their one try, and the board
ranks only games the server replayed itself.

A challenge is a set-up and a seed everyone can compute from the date (`savegame.challenge`), so
nobody needs the server to play it; what the server adds is trust. A try arrives as the save of
the whole game (in parts: `submit_challenge`), and before it enters the board the server checks,
in a worker thread, that it is a save that reads whole, that its set-up and seed are the
challenge's, that its dice commitment opens with that seed, that every step replays through the
rules to the hash it records, and that the game is over: the outcome, the turns and the rerolls
ranked are the replay's, never the header's. Anything else is refused in one line naming why, and
a refused save is no try. One entry per identity and challenge is the store's own key (`enter`).

What no server can tell: the seed is public, so a player may rehearse the day's game offline
before the try they submit; and whether a person or a program chose the moves (a save that says a
bot played is ranked apart, and a save can be edited to say otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import trio

from cthulhu.savegame.challenge import Challenge, about, by_id, challenge
from cthulhu.net import BoardMsg, BoardRow, ChallengeRow, ChallengesMsg, Entered
from cthulhu.savegame import SaveError, decode

from .refused import Refused
from .store import ChallengeEntry
from .table import setup_words
from .verified import Verified, verified

if TYPE_CHECKING:
    from .club import Club
    from .store import Identity

MAX_SAVE = 512 * 1024  # bytes a try may send (a long solo game without snapshots is a few tens of KiB)
BOARD_SIZE = 100


class Forged(Exception):
    """A submitted save refused: `reason` is the one line the submitter reads."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def open_now(today: date) -> list[Challenge]:
    """The challenges taking tries on `today` (UTC): the day's and the week's, and the ones that
    ended yesterday (a game begun before midnight may be sent after it)."""
    yesterday = today - timedelta(days=1)
    out = [challenge("daily", today), challenge("weekly", today)]
    for past in (challenge("daily", yesterday), challenge("weekly", yesterday)):
        if past.last == yesterday:
            out.append(past)
    return out


def check_try(data: bytes, wanted: Challenge, content: Any = None) -> Verified:
    """The game in `data` if it is a finished, honest game of `wanted`; `Forged` naming why not."""
    try:
        save = decode(data)
    except SaveError as exc:
        raise Forged(f"not a whole save: {exc.message}") from None
    if save.setup.seed != wanted.setup.seed:
        raise Forged(f"its seed is not the one {wanted.id} names")
    theirs, ours = save.setup.model_dump(mode="json"), wanted.setup.model_dump(mode="json")
    changed = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))  # (a set-up choice is a key of its own)
    if changed:
        raise Forged(f"its set-up is not the one {wanted.id} names (its {', '.join(changed)} differ)")
    try:
        return verified(save, content)
    except SaveError as exc:
        raise Forged(exc.message) from None


@dataclass
class Upload:
    """A try arriving in parts over one lobby session: the parts so far, in order."""

    challenge: str
    parts: int
    seq: int
    data: bytearray = field(default_factory=bytearray)
    got: int = 0


class Challenges:
    """The server's side of the challenges: listings, boards, and tries checked off the event loop."""

    def __init__(self, club: Club) -> None:
        self.club = club
        self.server = club.server
        self._limiter = trio.CapacityLimiter(1)  # one replay at a time: tries wait their turn, tables never do

    def today(self) -> date:
        return self.server.wall().date()

    async def listing(self, seq: int, identity: Identity | None) -> ChallengesMsg:
        rows = []
        for one in open_now(self.today()):
            _, total = await self.club.in_store(lambda: self.server.store.board(one.id, 0))
            mine = None
            if identity is not None:
                entry = await self.club.in_store(lambda: self.server.store.entry(one.id, identity.id))
                mine = None if entry is None else _row(None, entry)
            rows.append(ChallengeRow(id=one.id, kind=one.kind, first=one.first.isoformat(), last=one.last.isoformat(), mode=one.setup.mode,
                                     setup=setup_words(one.setup)[0], about=about(one.setup), seed=one.setup.seed, entries=total, mine=mine))
        return ChallengesMsg(seq=seq, today=self.today().isoformat(), rows=rows)

    async def board(self, seq: int, name: str) -> BoardMsg:
        wanted = by_id(name)
        if wanted is None:
            raise Refused("no_such_challenge", "there is no challenge of that name (daily-YYYY-MM-DD or weekly-YYYY-Www)")
        entries, total = await self.club.in_store(lambda: self.server.store.board(wanted.id, BOARD_SIZE))
        rows = [_row(None if entry.bots else n, entry) for n, entry in enumerate(entries, start=1)]  # bots' games: apart, unranked
        return BoardMsg(seq=seq, challenge=wanted.id, total=total, rows=rows)

    async def submit(self, upload: Upload, identity: Identity) -> Entered:
        """Check and enter a whole try; `Refused` (`forged`, `already_entered`, `closed`) otherwise."""
        wanted = by_id(upload.challenge)
        if wanted is None or wanted.id not in {c.id for c in open_now(self.today())}:
            raise Refused("closed", "that challenge takes no tries now (cthulhu challenge HOST lists the ones that do)")
        store = self.server.store
        if await self.club.in_store(lambda: store.entry(wanted.id, identity.id)) is not None:
            raise Refused("already_entered", f"you have had your try at {wanted.id}")
        data = bytes(upload.data)
        try:
            game = await trio.to_thread.run_sync(check_try, data, wanted, limiter=self._limiter)
        except Forged as exc:
            raise Refused("forged", f"refused: {exc.reason}") from None
        entry = ChallengeEntry(challenge=wanted.id, identity=identity.id, name=identity.name, outcome=game.outcome, turns=game.turns,
                               rerolls=game.rerolls, steps=game.steps, bots=game.bots, at=self.server.now())
        if not await self.club.in_store(lambda: store.enter(entry, data)):
            raise Refused("already_entered", f"you have had your try at {wanted.id}")
        entries, _ = await self.club.in_store(lambda: store.board(wanted.id, BOARD_SIZE))
        rank = None if entry.bots else next((n for n, e in enumerate(entries, start=1) if e.identity == identity.id), None)
        return Entered(seq=upload.seq, challenge=wanted.id, rank=rank, outcome=entry.outcome, turns=entry.turns, rerolls=entry.rerolls,
                       bots=entry.bots)


def _row(rank: int | None, entry: ChallengeEntry) -> BoardRow:
    return BoardRow(rank=rank, name=entry.name, outcome=entry.outcome, turns=entry.turns, rerolls=entry.rerolls, bots=entry.bots, at=entry.at)
