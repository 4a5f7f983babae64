"""The replay viewer: the game panes over a save, stepped by keys; from the CLI and the title screen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.saveplay import play
from support.tui_drive import screen_text, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.core import Game, Setup
from cthulhu.savegame import SaveWriter, load, seek
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.replay import Replayer
from cthulhu.tui.replayapp import ReplayApp
from cthulhu.tui.screens.replay import ReplayScreen
from cthulhu.tui.screens.title import LoadScreen, TitleScreen
from cthulhu.tui.who import characters

SAVES = Path(__file__).resolve().parents[2] / "saves"


@pytest.fixture
def main_save(tmp_path) -> Path:
    """A real main game of 40 steps played by a bot, written as the host writes it."""
    game = Game.new(Setup(seed=5))
    path = tmp_path / "main-5.save"
    writer = SaveWriter(path, game, fsync=False, snapshot_every=16)
    play(game, writer.append, steps=40)
    writer.write()
    return path


def test_replayer_steps_forward_with_events_and_seeks_anywhere(main_save):
    save = load(main_save)
    r = Replayer(save)
    assert r.step == 0 and r.last == 40 and r.describe() == "the table as set up"
    events = r.go(1)
    assert events and r.step == 1 and r.game.state_hash() == save.steps[0].hash
    assert r.describe().startswith("Ada Whitlock and Mina Castellane: ") and r.labels[1]  # the option's label, as the player saw it
    assert r.go(25) == [] and r.game.state_hash() == save.steps[24].hash
    assert r.labels[25] and r.labels[25] in r.describe()  # a jump still knows the choice that led here
    r.go(7)
    assert r.game.state_hash() == seek(save, 7).state_hash()
    r.go(999)
    assert r.step == 40
    r.go(-5)
    assert r.step == 0


def _log(screen) -> list[str]:
    return screen.query_one("#log").lines_plain


async def _press(pilot, screen, key: str) -> None:
    seen = screen.updates_seen
    await pilot.press(key)
    await wait_for(pilot, lambda: screen.updates_seen > seen)


async def _drive(app: ReplayApp, last: int, save) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.updates_seen > 0)
        screen = app.screen
        assert screen.view["step"] == 0
        assert "Story Board" in screen_text(app) and f"step 0 of {last}" in screen_text(app)
        await _press(pilot, screen, "right")
        assert screen.view["step"] == 1
        named = characters(screen.view, save.steps[0].seat)  # whoever plays the seat, by name
        assert named and any(line.startswith("Step 1: ") and named[0] in line and "seat" not in line for line in _log(screen))
        assert len(_log(screen)) > 2  # the step's events are told, as in play
        await _press(pilot, screen, "pagedown")
        assert screen.view["step"] == 11
        await _press(pilot, screen, "left")
        assert screen.view["step"] == 10 and "Back to step 10" in _log(screen)[-1]
        await _press(pilot, screen, "end")
        assert screen.view["step"] == last
        await _press(pilot, screen, "pageup")
        assert screen.view["step"] == last - 10
        await _press(pilot, screen, "home")
        assert screen.view["step"] == 0
        await _press(pilot, screen, "end")
        assert screen.view["step"] == last
        # The panes show the state the save vouches for at that step.
        assert screen.view == app.replayer.game.view(None)
        assert app.replayer.game.state_hash() == save.hash_at(last)
        await pilot.press("right")  # already at the end: nothing moves
        await pilot.pause()
        assert screen.view["step"] == last
        if screen.view.get("outcome"):
            assert "The game is over" in screen_text(app)
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running)


def test_viewer_keys_move_through_a_main_game(main_save):
    save = load(main_save)
    app = ReplayApp(Replayer(save), name=main_save.name)
    asyncio.run(asyncio.wait_for(_drive(app, 40, save), 60))


@pytest.mark.parametrize("name", ["example-won-main.save", "example-won-shamblers.save"])
def test_viewer_on_an_example_save(name):
    from cthulhu.content import builtin

    save = load(SAVES / name)
    replayer = Replayer(save, builtin())  # stale examples fail here: regenerate them (bench/make_example_saves.py)
    assert save.header.outcome == "won"
    asyncio.run(asyncio.wait_for(_drive(ReplayApp(replayer, name=name), save.last_step, save), 60))


def test_title_screen_v_replays_a_save_and_comes_back(main_save):
    async def main():
        app = CthulhuApp(PlayOptions(saves_dir=main_save.parent), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TitleScreen))
            await pilot.press("v")
            await wait_for(pilot, lambda: isinstance(app.screen, LoadScreen))
            assert "Replay a save" in screen_text(app)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.updates_seen > 0)
            screen = app.screen
            await _press(pilot, screen, "end")
            assert screen.view["step"] == 40
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, TitleScreen))
            assert app.is_running  # closing the viewer goes back to the title, not out
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_cli_replay_tui_flag_keeps_the_text_output(main_save, capsys):
    from cthulhu.cli import main as cli

    assert cli(["replay", str(main_save), "--seek", "3"]) == 0  # without --tui: the text report, as before
    assert "State at step 3 of 40" in capsys.readouterr().out
    assert cli(["replay", str(main_save), "--tui", "--seek", "99"]) == 2  # a bad step fails before any screen
    assert "there is no step 99" in capsys.readouterr().err


def test_the_viewer_at_80x24_has_no_hints_and_a_footer_that_fits(main_save):
    """Nothing is decided in a replay, so no first-game hint; the footer keeps Back and Step (the bar
    lists every stepping key) and its last key, Quit, is not cut off at 80 columns."""

    async def main():
        app = ReplayApp(Replayer(load(main_save)), name=main_save.name)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.updates_seen > 0)
            screen = app.screen
            await _press(pilot, screen, "right")
            await pilot.pause(0.1)
            assert not screen.hints.enabled and screen.hints.line is None
            assert "Hint:" not in screen.query_one("#prompt")._shown.plain
            rows = screen_text(app).rstrip("\n").split("\n")  # the last is the footer
            assert "Quit" in " ".join(rows[-1].split()) and "Step" in rows[-1] and "Back" in rows[-1], rows[-1]
            await pilot.press("q")

    asyncio.run(asyncio.wait_for(main(), 60))
