"""Disk trouble at a real `cthulhu host`: a warning, never a crash; the next good write holds every step.

The host runs as its own process with peers on 127.0.0.1. "The disk is full" is
made real with the kernel's file-size limit: the test lowers the host process's
soft RLIMIT_FSIZE (`prlimit`) to the size its save has now, so every later save,
which is larger, fails with EFBIG inside `write()` exactly as a full disk fails with
ENOSPC; raising the limit again is "space comes back". (`bench/hostile_peers.py`
fills a real tmpfs instead, where one can be mounted.)
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil

import pytest
import trio

from cthulhu.savegame import load, replay

from test_host_crash import MODE, SAFETY, HostProcess, play, seat_players, uninterrupted

def _limit_file_size(pid: int, size: int | None) -> None:
    soft = resource.RLIM_INFINITY if size is None else size
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (soft, resource.RLIM_INFINITY))


@pytest.mark.trio
async def test_a_full_disk_mid_game_and_at_the_end_is_a_warning_and_the_game_finishes(tmp_path, content):
    save_path = tmp_path / "table.save"
    seed, seats = 11, 2
    host = HostProcess(tmp_path, "--mode", MODE, "--seats", str(seats), "--seed", str(seed), "--save", str(save_path))
    players = []
    try:
        with trio.fail_after(SAFETY):
            port, _ = await host.start()
            players = await seat_players(port, seats, seed * 10)
            await play(players, 5)
            saved = load(save_path).last_step
            assert saved == players[0].step

            _limit_file_size(host.proc.pid, os.path.getsize(save_path))  # the disk is full
            await play(players, 6)  # the game goes on; every one of these saves fails
            assert load(save_path).last_step == saved, "a save got through a full disk?"
            trouble = host.stderr()

            _limit_file_size(host.proc.pid, None)  # space comes back
            await play(players, 1)
            assert load(save_path).last_step == players[0].step == saved + 7, "the next save must hold every step"
            recovered = host.stderr()

            _limit_file_size(host.proc.pid, os.path.getsize(save_path))  # full again, to the end
            await play(players)
            for p in players:
                await p.close()
            code, out = await host.wait()
    finally:
        for p in players:
            await p.close()
        host.close()
    err = host.stderr()
    assert code == 0, err
    assert "Traceback" not in err and "Error" not in err, err
    assert trouble.count("could not save") == 1, trouble  # reported once, not once per command
    assert "saving works again" in recovered and recovered.count("could not save") == 1, recovered
    assert err.count("could not save") == 2, err  # the second episode, once
    final = players[0].session.game_over
    assert f"Game over at step {final.step}: outcome={final.outcome} state_hash={final.state_hash}" in out
    assert final.state_hash == uninterrupted(seed, seats, seed * 10), "disk trouble changed the game"
    save = load(save_path)
    assert save.last_step < final.step  # the end was never written: the disk stayed full
    replay(save, content, verify=True)  # what is there is whole and verifies


def test_the_hosting_players_interface_says_once_that_saving_failed_and_again_when_it_works(tmp_path):
    """The embedded host of `cthulhu play`: its save folder is replaced by a file (every write
    fails), then comes back. The player reads one notice each way; the save then holds every step."""
    from tui_drive import SEED, choose, started, wait_for

    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.options import PlayOptions

    folder = tmp_path / "saves"

    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=folder))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            log = screen.query_one("#log")
            shutil.rmtree(folder)
            folder.write_text("not a folder any more")
            await choose(pilot, screen, "Run")
            await choose(pilot, screen, "Move to Loading Dock")
            await wait_for(pilot, lambda: any("Autosave failed" in line for line in log.lines_plain))
            folder.unlink()
            await choose(pilot, screen, "Stop running")
            await wait_for(pilot, lambda: any("Autosave works again" in line for line in log.lines_plain))
            text = "\n".join(log.lines_plain)
            assert text.count("Autosave failed") == 1
            path = screen.link.save_path  # (none before the first move)
            assert path is not None and load(path).last_step == screen.view["step"] == 3
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_disk_full_from_the_start_is_one_warning_naming_the_save(tmp_path):
    """No room for a single byte from the start (the file-size limit at 0, as a full disk). The host
    used to stop at once with a bare "[Errno 27] File too large" (its lock file's note of who holds
    it); now the table opens as on any other disk trouble (nothing is saved before the first move),
    the first save that fails says which file in one warning, and the game plays to its end."""
    import subprocess

    from test_host_crash import CLI

    save = tmp_path / "table.save"
    done = subprocess.run(
        [*CLI, "host", "--headless", "--port", "0", "--seats", "2", "--bots", "2", "--bot-delay", "0", "--seed", "3", "--save", str(save)],
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY)),
        env=dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data")),  # the seat tokens' file cannot be written either
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done
    assert done.stderr.splitlines() == [f"cthulhu host: could not save to {save}: cannot write the save: File too large; "
                                        "the game goes on and the next move tries again"], done.stderr
    assert "Game over at step" in done.stdout and not save.exists()
