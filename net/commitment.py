"""Dice every player can verify: a commitment to the seed at the start, a check at the end.

The host sends ``commit = BLAKE2b-256(seed ‖ salt, person="cthulhu-dice")``
in every `welcome` (the bytes are in net/PROTOCOL.md) and reveals seed and
salt in `game_over`. A peer then checks the commitment, rebuilds the game
from the public setup and the revealed seed, replays the commands it was sent
and compares its own view after every step with the hash the host sent for
that step. A host that picked another seed after committing, or rolled
anything the seed does not give, is caught at the first step that shows it.

The steps a stand-in bot decided (`delta.stand_in`, `history.sealed`) get the host's line in
the replay too: no take-back crosses them, and every view's prompt says how many decisions may be
taken back (`prompt.undo`), so a replay without those lines would not show what an honest table
showed. The line changes only that count, never a roll.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from cthulhu.core import Command, Game, Rejected, Setup
from cthulhu.core.luck import LuckReport, keeper, seats_of
from cthulhu.savegame.dice import opens
from cthulhu.savegame.file import STAND_IN_LINE

from .delta import view_hash


def public_setup(setup: Setup) -> dict[str, Any]:
    """The setup every peer may know from the start: all of it but the seed."""
    return {k: v for k, v in setup.model_dump(mode="json").items() if k != "seed"}


@dataclass(frozen=True, slots=True)
class DiceVerdict:
    """What a peer concluded: `status` is "verified", "mismatch" or "unverifiable"."""

    status: str
    message: str
    step: int | None = None
    steps: int = 0
    luck: LuckReport | None = None  # a verified game's luck report, from the same replay

    @property
    def verified(self) -> bool:
        return self.status == "verified"


@dataclass
class GameRecord:
    """What a peer saw of a game, kept to verify it at the end.

    `commands[k-1]` is the k-th command as `(seat, wire)` (None where this peer
    never heard it); `hashes[k]` the view hash the host sent for step k; `sealed` the steps
    the host said a stand-in bot decided.
    """

    seat: int | None = None
    commit: str | None = None
    setup: dict[str, Any] | None = None
    commands: list[tuple[int, dict[str, Any]] | None] = field(default_factory=list)
    hashes: dict[int, str] = field(default_factory=dict)
    sealed: set[int] = field(default_factory=set)
    broken_undo: int | None = None  # a take-back that did not restore the table shown before

    def joined(self, seat: int | None, step: int, view_hash_: str, commit_: str | None, setup: dict[str, Any] | None) -> None:
        self.seat, self.commit, self.setup = seat, commit_, setup
        self._forget_after(step)
        self.commands = self.commands[:step] + [None] * (step - len(self.commands))
        self.saw(step, view_hash_)

    def heard(self, start: int, entries: list[list[Any]], sealed: Collection[int] = ()) -> None:
        """A `history` message: commands `start+1 ...` (for a peer that joined mid-game), and
        the steps among them a stand-in decided."""
        lines = set(sealed)
        for n, entry in enumerate(entries):
            k = start + n
            if 0 <= k < len(self.commands) and isinstance(entry, list) and len(entry) == 2:
                self.commands[k] = (entry[0], entry[1])
                if k + 1 in lines:
                    self.sealed.add(k + 1)

    def stepped(self, step: int, cmd: list[Any] | None, view_hash_: str, stand_in: bool = False) -> None:
        """A delta: a command led to `step` (`stand_in`: a bot decided it for its seat's person),
        or (no command) a take-back went back to it."""
        if cmd is not None and len(cmd) == 2 and step >= 1:
            self._forget_after(step - 1)
            self.commands = self.commands[: step - 1] + [None] * (step - 1 - len(self.commands)) + [(cmd[0], cmd[1])]
            if stand_in:
                self.sealed.add(step)
        elif cmd is None and step < len(self.commands):
            self._forget_after(step)
            del self.commands[step:]
            if self.hashes.get(step) not in (None, view_hash_) and self.broken_undo is None:
                self.broken_undo = step
        for k in [k for k in self.hashes if k > step]:
            del self.hashes[k]
        self.saw(step, view_hash_)

    def saw(self, step: int, view_hash_: str) -> None:
        self.hashes[step] = view_hash_

    def _forget_after(self, step: int) -> None:
        """Before the commands after `step` are cut (taken back, or to be heard again): their lines
        go too (a line is only ever kept with its step's command, so most calls cut nothing)."""
        if len(self.commands) > step:
            self.sealed = {k for k in self.sealed if k <= step}


def new_game(setup: Setup) -> Game:
    return Game.new(setup)


def verify(
    record: GameRecord,
    *,
    seed: int,
    salt: bytes | None,
    final_hash: str,
    make_game: Callable[[Setup], Game] = new_game,
) -> DiceVerdict:
    """Check the commitment, then replay the record from the setup; name the first step that differs."""
    if record.commit is None or salt is None:
        return DiceVerdict("unverifiable", "the host made no commitment to the seed, so the rolls cannot be verified")
    if not opens(record.commit, seed, salt):
        return DiceVerdict("mismatch", "the revealed seed is not the one the host committed to at the start")
    if record.setup is None:
        return DiceVerdict("unverifiable", "the host did not send the setup")
    commands = [c for c in record.commands if c is not None]
    if len(commands) < len(record.commands):
        missing = next(k for k, c in enumerate(record.commands, start=1) if c is None)
        return DiceVerdict("unverifiable", f"the command of step {missing} never reached this seat", missing)
    if record.broken_undo is not None:
        step = record.broken_undo
        return DiceVerdict("mismatch", f"step {step}: a take-back did not restore the table shown at that step", step)
    try:
        game = make_game(Setup.model_validate({**record.setup, "seed": seed}))
    except Exception as exc:  # whatever the host sent, the verdict is a sentence, not a crash
        return DiceVerdict("mismatch", f"step 0: the game cannot be set up from what the host sent ({type(exc).__name__})", 0)
    bad = _differs(record, game, 0)
    if bad:
        return bad
    luck = keeper(game)  # the luck report comes from the same replay: no second pass
    for step, (seat, wire) in enumerate(commands, start=1):
        try:
            events = game.apply(seat, Command.from_wire(wire))
        except Rejected as exc:
            return DiceVerdict("mismatch", f"step {step}: with the revealed seed that command is not legal ({exc.reason})", step)
        except Exception as exc:
            return DiceVerdict("mismatch", f"step {step}: replaying it failed ({type(exc).__name__})", step)
        if luck is not None:
            luck.see(step, events)
        if step in record.sealed:
            game.seal_undo(STAND_IN_LINE)  # as the host did after its stand-in's step
        bad = _differs(record, game, step)
        if bad:
            return bad
    n = len(commands)
    if game.state_hash() != final_hash:
        return DiceVerdict("mismatch", f"step {n}: the final state is not the one the host announced", n)
    return DiceVerdict(
        "verified",
        f"every roll verified: the seed matches the commitment made at the start, and all {n} steps replay to what the host showed",
        steps=n,
        luck=seats_of(luck.report(), game) if luck is not None else None,
    )


def _differs(record: GameRecord, game: Game, step: int) -> DiceVerdict | None:
    shown = record.hashes.get(step)
    if shown is None or view_hash(game.view(record.seat)) == shown:
        return None
    what = "the setup" if step == 0 else "the table"
    return DiceVerdict("mismatch", f"step {step}: {what} the host showed is not what the revealed seed gives (a roll, card or draw differs)", step)
