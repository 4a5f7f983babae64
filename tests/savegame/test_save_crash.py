"""`kill -9` a process that autosaves after every command: the save survives, whole and current.

The child plays bot games into one save file and prints `seed step hash` after
each `append()` returns, i.e. once the step is on disk. After SIGKILL at a
random moment the file must load, verify, and hold either the last printed
step or the one the child was writing when it died, never anything older.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cthulhu.savegame import load, replay, sweep_temp_files
from support.saveplay import any_mode

CHILD = r"""
import sys
sys.path.insert(0, sys.argv[3])
from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.savegame import SaveWriter

path, mode = sys.argv[1], sys.argv[2]


def say(*parts):
    sys.stdout.write(" ".join(map(str, parts)) + "\n")
    sys.stdout.flush()

seed = 100
while True:
    game = Game.new(Setup(mode=mode, seed=seed, players=2))
    writer = SaveWriter(path, game, snapshot_every=5)  # a new game's autosave waits for its first command
    bot = make_bot("random", mode, seed)
    while game.outcome is None:
        seat = game.prompt.seat
        command = bot.choose(game, seat)
        game.apply(seat, command)
        writer.append(seat, command.wire(), game.state_hash())
        say(seed, game.step, game.state_hash())
    seed += 1
"""


def _kill_once(tmp_path: Path, rng: random.Random, content, n: int) -> None:
    path = tmp_path / f"crash{n}.save"
    mode = any_mode()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), mode, str(Path(__file__).parent)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [child.stdout.readline() for _ in range(rng.randint(1, 40))]
        time.sleep(rng.uniform(0, 0.05))
        child.send_signal(signal.SIGKILL)
        lines += child.stdout.readlines()
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    # A line without its newline was cut by the kill: its step was on disk, so it counts as "one ahead".
    printed = [tuple(line.split()) for line in lines if line.endswith("\n")]
    seed, step, state_hash = printed[-1]
    seed, step = int(seed), int(step)

    save = load(path)
    where = f"kill {n}: printed seed {seed} step {step}, file seed {save.setup.seed} step {save.last_step}"
    if (save.setup.seed, save.last_step) == (seed, step):
        assert save.hash_at(step) == state_hash, where
    else:
        # The child died after the write and before its print: one step ahead (the next game's first), never behind.
        assert (save.setup.seed, save.last_step) in {(seed, step + 1), (seed + 1, 1)}, where
    game = replay(save, content, verify=True)
    assert game.state_hash() == save.hash_at(save.last_step), where
    sweep_temp_files(tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")], where
    os.unlink(path)


def test_sigkill_during_autosave_never_loses_or_breaks_the_save(tmp_path, content):
    rng = random.Random(20240607)
    for n in range(3):
        _kill_once(tmp_path, rng, content, n)


@pytest.mark.slow
def test_sigkill_soak(tmp_path, content):
    rng = random.Random()
    for n in range(60):
        _kill_once(tmp_path, rng, content, n)
