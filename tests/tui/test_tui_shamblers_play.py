"""Shamblers mode in the terminal app: its own layout at both sizes, and a turn played by keys only."""

from __future__ import annotations

import asyncio

from support.tui_drive import choose, options, press_option, screen_text, started, table_of, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.core import Command, Game, Setup, script_dice
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.modes.shamblers.render import short_name


def _turn_seed() -> tuple[int, str]:
    """A seed whose first two turns hold a move, a gather, a banish and a feed.

    Turn 1: the Wheel fills the Harbour (where the figure starts) with a tentacle of
    the color of the Shambler two cards clockwise; turn 2: the Wheel's Shambler lands
    back on the Harbour, so its leftover tentacles feed at the end of turn 2.
    The Wheel and the bag do not depend on the player's choices, so one look ahead suffices.
    """
    for seed in range(1, 5000):
        game = Game.new(Setup(mode="shamblers", seed=seed))
        view = game.view(0)
        if view["wheel"] != 0:
            continue
        color = next(c for c, n in view["towns"][2]["shamblers"].items() if n)
        if view["towns"][0]["tentacles"][color] < 2:
            continue  # one to gather, one left for the Shambler to feed on
        game.apply(0, Command.of("gather", color=color))
        game.apply(0, Command.of("move", town=1))
        game.apply(0, Command.of("move", town=2))
        if game.view(0)["wheel"] == 3:
            return seed, color
    raise AssertionError("no seed sets up the scripted turn")


SEED, COLOR = _turn_seed()
TENTACLE = {"red": "Rage", "blue": "Dread", "green": "Decay"}[COLOR]
LETTER = COLOR[0].upper()


def shamblers_app(**kw) -> CthulhuApp:
    return CthulhuApp(PlayOptions(mode="shamblers", seed=SEED, skip_title=True, **kw), link_factory=table_link)


def test_layout_at_120x40_and_80x24():
    async def main(sizes, ascii_mode):
        """One app through `sizes`, resized from one to the next: the same checks at each size."""
        app = shamblers_app(ascii=ascii_mode)
        async with app.run_test(size=sizes[0]) as pilot:
            screen = await started(pilot)
            for size in sizes:
                if size != sizes[0]:
                    await pilot.resize_terminal(*size)
                    await wait_for(pilot, lambda size=size: app.size == size and screen.size == size)
                    await pilot.pause()
                wide = size[0] >= 110
                drawn = ("Delirium", "Shambler Track", "Turn 1: ") if wide else ("Delirium", "Log")  # small: the footer's l Log
                await wait_for(pilot, lambda: all(s in screen_text(app) for s in drawn))  # the panes are drawn
                text = screen_text(app)
                for title in ("Map", "Story Board", "Investigators", "Log"):
                    assert title in text, (size, title)
                def every_town_drawn() -> bool:  # at the width the Map has once its layout settles
                    drawn = screen.query_one("#map").text()
                    inner = screen.query_one("#map").scrollable_content_region.width
                    return all(short_name(t["name"], inner) in drawn or t["name"] in drawn for t in screen.view["towns"])

                await wait_for(pilot, every_town_drawn)
                map_text = screen.query_one("#map").text()
                assert "Plain view" not in text and "a plain view" not in text
                assert "Shambler Track" in screen.query_one("#story").text()
                assert "Delirium" in screen.query_one("#investigators").text()
                if ascii_mode:
                    assert map_text.isascii()
                if size == (80, 24):
                    assert "Player 1, turn 1" in text  # the prompt bar stays on screen
                    await pilot.press("tab", "tab")  # the focus: Map -> Investigators -> Story Board
                    await wait_for(pilot, lambda: "Shambler Track" in screen_text(app))
            await pilot.press("ctrl+q")

    asyncio.run(main([(120, 40), (80, 24)], False))
    asyncio.run(main([(80, 24)], True))


def story(screen) -> str:
    return screen.query_one("#story").text()


def mats(screen) -> str:
    return screen.query_one("#investigators").text()


def bar(screen) -> str:
    """The prompt bar as drawn (its dice line, the prompt and the keyed choices)."""
    return screen.query_one("#prompt").text  # the dice line is part of the bar while its roll is decided


def log(screen) -> str:
    return "\n".join(screen.query_one("#log").lines_plain)


