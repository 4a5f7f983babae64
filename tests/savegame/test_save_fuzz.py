"""Fuzzing the save decoder and replay: whatever the bytes, the answer is a save or a `SaveError`.

Mutations with a *valid* checksum (as a hand-edited or maliciously crafted
file would have) go all the way through replay too, because the checksum only
proves the bytes were not damaged, not that they make sense.
"""

from __future__ import annotations

import random

import msgpack
import pytest

from cthulhu.core import Game, Setup
from cthulhu.savegame import file as savefile
from cthulhu.savegame import SaveError, SaveWriter, decode, encode, load, seek, verify
from support.saveplay import any_mode, play

SCALARS = [0, 1, -1, 2**40, "", "x", "kind", None, True, False, b"\x00" * 16, 1.5, [], {}]


def _random_value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 3 or roll < 0.6:
        return rng.choice(SCALARS)
    if roll < 0.8:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["kind", "seat", "step", "state", "x", 1]): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _mutate(rng: random.Random, node):
    """Replace one random subtree of `node` with a random value (in place when possible)."""
    path = []
    while isinstance(node, (dict, list)) and node and rng.random() < 0.8:
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append((node, key))
        node = node[key]
    if not path:
        return _random_value(rng)
    parent, key = path[-1]
    parent[key] = _random_value(rng)
    return None


@pytest.fixture(scope="module")
def autosaved(tmp_path_factory, content):
    """The bytes the autosave left: a body and the records appended since."""
    path = tmp_path_factory.mktemp("fuzz") / "g.save"
    game = Game.new(Setup(mode=any_mode(), seed=31, players=2), content)
    writer = SaveWriter(path, game, snapshot_every=4)
    play(game, writer.append, steps=20)
    return path.read_bytes()


@pytest.fixture(scope="module")
def body(autosaved):
    """The same save written whole (no records: every byte is checked by the body's checksum)."""
    return encode(decode(autosaved))


def _edited(rng: random.Random, body: bytes) -> bytes:
    data = bytearray(body)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        pos = rng.randrange(len(data))
        if op < 0.4:
            data[pos] = rng.randrange(256)
        elif op < 0.7:
            del data[pos : pos + rng.randint(1, 50)]
        else:
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
    return bytes(data)


def test_random_byte_edits_of_an_autosave_give_save_errors_or_the_game_some_steps_earlier(autosaved):
    """In the appended records only a cut at the very end passes (a kill mid-append leaves one):
    then the save is the game at an earlier step, never a mix."""
    rng = random.Random(5)
    whole = decode(autosaved)
    earlier = 0
    for _ in range(600):
        data = _edited(rng, autosaved)
        try:
            save = decode(data)
        except SaveError:
            continue
        assert save.steps == whole.steps[: save.last_step] and save.header.step == save.last_step
        earlier += save.last_step < whole.last_step
    assert earlier, "no edit cut the last record"


def test_random_byte_edits_only_ever_give_save_errors(body):
    rng = random.Random(7)
    for _ in range(400):
        data = _edited(rng, body)
        if data == body:
            continue
        with pytest.raises(SaveError):
            decode(data)


def test_random_bodies_behind_a_valid_checksum_only_ever_give_save_errors():
    rng = random.Random(11)
    for _ in range(400):
        with pytest.raises(SaveError):
            decode(savefile.frame(msgpack.packb(_random_value(rng), use_bin_type=True)))


def test_edited_fields_with_a_valid_checksum_fail_cleanly_in_load_verify_and_seek(body, content):
    rng = random.Random(3)
    original = msgpack.unpackb(body[50:], strict_map_key=False)
    outcomes = {"load": 0, "replay": 0, "ok": 0}
    for _ in range(300):
        edited = msgpack.unpackb(body[50:], strict_map_key=False)
        replaced = _mutate(rng, edited)
        if replaced is not None:
            edited = replaced
        data = savefile.frame(msgpack.packb(edited, use_bin_type=True))
        try:
            save = decode(data)
        except SaveError:
            outcomes["load"] += 1
            continue
        try:
            verify(save, content, allow_other_content=True)
            for step in range(0, save.last_step + 1, 3):
                seek(save, step, content, allow_other_content=True)
        except SaveError:
            outcomes["replay"] += 1
            continue
        outcomes["ok"] += 1
    assert outcomes["load"] and outcomes["replay"], outcomes
    assert decode(body) == decode(savefile.frame(msgpack.packb(original, use_bin_type=True)))


def test_deep_nesting_in_a_command_is_a_save_error_not_a_crash(body, content, tmp_path):
    """msgpack decodes up to 1,024 levels; that is deep enough to break naive recursion."""
    save = decode(body)
    deep = b"\x91" * 1000 + b"\xc0"  # [[[...[nil]...]]]
    command = b"\x82" + msgpack.packb("kind") + msgpack.packb("move") + msgpack.packb("to") + deep
    step = b"\x93" + msgpack.packb(save.steps[0].seat) + command + msgpack.packb(bytes.fromhex(save.steps[0].hash))
    header = save.header.model_dump(mode="json") | {"step": 1}
    data = savefile.frame(
        savefile.pack_body(header, save.setup.model_dump(mode="json"), save.initial_hash, save.snapshot_every, [step], [])
    )
    path = tmp_path / "deep.save"
    path.write_bytes(data)
    with pytest.raises(SaveError, match="step 1"):
        verify(load(path), content, allow_other_content=True)
