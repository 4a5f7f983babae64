"""The game-over line "play the same game again with" is the whole `cthulhu play` command that
rebuilds the table: parsed by the real argument parser, it makes the game's own `Setup`."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

import pytest

from support.tui_drive import press_option, started, table_of, wait_for

from cthulhu import cli
from cthulhu.cli.embedded import table_link
from cthulhu.cli.play import options_from
from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.net.playagain import play_again_command
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import GameOverScreen

SAVES = Path(__file__).resolve().parents[2] / "saves"


def setup_of(command: str) -> tuple[Setup, PlayOptions]:
    """What `cthulhu play` would start from this line (the real parser, the real options)."""
    words = shlex.split(command)
    assert words[:2] == ["cthulhu", "play"], command
    args = cli.build_parser().parse_args(words[1:])
    options = options_from(args)
    return options.setup(), options


SETUPS = [
    (Setup(seed=7), {}),
    (Setup(seed=123456, episode="innsmere_tide", elder_one="cthulhu", investigators=["osric_vane", "ruth_ashby", "theda_quill"],
           players=3), {1: "random", 2: "random"}),
    (Setup(mode="shamblers", seed=2**63 - 1, difficulty="hard", players=2), {1: None}),
    (Setup(seed=0, investigators=["ada_whitlock", "mina_castellane"]), {}),
    (Setup(seed=5, players=3), {1: "random", 2: "heuristic"}),
    (Setup(seed=8, advice="off"), {}),  # the house rule too
    (Setup(seed=9, players=2), {1: "search"}),
]


@pytest.mark.parametrize(("setup", "bots"), SETUPS)
def test_the_line_parses_back_to_the_same_setup(setup, bots):
    command = play_again_command(setup, bots)
    assert command is not None
    again, options = setup_of(command)
    assert again == setup
    assert (options.bots, options.players + options.bots) == (len(bots), setup.players)
    assert options.skip_title  # it starts the game, not a title screen to fill in again
    kinds = set(bots.values())
    assert ("--bot " in command) == (len(kinds) == 1 and None not in kinds)
    if "--bot " in command:
        assert options.bot_kind == kinds.pop()
    assert Game.new(again).state_hash() == Game.new(setup).state_hash()


def test_no_line_where_play_cannot_make_the_table():
    assert play_again_command(Setup(seed=1, players=2, seats=[1, 0], investigators=["ada_whitlock", "osric_vane"])) is None
    assert play_again_command(Setup(seed=1, players=2), {0: "random", 1: "random"}) is None  # nobody left to play


def _one_before_the_end(setup: Setup, bot_seats: dict[int, str]) -> tuple[Game, int]:
    """The game `setup` one command before random bots end it; the index of that last option."""
    game, played = Game.new(setup), []
    bots = {seat: make_bot("random", setup.mode, seat + 1) for seat in range(setup.players)}
    while game.outcome is None:
        seat = game.prompt.seat
        cmd = bots[seat].choose(game, seat)
        played.append((seat, cmd))
        game.apply(seat, cmd)
    for n in range(1, len(played)):  # the last command of a person's seat, so this terminal can press it
        if played[-n][0] not in bot_seats:
            break
    cut = len(played) - n
    replay = Game.new(setup)
    for seat, cmd in played[:cut]:
        replay.apply(seat, cmd)
    return replay, [o.command for o in replay.prompt.options].index(played[cut][1])


def test_the_game_over_dialog_shows_the_line_and_it_rebuilds_the_game():
    setup = Setup(mode="shamblers", seed=41, difficulty="easy", players=2)

    async def main():
        game, last = _one_before_the_end(setup, {1: "random"})
        app = CthulhuApp(PlayOptions(skip_title=True), link_factory=table_of(game, bots={1: "random"}))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            await press_option(pilot, screen, last)
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen) and bool(app.screen.query("#summary")))
            summary = str(app.screen.query_one("#summary").render())
            await pilot.press("q")
        line = summary.split("Play the same game again with:\n", 1)[1].strip()
        again, options = setup_of(line)
        assert again == setup and options.bots == 1 and options.bot_kind == "random"

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_joiner_gets_the_line_once_the_host_reveals_the_seed():
    from cthulhu.table import TableSpec, open_table
    from cthulhu.table import ThreadedHost
    from cthulhu.tui.netlink import JoinAs, NetLink

    setup = Setup(seed=977, episode="ashcombe_library", investigators=["ruth_ashby", "silas_keel"], players=2)

    async def main():
        game, last = _one_before_the_end(setup, {1: "random"})
        host = ThreadedHost(open_table(TableSpec(start=game, bots={1: "random"}, code="sesame")))
        port = await host.start()
        link = NetLink(JoinAs(host="127.0.0.1", port=port, name="Ann", code="sesame", seats=(0,)))
        try:
            await link.open()
            assert link.play_again() is None  # the seed is the host's secret until the end
            prompt = game.prompt
            await link.send(0, prompt.options[last].command.wire(), prompt.version)
            for _ in range(500):
                if link.play_again() is not None:
                    break
                await asyncio.sleep(0.01)
            again, options = setup_of(link.play_again() or "")
            assert again == setup and options.bots == 1
        finally:
            await link.close()
            await host.stop()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_the_replay_viewer_offers_the_same_line():
    from cthulhu.savegame import load
    from cthulhu.tui.replay import ReplayLink, Replayer

    path = SAVES / "example-won-main.save"
    link = ReplayLink(Replayer.open(path))
    again, _ = setup_of(link.play_again() or "")
    assert again == load(path).setup


@pytest.mark.trio
async def test_a_headless_host_prints_the_line_at_the_end(tmp_path):
    import trio

    from cthulhu.net.client import PeerSession, ViewBot
    from support.host_proc import MODE, SAFETY, HostProcess, Player

    host = HostProcess(tmp_path, "--mode", MODE, "--seats", "2", "--bots", "1", "--bot", "random", "--bot-delay", "0",
                       "--seed", "31", "--save", str(tmp_path / "t.save"))
    player = Player("p0", ViewBot("random", 3), PeerSession("unused"))
    try:
        with trio.fail_after(SAFETY):
            port, _ = await host.start()
            await player.connect(port)

            def over() -> bool:
                return player.session.mirror.view.get("outcome") is not None

            while not over():
                await player.until(lambda: over() or player.session.my_prompt is not None)
                if over():
                    break
                target = player.step + 1
                player.session.send_command(player.bot.choose(player.session.mirror.view, MODE))
                await player.link.flush()
                await player.until(lambda: player.step >= target)
            await player.close()
            code, out = await host.wait()
    finally:
        await player.close()
        host.close()
    assert code == 0, host.stderr()
    (line,) = [line for line in out.splitlines() if line.startswith("Play it again: ")]
    again, options = setup_of(line.removeprefix("Play it again: "))
    assert again == Setup(seed=31, players=2) and (options.bots, options.bot_kind) == (1, "random")


def test_a_loaded_finished_game_shows_its_ending_and_the_link_survives(tmp_path):
    """`play --load` of a won game: the host's `game_over` comes with the welcome, before the table is
    ours; the dialog still gets the line and the dice check, and nothing in the Log says a view or the
    link broke (it used to: a view-less update, and a dialog updated before it was drawn)."""
    import shutil

    shutil.copy(SAVES / "example-won-main.save", tmp_path)

    async def main():
        app = CthulhuApp(PlayOptions(load=tmp_path / "example-won-main.save"), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
            dialog = app.screen
            # The dialog's lines exist once it is mounted (on a quiet machine the screen is current first).
            await wait_for(pilot, lambda: any("every roll verified" in str(line.render()) for line in dialog.query("#dice")))
            game = app.screen_stack[-2]
            log = "\n".join(game.query_one("#log").lines_plain)
            assert "cannot show" not in log and "No connection" not in log, log
            assert "Play the same game again with:\ncthulhu play --start --mode main --seed 1" in str(dialog.query_one("#summary").render())
            await pilot.press("q")

    asyncio.run(asyncio.wait_for(main(), 60))