def test_a_shamblers_turn_by_keys_only():
    game = Game.new(Setup(mode="shamblers", seed=SEED))
    script_dice(game, 1)  # the one Cthulhu Die of turn 2's banish shows one tentacle
    factory = table_of(game)

    async def main():
        app = CthulhuApp(PlayOptions(mode="shamblers", seed=SEED, skip_title=True), link_factory=factory)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert f"{LETTER}1" in screen.query_one("#map").text()

            # Turn 1: gather, then two moves clockwise; the third action ends the turn.
            await choose(pilot, screen, f"Gather a {TENTACLE} Tentacle")
            assert f"{LETTER} {TENTACLE}".ljust(10) + "[#" in mats(screen)
            assert f"gathers a {TENTACLE} Tentacle ({LETTER})" in log(screen)
            await choose(pilot, screen, "Move clockwise")
            await choose(pilot, screen, "Move clockwise")
            await wait_for(pilot, lambda: screen.view["turn"] == 2)
            assert "Turn 2: Player 1 takes the turn." in log(screen)
            assert "on 3 The Old Salt Mill" in mats(screen)
            mill = [line for line in screen.query_one("#map").text().splitlines() if "P1" in line]
            assert mill and "║P1" in mill[0]  # the active player's Town Card has the double border

            # Turn 2: banish the Shambler here, paying one tentacle of its color.
            await choose(pilot, screen, "Banish a Shambler (roll 1 Cthulhu Die)")
            assert screen.view["prompt"]["kind"] == "banish"
            text = bar(screen)
            assert "Cthulhu Dice (tentacles): [1]" in text and "cost 1, the highest die (never the sum)" in text
            assert f"{LETTER} {COLOR}: 1 {TENTACLE}" in text and "don't banish" in text
            assert "Last roll [1]  cost 1" in story(screen)
            await choose(pilot, screen, f"Banish a {COLOR} Shambler paying 1 {TENTACLE}")
            assert f"banishes a {COLOR} Shambler ({LETTER})" in log(screen)
            banished = next(line for line in story(screen).splitlines() if line.strip().startswith(f"{LETTER} {TENTACLE}"))
            assert f"] 1/{screen.view['goals']['win_per_color']}" in banished and "[#." in banished
            assert f"{LETTER} {TENTACLE}".ljust(10) + "[." in mats(screen)  # paid from the track

            # End of actions, then the feed (choices, if any, by key too), then turn 3.
            await choose(pilot, screen, "End your actions")
            for _ in range(10):
                if screen.view["turn"] == 3 or screen.view.get("outcome"):
                    break
                assert screen.view["prompt"]["kind"] == "feed"
                await press_option(pilot, screen, 0)
            assert screen.view["turn"] == 3
            assert "ends their actions with 2 actions unused" in log(screen)
            assert "The Shamblers on The Drowned Harbour feed on" in log(screen)
            held = {c: n for c, n in screen.view["shambler_mat"]["tentacles"].items() if n}
            assert held
            for color, n in held.items():
                name = {"red": "Rage", "blue": "Dread", "green": "Decay"}[color]
                line = next(line for line in story(screen).splitlines() if line.strip().startswith(f"{color[0].upper()} {name}"))
                assert line.endswith(f"] {n}/{screen.view['goals']['loss_mat_tentacles']}"), line
            assert "Turn 3  P1 Player 1: actions (3 left)" in mats(screen)
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_many_payment_choices_open_in_the_choices_list():
    game = Game.new(Setup(mode="shamblers", seed=2))
    s = game.state
    here = s.towns[s.mats[0].town]
    here.shamblers.update(red=1, blue=1, green=1)
    s.mats[0].tracks.update(red=2, blue=2, green=2)
    s.mats[0].chaos = 2
    script_dice(game, 2, 0, 1)
    factory = table_of(game)

    async def main():
        from cthulhu.tui.screens.dialogs import ChoiceScreen

        app = CthulhuApp(PlayOptions(mode="shamblers", seed=2, skip_title=True), link_factory=factory)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            await choose(pilot, screen, "Banish a Shambler")
            labels = options(screen)
            assert len(labels) == 10  # 3 colors x (2 own, 1+1, 2 Chaos) + do not banish
            text = bar(screen)
            assert "R red: 2 Rage" in text and "G green: 2 Chaos" in text  # short labels fit the bar
            await pilot.press("o")
            await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            assert "Banish a blue Shambler paying 1 Dread + 1 Chaos" in screen_text(app)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen)
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_the_title_screen_chooses_the_shamblers_difficulty():
    async def main():
        from cthulhu.tui.screens.title import TitleScreen

        app = CthulhuApp(PlayOptions(seed=7), link_factory=table_link)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TitleScreen))
            assert "Difficulty" not in screen_text(app)  # the rows are the chosen mode's own choices
            await pilot.press("right")  # Mode: Shamblers
            assert "Difficulty" in screen_text(app) and "Episode" not in screen_text(app)
            await pilot.press("down", "right")  # Difficulty: Normal -> Hard
            assert "Hard" in screen_text(app)
            await pilot.press("enter")
            screen = await started(pilot)
            assert screen.view["difficulty"] == {"id": "hard", "name": "Hard"}
            assert "A game of Shamblers on Hard begins" in log(screen)
            assert "Shamblers (Hard)" in screen_text(app)  # the status line
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))
