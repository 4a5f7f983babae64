"""A hosted game in the interface (Pilot, with its real embedded host on 127.0.0.1): the table
dialog hands an away seat to a bot and frees one; joiners come back by the seat token their
machine keeps (or one given by hand); saving is the host's, and says so."""

from __future__ import annotations

import asyncio

from support.tui_drive import SEED, first_move_then_quit, screen_text, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.savegame import load
from cthulhu.net.seatstore import SeatStore
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.netlink import JoinAs, NetLink
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.lobby import LobbyScreen


def _log(screen) -> str:
    return "\n".join(screen.query_one("#log").lines_plain)


def _hosting(tmp_path, **kw) -> CthulhuApp:
    options = dict(seed=SEED, players=2, remote_seats=1, host_table=True, code="owl-17", skip_title=True, saves_dir=tmp_path, name="Ann")
    options.update(kw)
    return CthulhuApp(PlayOptions(**options), link_factory=table_link)


async def _joiner(port: int, store: SeatStore, name: str = "Bob", **kw) -> NetLink:
    link = NetLink(JoinAs(host="127.0.0.1", port=port, name=name, code="owl-17", **kw), store=store)
    await link.open()
    return link


def test_the_table_dialog_hands_an_away_seat_to_a_bot_and_frees_another(tmp_path):
    async def main():
        app = _hosting(tmp_path)
        bobs = SeatStore(tmp_path / "bob" / "seats.json")
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            host = screen.link.embedded.host
            bob = await _joiner(screen.link.port, bobs)
            assert bob.local_seats == frozenset({1})
            await bob.close()
            await wait_for(pilot, lambda: "Bob left; Mina Castellane waits for them." in _log(screen))

            await pilot.press("L")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await wait_for(pilot, lambda: "b  let a bot play Mina Castellane until Bob is back" in screen_text(app))
            await pilot.press("b")
            await wait_for(pilot, lambda: "a bot plays for them until they are back" in screen_text(app))
            assert host.seats[1].stand_in is not None
            await pilot.press("escape")
            await wait_for(pilot, lambda: "Bob is away; a bot plays Mina Castellane until they are back." in _log(screen))

            # Bob runs the same join again: his machine still has the token, the bot leaves his seat.
            bob = await _joiner(screen.link.port, bobs)
            assert bob.local_seats == frozenset({1}) and bob._conns[0].stored_token
            await wait_for(pilot, lambda: "Bob is back (Mina Castellane)." in _log(screen))
            assert host.seats[1].stand_in is None
            await bob.close()
            await wait_for(pilot, lambda: host.seats[1].away)

            await pilot.press("L")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("2")
            await wait_for(pilot, lambda: "f  free Mina Castellane's seat for a new player" in screen_text(app))
            await pilot.press("f")
            await wait_for(pilot, lambda: "Mina Castellane's seat is open for a new player." in screen_text(app))
            await pilot.press("escape")
            cy = await _joiner(screen.link.port, SeatStore(tmp_path / "cy" / "seats.json"), name="Cy")
            assert cy.local_seats == frozenset({1})
            await wait_for(pilot, lambda: "Cy sits down to play Mina Castellane." in _log(screen))
            # Bob's old token is refused now: his next join forgets it and he watches (no seat is open).
            late = await _joiner(screen.link.port, bobs)
            assert late.local_seats == frozenset() and bobs.find(name="Bob", address=f"127.0.0.1:{screen.link.port}") is None
            for link in (cy, late):
                await link.close()
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: not app.is_running)

    asyncio.run(asyncio.wait_for(main(), 90))


