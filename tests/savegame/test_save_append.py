"""The autosave appends: what a write costs does not grow with the game, writes that finish out of
order or fail leave a file that loads, and a take-back rewrites the file whole."""

from __future__ import annotations

import trio

from cthulhu.core import Game, Setup
from cthulhu.savegame import SaveWriter, decode, load, put, replay
from cthulhu.savegame import file as savefile
from cthulhu.table.autosave import HostSave
from support.saveplay import any_mode, play


def _records(data: bytes) -> int:
    """How many records follow the body."""
    at = savefile._V1_PREAMBLE + int.from_bytes(data[10:18], "big")
    n = 0
    while at < len(data):
        _mark, length, _check, _sum = savefile._RECORD.unpack_from(data, at)
        at += savefile._RECORD.size + length
        n += 1
    return n


def test_the_bytes_written_per_command_stay_flat_as_the_game_grows(tmp_path, content, monkeypatch):
    """The old writer rewrote the whole file after every command (bytes per command grew with the
    game); now a command writes one record, and the rewrites once the records outweigh the body
    keep the average within a small multiple of a record."""
    game = Game.new(Setup(mode="main", seed=19, players=5), content)  # 301 random-bot commands
    path = tmp_path / "long.save"
    writer = SaveWriter(path, game, snapshot_every=25)
    sizes: list[int] = []
    written: list[int] = []
    real_put = put

    def counting_put(where, chunk, *, fsync=True):
        written.append(len(chunk.data))
        real_put(where, chunk, fsync=fsync)

    monkeypatch.setattr("cthulhu.savegame.writer.put", counting_put)
    play(game, writer.append, steps=400)
    sizes.append(path.stat().st_size)
    steps = game.step
    assert steps >= 250
    early, late = written[: steps // 6], written[-steps // 6 :]
    assert sorted(late)[len(late) // 2] <= 1.5 * sorted(early)[len(early) // 2]  # the median write: one record
    assert sum(late) <= 3 * sum(early) + 6 * sizes[-1]  # rewrites included: bounded by the file, not the steps squared
    save = load(path)
    assert save.last_step == steps and save.hash_at(steps) == game.state_hash()
    replay(save, content, verify=True)
    assert game.outcome is not None and _records(path.read_bytes()) == 0  # a finished game's file is compact


def test_an_append_cut_off_by_a_failed_write_is_replaced_by_the_next(tmp_path, content):
    game = Game.new(Setup(mode=any_mode(), seed=5, players=2), content)
    path = tmp_path / "g.save"
    writer = SaveWriter(path, game, autosave=False)
    play(game, writer.append, steps=3)
    writer.write()  # the whole file
    play(game, writer.append, steps=2)
    first = writer.chunk()
    assert first.offset == path.stat().st_size
    put(path, first)
    with open(path, "ab") as f:  # what a write that failed halfway leaves: part of a record
        f.write(first.data[: len(first.data) // 2])
    writer.lost(first)
    assert decode(path.read_bytes()).last_step == game.step  # the cut record is ignored
    play(game, writer.append, steps=2)
    again = writer.chunk()
    assert again.offset is None  # after a failure: the whole file
    put(path, again)
    writer.written(again)
    play(game, writer.append, steps=1)
    nxt = writer.chunk()
    put(path, nxt)
    with open(path, "ab") as f:
        f.write(b"\xc1+\x00")  # a record header cut short
    put(path, nxt)  # the same chunk again: it cuts back to its offset first
    save = load(path)
    assert save.last_step == game.step and save.hash_at(game.step) == game.state_hash()


def test_writes_that_finish_out_of_order_leave_the_newest(tmp_path, content):
    """Two saves in flight (the game loop's and a joiner's): the older may finish last; it is not
    written over the newer, and the next write still appends to what is on disk."""
    game = Game.new(Setup(mode=any_mode(), seed=6, players=2), content)
    path = tmp_path / "o.save"
    writer = SaveWriter(path, game, autosave=False)
    saves = HostSave(writer, fsync=False)
    play(game, writer.append, steps=2)
    assert saves.save_blocking()
    play(game, writer.append, steps=1)
    older = writer.chunk()
    play(game, writer.append, steps=1)
    newer = writer.chunk()
    assert saves._write(writer, newer, False)
    writer.written(newer)
    assert not saves._write(writer, older, False)  # a newer state is on disk
    writer.written(older)  # heard late: changes nothing
    play(game, writer.append, steps=1)
    assert trio.run(saves.save)
    data = path.read_bytes()
    assert _records(data) >= 2
    assert decode(data).last_step == game.step


def test_a_record_built_on_a_write_another_replaced_is_built_again(tmp_path, content):
    """A seat change's save and a step's are built on the same write and land one after the other
    (two tasks). Before, the second took the first's place, and a save built as the first's news
    came in was put where the first had ended, inside the second. That was a server's save "whose
    header says step 1 but the log has 2 commands", which no process could open again."""
    game = Game.new(Setup(mode=any_mode(), seed=8, players=2), content)
    path = tmp_path / "r.save"
    writer = SaveWriter(path, game, autosave=False)
    saves = HostSave(writer, fsync=False)
    play(game, writer.append, steps=1)
    assert saves.save_blocking()
    writer.set_players([{"seat": 0, "name": "Ann"}])
    seat_change = writer.chunk()
    play(game, writer.append, steps=1)
    step = writer.chunk()
    assert seat_change.offset == step.offset  # both on top of the same write
    assert saves._write(writer, seat_change, False)
    assert saves._write(writer, step, False) is None  # it would lie over the seat change's record
    assert saves._write(writer, writer.chunk(), False)  # built again: on top of it
    writer.written(seat_change)  # news heard late changes nothing
    play(game, writer.append, steps=1)
    assert trio.run(saves.save)
    save = load(path)
    assert save.last_step == game.step and save.hash_at(game.step) == game.state_hash()
    assert [p.name for p in save.header.players] == ["Ann"]
    replay(save, content, verify=True)


def test_a_take_back_rewrites_the_file_whole(tmp_path, content):
    game = Game.new(Setup(mode="main", seed=21, players=2), content)
    path = tmp_path / "u.save"
    writer = SaveWriter(path, game)
    while not (_records(path.read_bytes()) and game.undo_horizon(game.prompt.seat)) if path.exists() else True:
        play(game, writer.append, steps=1)
    assert _records(path.read_bytes()) >= 1
    game.undo(game.prompt.seat, 1)
    writer.truncate(game.step)
    data = path.read_bytes()
    assert _records(data) == 0
    assert decode(data).last_step == game.step
    play(game, writer.append, steps=1)
    assert _records(path.read_bytes()) == 1 and load(path).hash_at(game.step) == game.state_hash()
