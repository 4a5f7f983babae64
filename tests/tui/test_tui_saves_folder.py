"""An unwritable saves folder never stops a game: the game is saved in a fallback folder named on
screen, or goes on without autosave, and says so. Screenshots go to the saves folder."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cthulhu.cli.embedded import table_link
from cthulhu.savegame import folder as savedir
from cthulhu.table import open_table
from cthulhu.tui.app import CthulhuApp
from cthulhu.cli.embedded import table_spec
from cthulhu.tui.options import PlayOptions

from support.tui_drive import SEED, started, wait_for


def blocked(tmp_path: Path) -> Path:
    """A saves folder nobody can make, root included: its parent is a file."""
    parent = tmp_path / "a-file"
    parent.write_text("not a folder")
    return parent / "saves"


def test_an_unwritable_folder_falls_back_to_one_named_in_the_warning(tmp_path, monkeypatch):
    fallback = tmp_path / "fallback"
    monkeypatch.setattr(savedir, "fallback_saves_dir", lambda: fallback)
    host = open_table(table_spec(PlayOptions(seed=SEED, saves_dir=blocked(tmp_path))))
    assert host.saves.path is not None and host.saves.path.parent == fallback
    assert str(blocked(tmp_path)) in host.warning and str(fallback) in host.warning
    assert "Not a directory" in host.warning
    host.saves.release()


def test_with_no_folder_to_write_the_game_goes_on_without_autosave(tmp_path, monkeypatch):
    monkeypatch.setattr(savedir, "fallback_saves_dir", lambda: blocked(tmp_path) / "too")
    host = open_table(table_spec(PlayOptions(seed=SEED, saves_dir=blocked(tmp_path))))
    assert host.saves.path is None
    assert "without autosave" in host.warning


def test_a_game_with_no_folder_to_write_says_in_its_header_that_it_is_not_saved(tmp_path, monkeypatch):
    monkeypatch.setattr(savedir, "fallback_saves_dir", lambda: blocked(tmp_path) / "too")

    async def run():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=blocked(tmp_path)), link_factory=table_link)
        async with app.run_test(size=(160, 30)) as pilot:
            screen = await started(pilot)
            await wait_for(pilot, lambda: "not saved (no saves folder can be written)" in screen._status.plain)
            await pilot.press("1")
            await wait_for(pilot, lambda: screen.view["step"] >= 1)
            assert "not saved (no saves folder can be written)" in screen._status.plain  # for as long as it lasts
            await pilot.press("ctrl+q")

    asyncio.run(run())


def test_a_writable_folder_is_used_and_nothing_is_said(tmp_path):
    host = open_table(table_spec(PlayOptions(seed=SEED, saves_dir=tmp_path / "saves")))
    assert host.saves.path is not None and host.saves.path.parent == tmp_path / "saves"
    assert host.warning is None
    host.saves.release()
    assert not list((tmp_path / "saves").glob(".cthulhu-probe-*"))  # the probe file is gone


def test_the_game_starts_and_the_player_is_told(tmp_path, monkeypatch):
    """The embedded host (as `cthulhu play` runs): the game starts, a notice says where it is saved."""
    fallback = tmp_path / "fallback"
    monkeypatch.setattr(savedir, "fallback_saves_dir", lambda: fallback)

    async def run():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=blocked(tmp_path)), link_factory=table_link)
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            screen = await started(pilot)
            await wait_for(pilot, lambda: any(str(fallback) in n.message for n in app._notifications))
            assert any(str(fallback) in line for line in screen.query_one("#log").lines_plain)
            await pilot.press("1")  # play goes on, saved in the fallback folder
            await wait_for(pilot, lambda: screen.view["step"] >= 1)
            await pilot.press("ctrl+q")
        assert list(fallback.glob("*.save"))

    asyncio.run(run())


def test_screenshots_go_to_the_saves_folder(tmp_path):
    async def run():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=tmp_path / "saves"), link_factory=table_link)
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            await started(pilot)
            app.action_screenshot()
            shots = list((tmp_path / "saves").glob("screenshot-*.svg"))
            assert len(shots) == 1 and "<svg" in shots[0].read_text()
            app.options = app.options.with_(saves_dir=blocked(tmp_path))
            app.action_screenshot()  # an unwritable folder: a notice, not a crash
            await wait_for(pilot, lambda: any("Could not save the screenshot" in n.message for n in app._notifications))
            await pilot.press("ctrl+q")

    asyncio.run(run())
