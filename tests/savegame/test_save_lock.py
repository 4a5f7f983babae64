"""A save is held by one process at a time: a second one is refused in one line naming the
holder (exit 2, the file untouched); a lock left by a killed process is taken over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cthulhu.core import Game, Setup
from cthulhu.savegame import SaveLocked, SaveWriter, hold, release
from cthulhu.savegame.lock import holds, lock_path

from support.saveplay import holding_host

CLI = [sys.executable, "-m", "cthulhu.cli"]


@pytest.fixture
def save(tmp_path, content) -> Path:
    path = tmp_path / "table.save"
    writer = SaveWriter(path, Game.new(Setup(seed=4, players=2), content), autosave=False)
    writer.write()
    writer.close()
    return path


def _state(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


@pytest.mark.parametrize("second", [["host", "--headless", "--port", "0"], ["play"]], ids=["host", "play"])
def test_a_second_process_loading_a_held_save_is_refused_and_the_file_is_untouched(save, second):
    first = holding_host(save)
    try:
        before = _state(save)
        out = subprocess.run([*CLI, *second, "--load", str(save)], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2, out
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, out.stderr
        assert f"in use by process {first.pid} (cthulhu host --headless" in lines[0] and str(save) in lines[0]
        assert _state(save) == before
    finally:
        first.kill()
        first.communicate()


def test_a_lock_left_by_a_killed_process_is_taken_over(save):
    first = holding_host(save)
    first.send_signal(signal.SIGKILL)
    first.communicate()
    assert lock_path(save).exists()  # killed: nothing removed it, but the kernel dropped the lock
    second = holding_host(save)
    try:
        assert str(second.pid) in lock_path(save).read_text()
        assert second.lines[0] == first.lines[0]  # the same table, so the same code on this machine
    finally:
        second.send_signal(signal.SIGINT)
        out, err = second.communicate(timeout=60)
    assert second.returncode == 130 and "Traceback" not in err
    assert not lock_path(save).exists()  # a clean exit removes its lock file


def test_one_process_may_hold_a_save_twice_and_lets_go_on_the_last_release(tmp_path):
    path = tmp_path / "x.save"
    hold(path)
    hold(path)
    assert holds(path) and lock_path(path).exists()
    release(path)
    assert holds(path)
    release(path)
    assert not holds(path) and not lock_path(path).exists()


def test_a_lock_file_with_rubbish_in_it_but_no_holder_is_free(tmp_path):
    path = tmp_path / "y.save"
    lock_path(path).write_text("process 1 (cthulhu long gone) on elsewhere\n")
    hold(path)
    try:
        assert f"process {os.getpid()} " in lock_path(path).read_text()
    finally:
        release(path)


def test_the_refusal_names_the_holder_in_process(tmp_path):
    """What the refused process reads is the holder's own line (here: a child holding it)."""
    path = tmp_path / "z.save"
    child = subprocess.Popen(
        [sys.executable, "-c", f"from cthulhu.savegame.lock import hold; hold({str(path)!r}); print('held', flush=True); input()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout.readline().strip() == "held"
        with pytest.raises(SaveLocked) as refused:
            hold(path)
        assert f"process {child.pid}" in str(refused.value)
        assert not holds(path)
    finally:
        child.kill()
        child.communicate()
