"""The story a table tells a joiner: what it sends after the welcome, and at the end.

A peer that sits down (or comes back, or watches) is sent, in order: its welcome (its seat and
token, the table, its view, the dice commitment; at step 0 the events of the set-up), every
command so far for it to verify the dice from the setup (`table.history`), the recap of the
latest events (`table.recap`, its frame built once per change: joins come in floods), and what
happened since it last looked (if it is known); then the game's end if it has come. `Story` owns
the record and the recap that these come from and keeps them with the game step by step.
"""

from __future__ import annotations

from typing import Any

from cthulhu.core import Game
from cthulhu.net import public_setup
from cthulhu.net import encode_frame
from cthulhu.net import PROTOCOL_VERSION, GameOverMsg, Table, Welcome
from cthulhu.savegame.dice import Dice

from .broadcast import Views
from .history import Record
from .log import CommandLog
from .recap import Recap


class Story:
    """The record (every command, when known: None otherwise) and the recap of one game."""

    def __init__(self, game: Game, log: CommandLog, dice: Dice) -> None:
        self.game = game
        self.dice = dice
        commands = log.commands()
        self.record: Record | None = Record(commands, log.sealed) if len(commands) == game.step else None
        # Replayed from the commands (a loaded game), else from now on.
        self.recap = Recap.replayed(game, self.record, sealed=log.sealed) if self.record is not None else Recap()
        self._recap_frame: tuple[tuple[int, int], bytes] | None = None  # ((recap version, step), its frame)

    def step(self, seat: int, wire: dict[str, Any], events: list[dict[str, Any]], *, stand_in: bool) -> None:
        """The game made a step (`seat` played `wire`, which caused `events`)."""
        if self.record is not None:
            self.record.append(seat, wire, sealed=stand_in)
        self.recap.add(self.game.step, events, stand_in=seat if stand_in else None)

    def cut(self, step: int) -> None:
        """A take-back: the story as the game now stands."""
        if self.record is not None:
            self.record.cut(step)
        self.recap.cut(step)

    def joining(self, seat: int | None, token: str | None, table: Table, views: Views, seq: int, seen: int | None, told: int) -> list[bytes]:
        """The frames a joiner at `seat` (None: a spectator) is sent, in order, before the end (if the
        game is over); `seen`: the last step they were told here (None: not known); `told`: the step
        everyone has been told."""
        g = self.game
        sent = views.now(seat)
        opening = [e.wire() for e in g.start_events] if g.step == 0 else []
        welcome = Welcome(proto=PROTOCOL_VERSION, seat=seat, token=token, table=table, seq=seq, view=sent.view,
                          hash=sent.hash, commit=self.dice.commit, setup=public_setup(g.setup), events=opening)
        frames = [encode_frame(welcome.wire()), *(self.record.frames() if self.record is not None else ()), self._recap()]
        if seen is not None and seen < told:
            frames.append(encode_frame(self.recap.since(seen, told).wire()))
        return frames

    def game_over(self) -> bytes:
        """The end, with the seed and its salt: every peer can verify every roll."""
        g = self.game
        return encode_frame(GameOverMsg(outcome=g.outcome, seed=g.setup.seed, step=g.step, state_hash=g.state_hash(), salt=self.dice.salt.hex()).wire())

    def _recap(self) -> bytes:
        key = (self.recap.version, self.game.step)
        if self._recap_frame is None or self._recap_frame[0] != key:
            self._recap_frame = (key, self.recap.frame(self.game.step))
        return self._recap_frame[1]
