"""Take-backs and dice verdicts in the terminal app, by key presses only (Textual Pilot)."""

from __future__ import annotations

import asyncio

from support.tui_drive import SEED, choose, options, screen_text, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.core.rng import Rng
from cthulhu.savegame import check_dice, load, replay
from cthulhu.tui.app import CthulhuApp
from cthulhu.cli import main as cli
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import ChoiceScreen, GameOverScreen


def footer_offers_undo(app) -> bool:
    """Whether the Footer shows the Undo key now (it is left out, not greyed, when nothing can be taken back)."""
    from textual.widgets._footer import FooterKey

    return any(key.action == "undo" and key.description == "Undo" and key.display for key in app.screen.query(FooterKey))


async def take_back(pilot, screen, key: str = "u") -> None:
    seen, step = screen.updates_seen, screen.view["step"]
    await pilot.press(key)
    await wait_for(pilot, lambda: screen.updates_seen > seen and screen.view["step"] < step)


def test_u_and_ctrl_z_take_back_run_and_moves_but_never_a_reveal(tmp_path):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=tmp_path), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            actions = options(screen)
            assert not screen.check_action("undo", ()) and not footer_offers_undo(app)

            await choose(pilot, screen, "Run")  # Run before the first step
            assert screen.check_action("undo", ())
            await wait_for(pilot, lambda: footer_offers_undo(app))  # the Footer is recomposed after the update, a frame later
            await take_back(pilot, screen)
            assert screen.view["step"] == 0 and options(screen) == actions
            log = "\n".join(screen.query_one("#log").lines_plain)
            assert "Ada Whitlock and Mina Castellane take back: Run." in log and "no roll or card is changed" in log

            await choose(pilot, screen, "Run")
            first = options(screen)[0].removeprefix("Move to ")
            await choose(pilot, screen, f"Move to {first}")
            assert screen.view["prompt"]["undo"] == 2
            await take_back(pilot, screen, "ctrl+z")
            await take_back(pilot, screen, "ctrl+z")
            assert screen.view["step"] == 0 and options(screen) == actions

            # End the actions: the Mythos card is drawn, so that cannot be taken back.
            await choose(pilot, screen, "End actions")
            assert screen.view["prompt"]["undo"] == 0 and not screen.check_action("undo", ())
            await wait_for(pilot, lambda: not footer_offers_undo(app))
            step = screen.view["step"]
            await pilot.press("u")
            await pilot.pause()
            assert screen.view["step"] == step
            await pilot.press("ctrl+q")
        return step

    step = asyncio.run(asyncio.wait_for(main(), 60))
    (path,) = tmp_path.iterdir()  # the in-process autosave was cut back at every take-back
    save = load(path)
    assert save.last_step == step and replay(save, verify=True).step == step and check_dice(save)


def test_a_whole_game_by_keys_with_undos_verifies_from_its_save(tmp_path):
    """`cthulhu play` (embedded host), a Shamblers game to its end by keys, taking back now and then."""

    async def main():
        app = CthulhuApp(PlayOptions(mode="shamblers", seed=SEED, skip_title=True, saves_dir=tmp_path), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            dice, undos = Rng(7), 0
            for _ in range(2000):
                if screen.view.get("outcome"):
                    break
                if screen.can_undo and dice.below("undo", 4) == 0:
                    await take_back(pilot, screen, ("u", "ctrl+z")[undos % 2])
                    undos += 1
                    continue
                labels = options(screen)
                seen = screen.updates_seen
                await pilot.press(screen.query_one("#prompt").keys[dice.below("pick", len(labels))])
                await wait_for(pilot, lambda: screen.updates_seen > seen)
                if isinstance(app.screen, ChoiceScreen):
                    await pilot.press("escape")
            assert screen.view.get("outcome") and undos >= 3
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
            await wait_for(pilot, lambda: "every roll verified" in str(app.screen.dice), tries=1000)
            assert "every roll verified" in screen_text(app)
            final = screen.view["step"]
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running)
        (path,) = tmp_path.iterdir()
        save = load(path)
        assert save.last_step == final and save.header.outcome == screen.view["outcome"]
        assert replay(save, verify=True).step == final and check_dice(save)
        return path

    path = asyncio.run(asyncio.wait_for(main(), 240))
    assert cli(["replay", str(path), "--verify"]) == 0
