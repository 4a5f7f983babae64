"""The save file format on real files: round trips, damage, versions, atomic writes, folders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

from cthulhu.core import Game, Setup
from cthulhu.savegame import file as savefile
from cthulhu.savegame import (
    FORMAT_VERSION,
    BadStructure,
    CorruptSave,
    NotASave,
    SaveIOError,
    SaveWriter,
    TruncatedSave,
    UnsupportedFormat,
    decode,
    replay,
    default_saves_dir,
    encode,
    hash_token,
    list_saves,
    load,
    new_save_path,
    sweep_temp_files,
    token_matches,
    user_saves_dir,
    write_atomic,
)
from support.saveplay import any_mode, play


@pytest.fixture
def saved(tmp_path, content):
    """A real save of a game 30 commands in, written by the autosave writer."""
    game = Game.new(Setup(mode=any_mode(), seed=11, players=2), content)
    path = tmp_path / "game.save"
    writer = SaveWriter(path, game, players=[{"seat": 0, "name": "Ann", "token_hash": hash_token("t0")}], snapshot_every=7)
    log = play(game, writer.append, steps=30)
    return path, game, log


def test_round_trip_keeps_every_field(saved):
    path, game, log = saved
    save = load(path)
    assert save.header.format == FORMAT_VERSION
    assert save.header.mode == game.setup.mode
    assert save.header.content_version == game.content.version
    assert save.setup == game.setup
    assert [(s.seat, s.command, s.hash) for s in save.steps] == log
    assert save.header.step == len(log) == save.last_step
    assert save.header.players[0].name == "Ann"
    assert save.hash_at(save.last_step) == game.state_hash()
    assert 0 in save.snapshots and all(k % 7 == 0 or k == save.last_step for k in save.snapshots)


def test_encode_of_a_loaded_save_gives_the_same_data_back(saved):
    path, _, _ = saved
    save = load(path)
    again = decode(encode(save))
    assert again == save
    assert encode(again) == encode(save)


def test_the_seed_is_kept_but_seat_tokens_are_not(saved):
    path, _, _ = saved
    data = path.read_bytes()
    save = load(path)
    assert save.setup.seed == 11
    assert token_matches("t0", save.header.players[0].token_hash)
    assert not token_matches("t1", save.header.players[0].token_hash)
    assert not token_matches("t0", None)
    assert hash_token("t0").encode() in data and b"\xa2t0" not in data


# -- damaged files: each names its problem and leaves the file alone ---------------------------------


def _damaged_cases(data: bytes) -> dict[str, tuple[bytes, type, str]]:
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    future = bytearray(data)
    future[8:10] = (FORMAT_VERSION + 1).to_bytes(2, "big")
    ancient = bytearray(data)
    ancient[8:10] = (0).to_bytes(2, "big")
    compact = encode(decode(data))  # the autosave's file has appended records; a cut in them is an earlier step
    return {
        "truncated body": (compact[: len(compact) - 100], TruncatedSave, "truncated"),
        "truncated preamble": (data[:20], TruncatedSave, "truncated"),
        "truncated magic": (data[:5], TruncatedSave, "truncated"),
        "flipped byte": (bytes(flipped), CorruptSave, "checksum"),
        "appended garbage": (data + b"\x00junk", CorruptSave, "unexpected bytes"),
        "newer format": (bytes(future), UnsupportedFormat, f"format version {FORMAT_VERSION + 1}"),
        "older format without migration": (bytes(ancient), UnsupportedFormat, "format version 0"),
        "text file": (b"this is a letter to my aunt, not a save\n", NotASave, "not a cthulhu save"),
        "json file": (b'{"steps": []}', NotASave, "not a cthulhu save"),
        "empty file": (b"", NotASave, "empty"),
        "not msgpack inside": (savefile.frame(b"\xc1\xc1\xc1 not msgpack"), BadStructure, "not valid msgpack"),
        "msgpack but not a map": (savefile.frame(msgpack.packb([1, 2, 3])), BadStructure, "not a map"),
        "map without fields": (savefile.frame(msgpack.packb({"header": {}})), BadStructure, "field"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "truncated body",
        "truncated preamble",
        "truncated magic",
        "flipped byte",
        "appended garbage",
        "newer format",
        "older format without migration",
        "text file",
        "json file",
        "empty file",
        "not msgpack inside",
        "msgpack but not a map",
        "map without fields",
    ],
)
def test_damaged_file_gives_a_clear_typed_error_and_stays_unchanged(saved, tmp_path, case):
    path, _, _ = saved
    data, error, words = _damaged_cases(path.read_bytes())[case]
    bad = tmp_path / "bad.save"
    bad.write_bytes(data)
    before = (bad.read_bytes(), bad.stat().st_mtime_ns)
    with pytest.raises(error) as info:
        load(bad)
    assert words in str(info.value)
    assert str(bad) in str(info.value)
    assert (bad.read_bytes(), bad.stat().st_mtime_ns) == before


def test_every_truncation_point_is_an_error_never_a_crash(saved, tmp_path):
    path, _, _ = saved
    data = encode(load(path))
    for cut in range(0, len(data), max(1, len(data) // 300)):
        with pytest.raises((TruncatedSave, NotASave)):
            decode(data[:cut])


def test_the_autosave_appends_and_a_cut_in_its_records_is_the_game_some_steps_earlier(saved, content):
    """What a `kill -9` during an append leaves: the last record cut short. The file loads as the
    game at the record before it (every hash checked by replay), never an error, never a mix; a cut
    in the body before the records is an error as ever."""
    path, game, _ = saved
    data = path.read_bytes()
    save = decode(data)
    compact = encode(save)
    assert save.last_step == game.step == 30
    base = savefile._V1_PREAMBLE + int.from_bytes(data[10:18], "big")
    assert base < len(data) and data[base : base + 2] == savefile.RECORD_MARK, "the autosave appended records"
    assert len(data) < 2 * len(compact)  # rewritten whole once the records outweigh the body
    firsts: dict[int, bytes] = {}
    for cut in range(base, len(data)):
        earlier = decode(data[:cut])
        assert earlier.steps == save.steps[: earlier.last_step]
        assert earlier.header.step == earlier.last_step
        firsts.setdefault(earlier.last_step, data[:cut])
    assert len(firsts) >= 2  # the body's step and at least one record after it
    for step, cut_data in firsts.items():
        replay(decode(cut_data), content, verify=True)
    for cut in range(0, base, max(1, base // 100)):
        with pytest.raises((TruncatedSave, NotASave)):
            decode(data[:cut])


def test_every_single_bit_flip_in_the_preamble_and_a_sample_of_the_body_is_caught(saved):
    path, _, _ = saved
    data = path.read_bytes()
    positions = list(range(0, 50)) + list(range(50, len(data), max(1, len(data) // 200)))
    for pos in positions:
        for bit in (0, 7):
            bad = bytearray(data)
            bad[pos] ^= 1 << bit
            with pytest.raises(savefile.SaveError):
                decode(bytes(bad))


def test_a_wrong_field_with_a_valid_checksum_is_a_structure_error(saved):
    path, _, _ = saved
    body = msgpack.unpackb(encode(load(path))[50:], strict_map_key=False)
    body["header"]["step"] = "seven"
    with pytest.raises(BadStructure, match="header.step"):
        decode(savefile.frame(msgpack.packb(body)))
    body["header"]["step"] = 999
    with pytest.raises(BadStructure, match="step 999"):
        decode(savefile.frame(msgpack.packb(body)))


def test_a_stand_ins_line_outside_the_log_is_a_structure_error(saved):
    path, _, _ = saved
    body = msgpack.unpackb(encode(load(path))[50:], strict_map_key=False)
    body["header"]["sealed"] = [body["header"]["step"]]
    assert decode(savefile.frame(msgpack.packb(body))).header.sealed == [body["header"]["step"]]
    for outside in (0, body["header"]["step"] + 1):
        body["header"]["sealed"] = [outside]
        with pytest.raises(BadStructure, match=f"stand-in's line is at step {outside}, outside the log"):
            decode(savefile.frame(msgpack.packb(body)))


def test_missing_and_folder_paths_are_io_errors(tmp_path):
    with pytest.raises(SaveIOError, match="no such file"):
        load(tmp_path / "nope.save")
    with pytest.raises(SaveIOError, match="folder"):
        load(tmp_path)


# -- versions and migrations ------------------------------------------------------------------------


def test_an_older_format_loads_through_its_migration(saved, monkeypatch):
    """Pretend the current format is 4 and v3 files need a migration: it runs, in order."""
    path, _, _ = saved
    data = path.read_bytes()
    ran = []

    def v3_to_v4(body):
        ran.append(body["header"]["format"])
        body["header"]["summary"] = {**body["header"]["summary"], "migrated": True}
        return body

    monkeypatch.setattr(savefile, "FORMAT_VERSION", 4)
    monkeypatch.setitem(savefile.DECODERS, 4, savefile.DECODERS[3])
    monkeypatch.setitem(savefile.MIGRATIONS, 3, v3_to_v4)
    save = decode(data)
    assert ran == [3]
    assert save.header.format == 4 and save.header.summary["migrated"] is True


def test_a_format_1_save_from_before_dice_commitments_still_loads():
    """Kept from the first release (tests/savegame/data): it migrates to a save with no commitment."""
    data = (Path(__file__).parent / "data" / "format1-midgame-main.save").read_bytes()
    assert data[8:10] == (1).to_bytes(2, "big")
    save = decode(data)
    assert save.header.format == FORMAT_VERSION and save.dice is None
    assert save.last_step == save.header.step > 0


def test_the_migration_table_covers_every_older_readable_version():
    for version in savefile.DECODERS:
        if version < FORMAT_VERSION:
            assert version in savefile.MIGRATIONS, f"format {version} has a decoder but no migration"


# -- atomic writes and temp files --------------------------------------------------------------------


def test_write_atomic_replaces_the_whole_file_and_leaves_no_temp(tmp_path):
    target = tmp_path / "x.save"
    write_atomic(target, b"first")
    write_atomic(target, b"second, longer")
    assert target.read_bytes() == b"second, longer"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.save"]
    assert (target.stat().st_mode & 0o777) == 0o600


def test_write_atomic_into_a_missing_folder_is_a_save_error(tmp_path):
    with pytest.raises(SaveIOError, match="cannot write"):
        write_atomic(tmp_path / "no" / "such" / "x.save", b"data")


def test_stale_temp_files_of_dead_writers_are_swept_and_live_ones_kept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".g.save.{dead_pid}.abcd1234.tmp"
    live = tmp_path / f".g.save.{os.getppid()}.abcd1234.tmp"
    other = tmp_path / f".h.save.{dead_pid}.abcd1234.tmp"
    for p in (stale, live, other):
        p.write_bytes(b"partial")
    removed = sweep_temp_files(tmp_path, "g.save")
    assert removed == [stale]
    assert live.exists() and other.exists() and not stale.exists()
    assert sweep_temp_files(tmp_path) == [other]


def test_a_new_writer_sweeps_stale_temp_files_of_its_save(tmp_path, content):
    dead_pid = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout)
    stale = tmp_path / f".game.save.{dead_pid}.00000000.tmp"
    stale.write_bytes(b"half a save")
    game = Game.new(Setup(mode=any_mode(), seed=1), content)
    writer = SaveWriter(tmp_path / "game.save", game)
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".game.save.lock"]  # held; nothing to write before a command
    seat = game.prompt.seat
    command = game.legal(seat)[0]
    game.apply(seat, command)
    writer.append(seat, command.wire(), game.state_hash())
    assert sorted(p.name for p in tmp_path.iterdir()) == [".game.save.lock", "game.save"]  # written from the first command
    writer.close()
    assert [p.name for p in tmp_path.iterdir()] == ["game.save"]


# -- folders ---------------------------------------------------------------------------------------


def test_default_folder_is_the_checkouts_saves_and_override_wins(tmp_path):
    from cthulhu.savegame.folder import checkout_root, user_saves_dir

    # From a checkout (editable install) saves go to its saves/; an installed copy uses the data dir.
    root = checkout_root()
    assert root is None or root == Path(savefile.__file__).resolve().parent.parent
    assert default_saves_dir() == (root / "saves" if root is not None else user_saves_dir())
    assert default_saves_dir(tmp_path / "mine") == tmp_path / "mine"


def test_user_folder_follows_xdg_then_home(tmp_path):
    assert user_saves_dir({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "cthulhu" / "saves"
    assert user_saves_dir({"HOME": str(tmp_path)}) == tmp_path / ".local" / "share" / "cthulhu" / "saves"


def test_checkout_detection_needs_the_cthulhu_pyproject(tmp_path):
    from cthulhu.savegame.folder import checkout_root

    for d in ("core", "net"):
        (tmp_path / d).mkdir()
    assert checkout_root(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "other"\n')
    assert checkout_root(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "cthulhu"\n')
    assert checkout_root(tmp_path) == tmp_path


def test_listing_shows_good_and_damaged_saves_and_hides_temp_files(saved, tmp_path):
    path, _, _ = saved
    (tmp_path / "broken.save").write_bytes(encode(load(path))[:-3])
    (tmp_path / ".game.save.1.x.tmp").write_bytes(b"partial")
    (tmp_path / "notes.txt").write_text("not a save")
    entries = list_saves(tmp_path)
    assert [e.path.name for e in entries] == ["broken.save", "game.save"]
    assert isinstance(entries[0].error, TruncatedSave) and entries[0].save is None
    assert entries[1].save is not None and entries[1].error is None


def test_new_save_path_never_overwrites(tmp_path):
    first = new_save_path(tmp_path, "Cthulhu / The Drowned")
    assert first.name == "Cthulhu-The-Drowned.save"
    first.write_bytes(b"x")
    assert new_save_path(tmp_path, "Cthulhu / The Drowned").name == "Cthulhu-The-Drowned-2.save"
