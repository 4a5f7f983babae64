"""A mode declares its set-up choices and its bots; the command line, the title screen and the save
listing are made from the declaration. The tests' toy mode (tests/support/net_toy.py) declares a choice
(`goal`) and a second bot (`hoarder`) with no edit outside tests/, and here they are everywhere."""

from __future__ import annotations

import asyncio
import json

import pytest

from support import net_toy  # noqa: F401  (registers the toy mode: its core half)
from cthulhu import cli
from cthulhu.cli.embedded import table_link
from cthulhu.core import Game, Setup, modes
from cthulhu.core.sim import play
from support.tui_drive import screen_text, started, wait_for


def _help(command: str, capsys) -> str:
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", ["play", "host", "sim"])
def test_the_command_line_offers_the_toys_goal_and_bots(command, capsys):
    text = _help(command, capsys)
    assert "--goal GOAL how many cards to play to win (Toy): long, short" in text
    assert "toy" in text.split("--mode {", 1)[1].split("}", 1)[0].split(",")
    assert "hoarder" in text.split("--bot {", 1)[1].split("}", 1)[0].split(",")


def test_sim_plays_the_toy_with_its_goal_and_its_second_bot(capsys):
    assert cli.main(["sim", "--mode", "toy", "--goal", "short", "--bot", "hoarder", "--games", "20", "--json", "--players", "2"]) == 0
    short = json.loads(capsys.readouterr().out)
    assert short["mode"] == "toy" and short["bot"] == "hoarder" and short["errors"] == 0 and short["games"] == 20
    assert cli.main(["sim", "--mode", "toy", "--bot", "hoarder", "--games", "20", "--json", "--players", "2"]) == 0
    long = json.loads(capsys.readouterr().out)
    assert short["digest"] != long["digest"] and short["mean_turns"] < long["mean_turns"]  # the goal is played to
    game = Game.new(Setup(mode="toy", seed=3, players=2, goal="short"))
    assert game.view(0)["goal"] == 4 and play(game.setup, bot="hoarder").outcome in ("won", "lost")


@pytest.mark.parametrize(("argv", "line"), [
    (["--goal", "short"], "--goal: goals are for Toy mode (--mode toy)"),
    (["--mode", "toy", "--goal", "sprint"], "--goal: unknown goal 'sprint'; choose from long, short"),
    (["--bot", "hoarder"], "--bot: Main game mode has no 'hoarder' bot; choose from heuristic, random, search"),
])
def test_a_choice_or_bot_the_mode_lacks_is_one_line_and_exit_2(argv, line, capsys):
    assert cli.main(["sim", *argv]) == 2
    assert capsys.readouterr().err.splitlines() == [f"cthulhu sim: {line}"]


def test_a_setup_names_only_what_its_mode_declares():
    with pytest.raises(ValueError, match="goals are for Toy mode"):
        Setup(mode="main", goal="short")
    with pytest.raises(ValueError, match="not a set-up choice of any mode"):
        Setup(mode="toy", tempo="fast")
    setup = Setup(mode="toy", goal="short")
    assert setup.one("goal") == "short" and setup.model_dump()["goal"] == "short"
    assert Setup.model_validate(setup.model_dump()) == setup  # a save keeps it
    assert "goal" not in Setup(mode="toy").model_dump()  # unchosen, it is no key at all


def test_the_title_screen_offers_the_toys_goal_and_bots(tmp_path):
    from support import toy_tui

    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.options import PlayOptions
    from cthulhu.tui.screens.title import TitleScreen

    toy_tui.install()
    try:
        async def main():
            app = CthulhuApp(PlayOptions(seed=4, saves_dir=tmp_path, bot_delay=0), link_factory=table_link)
            async with app.run_test(size=(100, 30)) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, TitleScreen))
                title = app.screen
                while title.mode_row.value != "toy":
                    await pilot.press("right")
                text = screen_text(app)
                assert "Goal" in text and "Episode" not in text
                rows = [r.key for r in title.rows]
                await pilot.press(*["down"] * rows.index("goal"), "right")  # Long game (default) -> Short
                assert "Short game" in screen_text(app)
                await pilot.press(*["down"] * (rows.index("bots") - rows.index("goal")), "right")  # one bot
                await pilot.press("down", "right")  # Bots play as: heuristic -> hoarder
                assert "hoarder" in screen_text(app)
                await pilot.press("enter")
                screen = await started(pilot)
                host = screen.link.embedded.host
                assert host.game.setup.one("goal") == "short" and screen.view["goal"] == 4
                assert [s.bot_kind for s in host.seats] == [None, "hoarder"]
                await pilot.press("ctrl+q")

        asyncio.run(asyncio.wait_for(main(), 60))
    finally:
        toy_tui.uninstall()


def test_the_save_listing_names_each_games_own_choices(tmp_path, capsys):
    from cthulhu.table import SaveTo, TableSpec, open_table

    for mode, choices in (("toy", {"goal": "short"}), ("shamblers", {"difficulty": "hard"}), ("main", {"episode": "hollow_fen"})):
        host = open_table(TableSpec(start=Setup(mode=mode, seed=2, players=2, options=choices), save=SaveTo(file=tmp_path / f"{mode}.save")))
        host.saves.keep()  # worth a file before the first move (as when someone else takes a seat)
        assert host.flush_log()
        host.saves.release()
    assert cli.main(["saves", "--saves", str(tmp_path), "--json"]) == 0
    rows = {row["mode"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["toy"]["setup"] == {"goal": "short"}
    assert rows["shamblers"]["setup"] == {"difficulty": "hard", "advice": "default"}  # the house rule left on
    # by name where the save's summary names it, every choice of the mode listed
    assert rows["main"]["setup"]["episode"] == "The Barrow at Hollow Fen" and set(rows["main"]["setup"]) == {o.name for o in modes.get("main").options}
    assert cli.main(["saves", "--saves", str(tmp_path)]) == 0
    table = capsys.readouterr().out
    assert "short" in table and "hard" in table and "The Barrow at Hollow Fen" in table
