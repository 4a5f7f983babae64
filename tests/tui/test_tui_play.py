"""Playing the terminal app by key presses only (Textual Pilot, in-process table)."""

from __future__ import annotations

import asyncio

from support.tui_drive import SEED, choose, options, press_option, screen_text, started, table_of, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import GameOverScreen, QuitScreen
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.title import TitleScreen

def path_to_nearest_enemy(view) -> list[str]:
    """Space names from the active investigator's space to the nearest enemy (breadth-first)."""
    ep = view["episode"]
    names = {sp["id"]: sp["name"] for t in ep["tiles"] for sp in t["spaces"]}
    start = view["investigators"][view["active"]]["space"]
    enemies = {e["space"] for e in view["enemies"]}
    came = {start: None}
    queue = [start]
    while queue:
        here = queue.pop(0)
        if here in enemies:
            path = []
            while came[here] is not None:
                path.append(names[here])
                here = came[here]
            return path[::-1]
        for nxt in ep["adjacent"][here]:
            if nxt not in came:
                came[nxt] = here
                queue.append(nxt)
    raise AssertionError("no enemy on the map")


def local_app(**kw) -> CthulhuApp:
    return CthulhuApp(PlayOptions(seed=SEED, **kw), link_factory=table_link)


def map_line(screen: GameScreen, space: str) -> str:
    return next(line for line in screen.query_one("#map").text().splitlines() if space in line)


def test_a_full_turn_by_keys_only():
    async def main():
        app = local_app()
        async with app.run_test(size=(120, 40)) as pilot:
            assert isinstance(app.screen, TitleScreen)
            await pilot.press("enter")  # defaults: solo, two investigators, the seed given
            screen = await started(pilot)
            assert f"seed {SEED}" in screen_text(app)
            assert "A" in map_line(screen, "Yard Gate").split("Yard Gate")[1]

            path = path_to_nearest_enemy(screen.view)
            assert len(path) == 3, path
            await choose(pilot, screen, "Run")
            for space in path:
                await choose(pilot, screen, f"Move to {space}")
            line = map_line(screen, path[-1])
            assert "A" in line.split(path[-1])[1], line
            assert "A" not in map_line(screen, "Yard Gate").split("Yard Gate")[1]

            await choose(pilot, screen, "Attack")
            log = "\n".join(screen.query_one("#log").lines_plain)
            assert "Ada Whitlock attacks the Cultist." in log
            assert "Ada Whitlock rolls 4 dice to attack the Cultist" in log  # Brawling's bonus die too
            assert "Each success is a wound to the Cultist" in screen_text(app)  # the dice line says what the roll does
            assert "Dice:" in screen_text(app)  # the faces stay on screen for the reroll choice
            assert screen.view["prompt"]["kind"] == "reroll"
            stress_before = screen.view["investigators"][0]["stress"]
            await choose(pilot, screen, "Reroll die 1")
            assert screen.view["investigators"][0]["stress"] == stress_before + 1
            assert "rerolls die 1" in "\n".join(screen.query_one("#log").lines_plain)
            assert "Stress [#" in screen.query_one("#investigators").text()

            # Keep the dice, end the actions, then Mythos / investigate-or-fight / end of turn:
            # take the first choice (keep, draw, resolve) until Mina's turn begins.
            for _ in range(40):
                if screen.view.get("active") == 1 or screen.view.get("outcome"):
                    break
                labels = options(screen)
                end = [n for n, label in enumerate(labels) if label.startswith("End actions")]
                await press_option(pilot, screen, end[0] if end else 0)
            assert screen.view.get("active") == 1 or screen.view.get("outcome")
            log = "\n".join(screen.query_one("#log").lines_plain)
            assert "Mythos card for Ada Whitlock: " in log  # a Mythos card was drawn after the actions
            assert "Mina Castellane takes the turn." in log or screen.view.get("outcome")
            assert ">M Mina Castellane" in screen.query_one("#investigators").text()
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_digits_that_are_not_options_do_nothing():
    async def main():
        app = local_app(skip_title=True)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            step = screen.view["step"]
            await pilot.press("9")
            await pilot.pause()
            assert screen.view["step"] == step
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_quit_key_asks_then_exits_promptly():
    async def main():
        app = local_app(skip_title=True)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await started(pilot)
            await choose(pilot, screen, "Run")
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
            await pilot.press("escape")  # keep playing
            await wait_for(pilot, lambda: app.screen is screen)
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
            await pilot.press("n")
            await wait_for(pilot, lambda: app._exit_renderables is not None or not app.is_running)
        assert not app.is_running

    asyncio.run(asyncio.wait_for(main(), 30))


def near_the_end(seed: int):
    """A table one command before a random bot's game ends; returns (its game, index of the last option)."""
    from cthulhu.core import Game, Setup
    from cthulhu.core.bots import make_bot

    setup = Setup(seed=seed)
    game, bot, played = Game.new(setup), make_bot("random", "main", 1), []
    while game.outcome is None:
        seat = game.prompt.seat
        cmd = bot.choose(game, seat)
        played.append((seat, cmd))
        game.apply(seat, cmd)
    replay = Game.new(setup)
    for seat, cmd in played[:-1]:
        replay.apply(seat, cmd)
    last = [o.command for o in replay.prompt.options].index(played[-1][1])
    return replay, last


def test_the_game_over_screen_says_who_died_of_what():
    async def main():
        game, last = near_the_end(SEED)
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True), link_factory=table_of(game))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await press_option(pilot, screen, last)
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
            text = screen_text(app)
            assert "The game is over" in text
            assert "Turns played" in text
            dead = [i for i in screen.view["investigators"] if not i["alive"]]
            assert dead or screen.view["outcome"] == "won"
            for inv in dead:
                assert f"{inv['name']}: died" in text
            await pilot.press("n")  # a new game: back to the title screen
            await wait_for(pilot, lambda: isinstance(app.screen, TitleScreen))
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_title_screen_takes_a_typed_seed():
    async def main():
        app = CthulhuApp(PlayOptions(seed=5), link_factory=table_link)
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(len(app.screen.rows) - 1):
                await pilot.press("down")
            await pilot.press("backspace", "4", "2")
            await pilot.press("enter")
            screen = await started(pilot)
            assert screen.link.seed == 42
            assert "seed 42" in screen_text(app)
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_hot_seat_shows_whose_decision_it_is_by_investigator():
    async def main():
        app = local_app(skip_title=True, players=2)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert screen.link.local_seats == frozenset({0, 1})
            bar = screen.query_one("#prompt").text
            assert "Ada Whitlock: choose an action" in bar and "Seat" not in bar, bar
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_a_bot_seat_plays_itself():
    async def main():
        app = local_app(skip_title=True, bots=1, bot_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert screen.link.local_seats == frozenset({0})
            for _ in range(200):  # our turns only: the bot's come back as log lines
                if screen.view.get("turn", 1) >= 3 or screen.view.get("outcome"):
                    break
                labels = options(screen)
                if not labels:  # the bot's move comes from the host
                    await wait_for(pilot, lambda: bool(options(screen)) or bool(screen.view.get("outcome")))
                    continue
                end = [n for n, label in enumerate(labels) if label.startswith("End actions")]
                await press_option(pilot, screen, end[0] if end else 0)
            log = "\n".join(screen.query_one("#log").lines_plain)
            assert "Mina Castellane takes the turn" in log  # seat 2 (the bot) took its turn
            await pilot.press("ctrl+q")

    asyncio.run(main())