def test_a_token_given_by_hand_takes_the_seat_from_another_machine(tmp_path):
    async def main():
        app = _hosting(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            bob = await _joiner(screen.link.port, SeatStore(tmp_path / "laptop" / "seats.json"))
            info = bob.lobby_info()
            token = bob._conns[0].session.token
            assert info["comeback_elsewhere"] == f"cthulhu join 127.0.0.1:{screen.link.port} --code owl-17 --token {token}"
            await bob.close()
            elsewhere = SeatStore(tmp_path / "desktop" / "seats.json")  # nothing stored on this machine
            again = await _joiner(screen.link.port, elsewhere, token=token)
            assert again.local_seats == frozenset({1}) and not again._conns[0].stored_token
            assert elsewhere.find(name="Bob", address=f"127.0.0.1:{screen.link.port}").token == token
            await again.close()
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_saving_a_hosted_game_and_what_a_joiner_is_told(tmp_path):
    async def main():
        target = tmp_path / "ours.save"
        app = _hosting(tmp_path, save_to=target)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await pilot.press("s")
            await wait_for(pilot, lambda: "Nothing to save yet: the game is saved from its first move on." in _log(screen))
            assert not target.exists()
            joined = CthulhuApp(PlayOptions(join=("127.0.0.1", screen.link.port), code="owl-17", name="Bob"))
            async with joined.run_test(size=(120, 40)) as jp:
                theirs = await started(jp)
                await wait_for(pilot, lambda: bool(screen.query_one("#prompt").options))
                await pilot.press("1")
                await wait_for(pilot, lambda: screen.view.get("step") == 1)
                await pilot.press("s")
                await wait_for(pilot, lambda: f"Saved to {target}." in _log(screen))
                await jp.press("s")
                await wait_for(jp, lambda: "The host keeps the save of this game (ask them to press s)." in _log(theirs))
                await jp.press("ctrl+q")
            await pilot.press("ctrl+q")
        assert target.exists() and app.farewell == "Carry the game on later with: cthulhu host --load " + str(target)

        unsaved = _hosting(tmp_path / "none", no_save=True)
        async with unsaved.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await pilot.press("s")
            await wait_for(pilot, lambda: "This game is not being saved (--no-save)." in _log(screen))
            await pilot.press("ctrl+q")
        assert not (tmp_path / "none").exists()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_loaded_hot_seat_game_says_so_in_its_header(tmp_path):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, players=2, skip_title=True, saves_dir=tmp_path), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert screen.title_text == "2 here, 0 bots"
            await first_move_then_quit(pilot, screen)
        (save,) = [p for p in tmp_path.iterdir() if p.suffix == ".save"]
        again = CthulhuApp(PlayOptions(load=save), link_factory=table_link)
        async with again.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert isinstance(screen, GameScreen) and screen.title_text == "2 here, 0 bots"
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_game_saved_elsewhere_is_carried_on_as_a_hosted_table(tmp_path):
    """No token of the host's own on this machine (a solo save, or one from another machine):
    the hosting terminal takes the first person's seat; the others wait for their tokens."""

    async def main():
        solo = CthulhuApp(PlayOptions(seed=SEED, players=2, skip_title=True, saves_dir=tmp_path), link_factory=table_link)
        async with solo.run_test(size=(120, 40)) as pilot:
            await first_move_then_quit(pilot, await started(pilot))
        (save,) = [p for p in tmp_path.iterdir() if p.suffix == ".save"]
        hosted = CthulhuApp(PlayOptions(load=save, host_table=True, code="owl-17", name="Ann", saves_dir=tmp_path), link_factory=table_link)
        async with hosted.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert screen.link.local_seats == frozenset({0}) and screen.view["step"] == 1
            host = screen.link.embedded.host
            assert host.started.is_set() and host.seats[1].away  # seat 2 waits for its token
            await pilot.press("L")
            await wait_for(pilot, lambda: isinstance(hosted.screen, LobbyScreen))
            text = screen_text(hosted)
            assert "game under way, step 1" in text and "their seat waits for them" in text
            await pilot.press("escape", "ctrl+q")
        from cthulhu.savegame import load

        assert load(save).header.table == host.table_id  # the save now names its table

    asyncio.run(asyncio.wait_for(main(), 60))


