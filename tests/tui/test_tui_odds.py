"""The odds panel (`a`) by keys, in the real app (Pilot): at a roll, at a decision, and at a table
whose house rule switches advice off. The win chances come from a worker thread: keys go on working."""

from __future__ import annotations

import asyncio

from support.tui_drive import screen_text, started, table_of, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.content import builtin
from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.core.main.odds import roll_odds
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.modes.main.odds import percent
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.odds import MAX_SIMS, OddsScreen


def game_at(kind: str, *, seed: int = 3, **setup) -> Game:
    """A heuristic game played on to the first `kind` prompt with at least two options."""
    game = Game.new(Setup(seed=seed, **setup))
    bot = make_bot("heuristic", game.setup.mode, 1)
    while not (game.prompt.kind == kind and len(game.prompt.options) > 1):
        game.apply(game.prompt.seat, bot.choose(game, game.prompt.seat))
    return game


def app_for(game: Game) -> CthulhuApp:
    return CthulhuApp(PlayOptions(skip_title=True), link_factory=table_of(game))


def panel_text(app) -> str:
    screen = app.screen
    return "\n".join(str(screen.query_one(f"#odds-{part}").render()) for part in ("roll", "choices"))


def test_the_panel_opens_at_a_roll_with_the_exact_odds():
    game = game_at("reroll")
    odds = roll_odds(game.view(game.prompt.seat), builtin().main)
    assert odds is not None

    async def main():
        app = app_for(game)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await pilot.press("a")
            await wait_for(pilot, lambda: isinstance(app.screen, OddsScreen) and "keep the dice" in panel_text(app))
            text = panel_text(app)
            assert f"keep the dice: {percent(odds.keep)}" in text
            for r in odds.rerolls:
                assert f"reroll die {r.die + 1} " in text and f"then keep: {percent(r.chance)}" in text
            assert f"these dice rolled afresh: {percent(odds.fresh_chance)}" in text
            await wait_for(pilot, lambda: "No win chances at this decision" in panel_text(app))  # mid-fight: not searched
            await pilot.press("a")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            # The choices still work, and the screen follows the table: keep the dice.
            step = game.step
            keep = next(n for n, o in enumerate(screen.view["prompt"]["options"]) if o["command"]["kind"] == "keep")
            await pilot.press(screen.query_one("#prompt").keys[keep])
            await wait_for(pilot, lambda: screen.view["step"] > step)

    asyncio.run(main())


def test_the_panel_thinks_at_a_decision_without_holding_up_a_key():
    game = game_at("action")

    async def main():
        app = app_for(game)
        async with app.run_test(size=(120, 40)) as pilot:
            await started(pilot)
            await pilot.press("a")
            await wait_for(pilot, lambda: isinstance(app.screen, OddsScreen) and "simulations, thinking" in panel_text(app), tries=1000)
            panel = app.screen
            text = panel_text(app)
            assert "Win chances, the search bot's estimate" in text and "(its choice)" in text
            assert 0 < panel.sims < MAX_SIMS and not panel.done
            (worker,) = [w for w in app.workers if w.node is panel]
            assert worker.is_running  # still thinking ...
            await pilot.press("escape")  # ... and the key is taken at once
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            await wait_for(pilot, lambda: worker.is_finished or worker.is_cancelled)
            assert not any(isinstance(s, OddsScreen) for s in app.screen_stack)
            # The table goes on: the first choice, by its key, reaches the screen.
            screen = app.screen
            step = screen.view["step"]
            await pilot.press(screen.query_one("#prompt").keys[0])
            await wait_for(pilot, lambda: screen.view["step"] > step)

    asyncio.run(main())


def test_a_table_without_advice_says_so_and_opens_no_panel():
    game = game_at("action", advice="off")

    async def main():
        app = app_for(game)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert "no advice (house rule)" in screen_text(app)
            await pilot.press("a")
            await pilot.pause(0.05)
            assert isinstance(app.screen, GameScreen)
            assert any("plays without advice" in line for line in screen.query_one("#log").lines_plain)

    asyncio.run(main())


def test_the_house_rule_reaches_a_player_through_the_host():
    """`cthulhu play --advice off` (a set-up choice like any other) opens a table of its own: the rule
    travels in the setup the host sends with its welcome, and the joined interface honours it."""

    async def main():
        app = CthulhuApp(PlayOptions(skip_title=True, seed=3, choices={"advice": "off"}, saves_dir=None), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert screen.link.advice is False and "no advice (house rule)" in screen_text(app)
            await pilot.press("a")
            await pilot.pause(0.05)
            assert isinstance(app.screen, GameScreen)
            await screen.link.close()

    asyncio.run(main())
