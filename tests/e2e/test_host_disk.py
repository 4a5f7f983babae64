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

from cthulhu.cli.embedded import table_link
from cthulhu.savegame import load, replay

from support.host_proc import MODE, SAFETY, HostProcess, play, seat_players, uninterrupted

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
    fails), then comes back. The player reads one notice each way, and the header says the game is
    not saved while it is not; the save then holds every step."""
    from support.tui_drive import SEED, choose, started, wait_for

    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.options import PlayOptions

    folder = tmp_path / "saves"

    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=folder), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            log = screen.query_one("#log")
            shutil.rmtree(folder)
            folder.write_text("not a folder any more")
            await choose(pilot, screen, "Run")
            await choose(pilot, screen, "Move to Loading Dock")
            await wait_for(pilot, lambda: any("Autosave failed" in line for line in log.lines_plain))
            await wait_for(pilot, lambda: "not saved (" in screen._status.plain)  # and the header says so while it lasts
            folder.unlink()
            await choose(pilot, screen, "Stop running")
            await wait_for(pilot, lambda: any("Autosave works again" in line for line in log.lines_plain))
            await wait_for(pilot, lambda: "not saved" not in screen._status.plain)
            text = "\n".join(log.lines_plain)
            assert text.count("Autosave failed") == 1
            path = screen.link.save_path  # (none before the first move)
            assert path is not None and load(path).last_step == screen.view["step"] == 3
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def _host_on_a_full_disk(tmp_path, *args: str):
    """A real headless host with no room for a single byte from the start (the file-size limit at
    0, as a full disk)."""
    import subprocess

    from support.host_proc import CLI

    return subprocess.run(
        [*CLI, "host", "--port", "0", "--seats", "2", "--bots", "2", "--bot-delay", "0", "--seed", "3", *args],
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY)),
        env=dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"), TMPDIR=str(tmp_path / "tmp")),  # (the fallback folder's: none)
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("interface", [False, True])
def test_a_disk_full_from_the_start_refuses_to_host_in_one_line_naming_the_save(tmp_path, interface):
    """The host used to print "Autosave: PATH", play the whole game and exit 0 with no save at all
    (its one warning came after the first move); a game nobody can carry on is not started now,
    headless or (refused before the interface takes the terminal) with the hosting player's."""
    save = tmp_path / "table.save"
    done = _host_on_a_full_disk(tmp_path, "--save", str(save), *(["--bots", "1"] if interface else ["--headless"]))
    assert done.returncode == 2, done
    assert done.stderr.splitlines() == [f"cthulhu host: cannot save to {save} (File too large); give --save FILE or --saves DIR "
                                        "where it can be written, or --no-save to play without a save"], done.stderr
    assert "Autosave:" not in done.stdout and "Game over" not in done.stdout and not save.exists()


def test_a_saves_folder_and_fallback_on_a_full_disk_refuse_to_host(tmp_path):
    """No --save: the saves folder takes a file's name but no data, nor does the fallback folder."""
    saves = tmp_path / "saves"
    done = _host_on_a_full_disk(tmp_path, "--headless", "--saves", str(saves))
    assert done.returncode == 2, done
    [line] = done.stderr.splitlines()
    assert line.startswith(f"cthulhu host: cannot save in {saves} (File too large) nor in {tmp_path / 'tmp'}/cthulhu-saves-"), line
    assert "--no-save" in line and "Autosave:" not in done.stdout and not list(saves.glob("*.save"))


def test_a_saves_folder_that_cannot_be_made_falls_back_and_says_so_before_the_table_opens(tmp_path):
    import subprocess

    from support.host_proc import CLI

    (tmp_path / "a-file").write_text("not a folder")
    (tmp_path / "tmp").mkdir()  # (a TMPDIR that does not exist is passed over for /tmp)
    saves = tmp_path / "a-file" / "saves"
    done = subprocess.run(
        [*CLI, "host", "--headless", "--port", "0", "--seats", "2", "--bots", "2", "--bot-delay", "0", "--seed", "3", "--saves", str(saves)],
        env=dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"), TMPDIR=str(tmp_path / "tmp")),
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done
    fallback = tmp_path / "tmp" / next(p.name for p in (tmp_path / "tmp").iterdir())
    [warning] = done.stderr.splitlines()
    assert f"The saves folder {saves} cannot be written (Not a directory): this game is saved in {fallback} instead." in warning
    [autosave] = [line for line in done.stdout.splitlines() if line.startswith("Autosave:")]
    [kept] = list(fallback.glob("*.save"))
    assert autosave == f"Autosave:   {kept}" and "Game over at step" in done.stdout
    assert load(kept).header.outcome is not None