def test_until_every_seat_is_taken_the_bar_says_who_is_missing_instead_of_offering_choices(tmp_path):
    """The host refuses commands before the game starts; the interface must not offer them: the bar
    names the open seat and the join line, takes no key, and the choices come when Bob sits down."""

    async def main():
        app = _hosting(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            bar = screen.query_one("#prompt")
            await wait_for(pilot, lambda: "Waiting for players before the game starts: nobody plays Mina Castellane yet" in screen_text(app))
            assert f"Others join with: cthulhu join 127.0.0.1:{screen.link.port} --code owl-17" in screen.link_status
            assert screen.link_status and not bar.options and "Hint:" not in bar._shown.plain
            await pilot.press("1")
            await pilot.pause(0.2)
            assert "Refused" not in _log(screen) and screen.view["step"] == 0
            bob = await _joiner(screen.link.port, SeatStore(tmp_path / "bob" / "seats.json"))
            await wait_for(pilot, lambda: bool(bar.options))
            assert screen.link_status is None
            await wait_for(pilot, lambda: bar._shown.plain.startswith("Hint: Your turn"))  # the first choice's hint comes with it
            await pilot.press("1")
            await wait_for(pilot, lambda: screen.view["step"] == 1)
            await bob.close()
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_the_host_starts_now_with_a_bot_in_the_seat_nobody_took(tmp_path):
    """Three friends were expected and two came: the table dialog's `S` starts the game with a bot
    in the open seat, for the whole game, and the save remembers it as a bot's seat."""

    async def main():
        app = _hosting(tmp_path, bot_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            host = screen.link.embedded.host
            await wait_for(pilot, lambda: bool(screen.link_status) and "L then S" in screen.link_status)
            await pilot.press("L")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await wait_for(pilot, lambda: "S  start now: a bot plays Mina Castellane for the whole game" in screen_text(app))
            await pilot.press("S")
            await wait_for(pilot, lambda: host.started.is_set())
            assert host.seats[1].kind == "bot" and host.seats[0].kind == "human"
            await wait_for(pilot, lambda: "Started: bots play the open seats." in screen_text(app))
            await pilot.press("escape")
            bar = screen.query_one("#prompt")
            await wait_for(pilot, lambda: bool(bar.options) and screen.link_status is None)
            await wait_for(pilot, lambda: "Every seat is taken: the game begins." in _log(screen))
            assert "A bot plays Mina Castellane for the whole game." in _log(screen)
            await pilot.press("1")
            await wait_for(pilot, lambda: screen.view["step"] >= 1)
            await pilot.press("ctrl+q")
        from cthulhu.savegame import load

        (save,) = [p for p in tmp_path.iterdir() if p.suffix == ".save"]
        players = {p.seat: p for p in load(save).header.players}
        assert players[1].bot and not players[0].bot

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_hosted_games_header_keeps_the_turn_at_80_columns(tmp_path):
    """'hosting on port N, code C' is long: at 80 columns the port is what gives way, never the turn,
    the step or the code (`tui/status.py`)."""

    async def main():
        app = _hosting(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await started(pilot)
            await pilot.pause(0.1)
            header = screen_text(app).split("\n")[0]
            words = " ".join(header.split())
            assert "The Wexley Mill Fire turn 1 step 0" in words and " code " in words and len(header.rstrip()) <= 80, header
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_seat_the_host_did_not_list_before_is_no_crash():
    """The seat news compares each seat with how it was last listed; a seat that first shows up
    later (only a broken or hostile host lists one) has no past, so it is news, not a TypeError."""
    from cthulhu.net.messages import SeatInfo, Table

    link = NetLink(JoinAs(host="127.0.0.1", port=1, name="Bob"))
    ann = SeatInfo(seat=0, kind="human", name="Ann", connected=True)
    assert link._seat_news(Table(mode="main", seats=[ann])) == []  # the first listing: nothing has changed yet
    news = link._seat_news(Table(mode="main", seats=[ann, SeatInfo(seat=1, kind="bot"), SeatInfo(seat=2, kind="human", name="Cy", connected=True)]))
    assert news == ["Cy sits down to play seat 3."]  # (a link that never had a view knows no names)


def test_a_loaded_bot_game_keeps_its_bots(tmp_path):
    """`play --bots 1`, a move, ctrl+q, `play --load`: the bot's seat is the bot's again."""

    async def main():
        for local in (False,):
            folder = tmp_path / "embedded"
            app = CthulhuApp(PlayOptions(seed=SEED, bots=1, bot_kind="random", skip_title=True, saves_dir=folder, bot_delay=0), link_factory=table_link)
            async with app.run_test(size=(120, 40)) as pilot:
                screen = await started(pilot)
                assert screen.title_text == "1 here, 1 bot"
                await first_move_then_quit(pilot, screen)
            (save,) = [p for p in folder.iterdir() if p.suffix == ".save"]
            assert [(p.seat, p.bot) for p in load(save).header.players if p.bot] == [(1, "random")]
            again = CthulhuApp(PlayOptions(load=save, bot_delay=0), link_factory=table_link)
            async with again.run_test(size=(120, 40)) as pilot:
                screen = await started(pilot)
                assert isinstance(screen, GameScreen) and screen.title_text == "1 here, 1 bot", local
                assert screen.link.local_seats == frozenset({0})
                await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_hosted_table_loaded_again_keeps_its_bot_seats(tmp_path):
    from cthulhu import cli
    from cthulhu.cli.host import table_spec
    from cthulhu.table import open_table

    save = tmp_path / "bots.save"
    args = cli.build_parser().parse_args(["host", "--headless", "--port", "0", "--seats", "2", "--bots", "1", "--bot", "random",
                                          "--seed", str(SEED), "--save", str(save)])
    host = open_table(table_spec(args))
    log = host.log
    host._record_players()
    first = host.game.legal(0)[0]
    host.game.apply(0, first)  # a first command: from then on the autosave writes
    log.append(0, first.wire(), host.game.state_hash())
    log.write()  # what the host's own autosave (table/autosave.py) does after each command
    host.saves.release()
    assert [(p.seat, p.bot) for p in load(save).header.players] == [(1, "random")]
    again = open_table(table_spec(cli.build_parser().parse_args(["host", "--headless", "--port", "0", "--load", str(save)])))
    assert [(s.kind, s.bot_kind) for s in again.seats] == [("open", None), ("bot", "random")]
    again.saves.release()


def test_a_host_restarted_with_load_keeps_the_saved_host_name(tmp_path):
    """`cthulhu host --name Ann`, a move, quit; `cthulhu host --load` without --name is Ann again (not the
    login name), in her own seat, found by the token this machine keeps."""
    from cthulhu import cli
    from cthulhu.cli.common import default_name
    from cthulhu.cli.host import host_name

    async def main():
        target = tmp_path / "ann.save"
        app = _hosting(tmp_path, save_to=target)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            bob = await _joiner(screen.link.port, SeatStore(tmp_path / "bob" / "seats.json"))
            await wait_for(pilot, lambda: screen.link_status is None and bool(screen.query_one("#prompt").options))
            await pilot.press("1")
            await wait_for(pilot, lambda: screen.view.get("step") == 1)
            await bob.close()
            await pilot.press("ctrl+q")
        save = load(target)
        args = cli.build_parser().parse_args(["host", "--load", str(target)])
        name = host_name(args, save, save.header.table)
        assert name == "Ann" != default_name()
        assert host_name(cli.build_parser().parse_args(["host", "--load", str(target), "--name", "Zed"]), save, save.header.table) == "Zed"
        again = _hosting(tmp_path, load=target, name=name, remote_seats=0)
        async with again.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert screen.link.local_seats == frozenset({0})
            assert screen.link.embedded.host.seats[0].name == "Ann"
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


SAVES = __import__("pathlib").Path(__file__).resolve().parents[2] / "saves"


def test_loading_a_finished_hot_seat_game_says_nothing_about_it_beginning(tmp_path):
    """`play --load` of a game that is over, both seats at this terminal: the Log tells the story
    and the end, and nothing about seats filling or a game beginning (issue 22 leftover)."""
    import shutil

    shutil.copy(SAVES / "example-won-main.save", tmp_path / "won.save")

    async def main():
        from cthulhu.tui.screens.dialogs import GameOverScreen

        app = CthulhuApp(PlayOptions(load=tmp_path / "won.save", saves_dir=tmp_path, seed=SEED), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen) and (app.screen.dice or "").startswith("Dice: every roll"))
            screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))
            log = _log(screen)
            await pilot.press("q")
            return log

    log = asyncio.run(asyncio.wait_for(main(), 60))
    assert "The story so far" in log and "Every seat is taken" not in log and "begins" not in log, log


def test_a_loaded_game_under_way_goes_on_when_its_last_seat_is_taken(tmp_path):
    """Hosting a saved game half played: when Bo's seat is taken again the Log says the game goes on,
    not that it begins."""
    import shutil

    shutil.copy(SAVES / "example-midgame-main.save", tmp_path / "mid.save")

    async def main():
        app = _hosting(tmp_path, load=tmp_path / "mid.save", players=None)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            await wait_for(pilot, lambda: bool(screen.link_status))
            bob = await _joiner(screen.link.port, SeatStore(tmp_path / "bo" / "seats.json"), name="Bo")
            try:
                await wait_for(pilot, lambda: "Every seat is taken again: the game goes on." in _log(screen))
                log = _log(screen)
            finally:
                await bob.close()
            await pilot.press("ctrl+q")
            return log

    log = asyncio.run(asyncio.wait_for(main(), 60))
    assert "the game begins" not in log, log
