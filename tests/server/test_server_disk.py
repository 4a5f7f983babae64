"""Disk trouble at a real `cthulhu server` (issue 36): a table whose save cannot be written holds.

No step is told until it is on disk, the peers are told why the table waits (`table.held`), the
game resumes by itself when space comes back, and a `kill -9` while it waits loses no step anyone
was told. "The disk is full" is the kernel's file-size limit on the server process (`prlimit`, as
`test_host_disk.py` does for a lone host): every write that makes a file larger fails with EFBIG."""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

from cthulhu.savegame import load

from support.serve_helpers import Watcher
from support.server_proc import ServerProcess, tables


def _limit_file_size(pid: int, size: int | None) -> None:
    soft = resource.RLIM_INFINITY if size is None else size
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (soft, resource.RLIM_INFINITY))


class Spectator(Watcher):
    """A watcher of one server table, keeping the highest step it was told and why the table waits."""

    def __init__(self, port: int, table: str) -> None:
        self.told = 0
        super().__init__(port, table)

    def poll(self, seconds: float = 0.1) -> None:
        super().poll(seconds)
        self.told = max(self.told, self.step)

    def until(self, predicate, what: str, seconds: float = 60) -> None:
        super().until(predicate, what, seconds)

    @property
    def held(self) -> str | None:
        return self.session.table.held if self.session.table is not None else None


def test_a_table_that_cannot_save_holds_resumes_and_loses_no_told_step_to_kill_9(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "server").start()
    watcher: Spectator | None = None
    try:
        made = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--bots", "2", "--bot-delay", "0.05",
                      home=tmp_path / "ann")
        save = tmp_path / "server" / "tables" / f"{made['id']}.save"
        watcher = Spectator(server.port, made["id"])
        watcher.until(lambda: watcher.told >= 4, "the bots' first steps")
        assert server.proc is not None
        _limit_file_size(server.proc.pid, os.path.getsize(save) // 2)  # the disk is full (even for a compacted rewrite)
        watcher.until(lambda: watcher.held is not None, "the table to say it waits for its disk")
        assert "File too large" in (watcher.held or ""), watcher.held
        held_at = watcher.told
        for _ in range(20):  # while it waits, no step is told
            watcher.poll(0.1)
        assert watcher.told == held_at and load(save).last_step == held_at

        _limit_file_size(server.proc.pid, None)  # space comes back: the table goes on by itself
        watcher.until(lambda: watcher.held is None and watcher.told >= held_at + 3, "the game to resume")

        _limit_file_size(server.proc.pid, os.path.getsize(save) // 2)  # full again
        watcher.until(lambda: watcher.held is not None, "the table to wait again")
        told = watcher.told
        server.kill()  # kill -9 while it waits
        assert load(save).last_step >= told, f"told step {told}, but the save holds {load(save).last_step}"
        _, err = server.proc.communicate(timeout=30)
        assert err.count("could not save") == 2, err  # said once per episode, not once per try
    finally:
        if watcher is not None:
            watcher.close()
        if server.proc is not None and server.proc.poll() is None:
            server.stop()


def test_a_table_made_on_a_full_disk_is_refused_in_one_line_and_nothing_is_half_made(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "server").start()
    try:
        assert server.proc is not None
        tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", home=tmp_path / "ann")
        _limit_file_size(server.proc.pid, 1)  # no write that makes a file larger goes through
        for _ in range(3):
            refused = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", home=tmp_path / "ann", check=False)
            assert refused.returncode == 2, refused
            assert "the server cannot write its records just now; try again later (store_trouble)" in refused.stderr, refused.stderr
            assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        listed = tables(server.address, home=tmp_path / "bea")
        assert len(listed) == 1  # no table that nobody was told of
        time.sleep(1.5)  # a few of the store's flushes, all failing
        _limit_file_size(server.proc.pid, None)
        made = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", home=tmp_path / "ann")
        assert made["id"] in {row["id"] for row in tables(server.address, home=tmp_path / "bea")}
    finally:
        code, _, err = server.stop()
    assert code == 0, err
    assert "Traceback" not in err, err
    assert err.count("could not write the server's records") <= 1, err  # once an episode, not once a flush
