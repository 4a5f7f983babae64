"""What a `TableSpec` resolves to, once, before its host is built: a new game or a loaded one
(replayed and checked), the command log and its save file, the dice commitment, the seats a save
gives back, the table's id and code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cthulhu.core import Game, Setup, modes
from cthulhu.net import new_table_code, new_table_id
from cthulhu.savegame import PlayerRecord, SaveError, SaveFile, SaveWriter, load, resume
from cthulhu.savegame.dice import Dice
from cthulhu.savegame.folder import autosave_folder, new_save_path
from cthulhu.savegame.shelf import load_kept

from .log import CommandLog, MemoryLog
from .spec import TableSpec


@dataclass(frozen=True)
class Opened:
    """What `open_table` resolved: the game, where its steps go, the table's identity.
    `warning` is for the person who opened it (the saves folder could not be written)."""

    game: Game
    log: CommandLog
    writer: SaveWriter | None
    dice: Dice
    players: list[PlayerRecord]
    table_id: str
    code: str | None
    warning: str | None = None

    @property
    def unsaved(self) -> str | None:
        """Why this game has no save file though one was asked for (None: it has, or was kept in memory on purpose)."""
        return "no saves folder can be written" if self.writer is None and self.warning is not None else None


def resolve(spec: TableSpec) -> Opened:
    save: SaveFile | None = None
    if isinstance(spec.start, Game):
        game = spec.start
    elif isinstance(spec.start, Setup):
        shelf = spec.save.shelf if spec.save is not None else None
        save = load_kept(shelf) if shelf is not None else None
        if shelf is not None and save is not None:
            if save.setup != spec.start:
                raise SaveError("the save kept here is another game's (its set-up differs)", path=shelf.where)
            game = resume(save)
        else:
            game = Game.new(spec.start)
    else:
        save = load(spec.start)
        game = resume(save)
    mode = modes.get(game.setup.mode)
    for kind in {*spec.bots.values(), spec.stand_ins.kind or mode.default_bot}:
        mode.bot(kind, 0)  # a kind the mode lacks is refused here, naming the ones it has
    table_id = (save.header.table if save is not None else None) or spec.table_id or new_table_id()
    writer, warning = _writer(spec, game, save)
    record: CommandLog
    if writer is not None:
        writer.table = table_id
        if save is not None and save.header.table is None:
            writer.write()  # the table keeps this id (and so its code) even if we are killed before anyone joins
        record = writer
    else:
        memory = MemoryLog()
        for step in save.steps if save is not None else ():
            memory.append(step.seat, step.command, step.hash)  # joiners can still verify every roll
        record = memory
    if writer is not None:
        dice = writer.dice
    elif save is not None and save.dice is not None:
        dice = Dice(save.setup.seed, bytes.fromhex(save.dice.salt))
    else:
        dice = Dice.new(game.setup.seed)
    players = [p for p in save.header.players if spec.keep_seats or p.bot is not None] if save is not None else []
    return Opened(game, record, writer, dice, players, table_id, _code(spec, table_id), warning)


def _writer(spec: TableSpec, game: Game, save: SaveFile | None) -> tuple[SaveWriter | None, str | None]:
    """The save file the log is written to (None: memory only), and what to tell the player."""
    to = spec.save
    if to is None:
        return None, None
    if save is not None:
        path = to.file or (spec.start if isinstance(spec.start, Path) else None)
        if path is None:
            return None, None
        return SaveWriter.resume(path, save, game, fsync=to.fsync, autosave=False, shelf=to.shelf), None
    warning = None
    path = to.file
    if path is None and to.folder is not None:
        folder, warning = autosave_folder(to.folder)
        if folder is not None:
            path = new_save_path(folder, f"{to.stem}{game.setup.mode}-{game.setup.seed}")
    if path is None:
        return None, warning
    # A new game's file waits for its first command (or a seat someone else holds a token for):
    # starting and quitting at once leaves none, and the same choices make the same game again.
    return SaveWriter(path, game, fsync=to.fsync, autosave=False, started=False, shelf=to.shelf), warning


def _code(spec: TableSpec, table_id: str) -> str | None:
    if not spec.remember_code:
        return spec.code
    from cthulhu.net import SeatStore

    store = SeatStore()
    code = spec.code or store.code_for(table_id) or new_table_code()
    try:
        store.remember_code(table_id, code)  # `host --load` serves the same code again
    except (OSError, SaveError):  # a convenience: a full or read-only data folder does not stop the table
        pass
    return code

