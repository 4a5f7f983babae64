"""Save files, a layer of their own: the game record on disk, below the wire (`net/`) and the app.

Layout: `file` (bytes <-> a checked `SaveFile`), `writer` (atomic writes, the autosave log),
`replay` (verify every step, seek), `folder` (where saves live, listings), `lock` (one process per
save), `dice` (the commitment a save keeps). This module is the public surface; it imports only
the rules core.

    writer = SaveWriter(path, game, players=[...])      # autosave from the first command
    writer.append(seat, command.wire(), game.state_hash())  # after every apply
    save = load(path)                                   # checks the file; SaveError if damaged
    game = replay(save, content, verify=True, seek=None)  # checks every hash
"""

from .folder import (
    SaveEntry,
    default_saves_dir,
    delete_save,
    find_save,
    list_saves,
    new_save_path,
    resolve_save,
    save_name,
    user_data_dir,
    user_saves_dir,
)
from .lock import SaveLocked, hold, release
from .file import (
    FORMAT_VERSION,
    MIGRATIONS,
    STAND_IN_LINE,
    SUFFIX,
    BadStructure,
    ContentMismatch,
    CorruptSave,
    DiceMismatch,
    DiceRecord,
    HashMismatch,
    NotASave,
    PlayerRecord,
    ReplayRejected,
    SaveError,
    SaveFile,
    SaveHeader,
    SaveIOError,
    SaveStep,
    TruncatedSave,
    UnsupportedFormat,
    decode,
    encode,
    load,
)
from .luck import luck_of
from .replay import check_dice, replay, resume, seek, steps_told, verify
from .writer import Chunk, SaveWriter, hash_token, put, save_game, sweep_temp_files, token_matches, write_atomic

__all__ = [
    "luck_of",
    "FORMAT_VERSION",
    "MIGRATIONS",
    "STAND_IN_LINE",
    "SUFFIX",
    "BadStructure",
    "ContentMismatch",
    "CorruptSave",
    "DiceMismatch",
    "DiceRecord",
    "HashMismatch",
    "NotASave",
    "PlayerRecord",
    "ReplayRejected",
    "SaveEntry",
    "SaveError",
    "SaveFile",
    "SaveHeader",
    "SaveIOError",
    "SaveStep",
    "SaveWriter",
    "TruncatedSave",
    "UnsupportedFormat",
    "check_dice",
    "decode",
    "default_saves_dir",
    "delete_save",
    "encode",
    "find_save",
    "hold",
    "release",
    "save_name",
    "SaveLocked",
    "user_data_dir",
    "hash_token",
    "list_saves",
    "load",
    "new_save_path",
    "replay",
    "resolve_save",
    "resume",
    "save_game",
    "seek",
    "steps_told",
    "sweep_temp_files",
    "token_matches",
    "user_saves_dir",
    "verify",
    "write_atomic",
    "Chunk",
    "put",
]
