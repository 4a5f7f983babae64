"""The app's lobby at a real `cthulhu server` process, at 80x24: it reconnects by itself after the
server restarts and offers no row it cannot stand by meanwhile; a listing older than a minute is
asked again before it is shown; a wrong code says so; and a one-time code from `cthulhu join
--link` typed at its `l` makes this door the player who asked for it."""

from __future__ import annotations

import asyncio
import re
import subprocess

from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.tables import STALE, LinkDoorScreen, TableByIdScreen, TablesScreen

from support.server_proc import CLI, ServerProcess, player_env, tables
from support.tui_drive import screen_text, wait_for


def _text(app) -> str:
    return " ".join(screen_text(app).split())


def _app(server: ServerProcess, name: str = "Ann") -> CthulhuApp:
    return CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, name=name))


async def _lobby(app: CthulhuApp, pilot) -> TablesScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and app.screen.page is not None, tries=1500)
    lobby = app.screen
    assert isinstance(lobby, TablesScreen)
    return lobby


def test_the_lobby_reconnects_after_a_server_restart_and_offers_no_stale_row(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server").start()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))
    try:
        before = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", home=tmp_path / "bea")["id"]

        async def main() -> None:
            app = _app(server)
            async with app.run_test(size=(80, 24)) as pilot:
                lobby = await _lobby(app, pilot)
                assert [r.id for r in lobby.rows] == [before]
                server.stop()
                await wait_for(pilot, lambda: lobby.page is None and lobby.trouble, tries=3000)
                assert before not in _text(app) and "No answer from the server" in _text(app)
                await pilot.press("enter")  # nothing to sit at: no row is offered while the server is away
                await pilot.pause()
                assert isinstance(app.screen, TablesScreen) and "not listed yet" in str(lobby.status)

                server.start()  # the same port, the same data
                after = await asyncio.to_thread(tables, server.address, "--create", "--mode", "shamblers", "--seats", "3",
                                                home=tmp_path / "bea")
                await wait_for(pilot, lambda: lobby.page is not None and {r.id for r in lobby.rows} == {before, after["id"]}, tries=3000)
                assert lobby.link.connections == 2 and not lobby.trouble and "No answer" not in _text(app)
                assert "you are Ann" in _text(app)
                await pilot.press("q")

        asyncio.run(asyncio.wait_for(main(), 180))
    finally:
        server.stop()


def test_a_listing_older_than_a_minute_is_asked_again_before_it_is_shown(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server").start()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))
    try:
        first = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", home=tmp_path / "bea")["id"]

        async def main() -> None:
            app = _app(server)
            async with app.run_test(size=(80, 24)) as pilot:
                lobby = await _lobby(app, pilot)
                now = [1000.0]
                lobby.clock = lambda: now[0]
                lobby.refresh_list()
                await wait_for(pilot, lambda: lobby.listed_at == 1000.0, tries=1500)
                await pilot.press("enter")  # sit at it: the lobby is hidden, and asks nothing
                await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), tries=1500)
                later = await asyncio.to_thread(tables, server.address, "--create", "--mode", "shamblers", "--seats", "3",
                                                home=tmp_path / "bea")
                now[0] += STALE + 1
                assert lobby.listed_at == 1000.0 and [r.id for r in lobby.rows] == [first]
                drawn: list[list[str] | None] = []  # every state of the list drawn from now on
                redraw = lobby.redraw
                lobby.redraw = lambda: (drawn.append(None if lobby.page is None else [r.id for r in lobby.rows]), redraw())[1]
                await app.back_to_lobby()  # shown again, a minute and more later
                await wait_for(pilot, lambda: lobby.page is not None and later["id"] in {r.id for r in lobby.rows}, tries=1500)
                assert drawn and [first] not in drawn, drawn  # the old rows were never offered again
                assert lobby.listed_at == now[0]
                await pilot.press("q")

        asyncio.run(asyncio.wait_for(main(), 180))
    finally:
        server.stop()


def test_a_wrong_code_typed_at_the_lobby_says_it_is_wrong_for_this_table(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server").start()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))
    try:
        private = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--private", home=tmp_path / "bea")

        async def main() -> str:
            app = _app(server)
            async with app.run_test(size=(80, 24)) as pilot:
                lobby = await _lobby(app, pilot)
                await pilot.press("i")
                await wait_for(pilot, lambda: isinstance(app.screen, TableByIdScreen))
                await pilot.press(*f"{private['id']} WRONG99", "enter")
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and lobby.status is not None, tries=1500)
                said = str(lobby.status)
                await pilot.press("q")
                return said

        said = asyncio.run(asyncio.wait_for(main(), 120))
        assert "wrong code for this table" in said.lower() and private["id"] in said, said
        assert "host" not in said, said
    finally:
        server.stop()


def test_a_code_from_join_link_makes_this_door_the_same_player(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server").start()
    try:
        table = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", home=tmp_path / "bea")["id"]
        got = subprocess.run([*CLI, "join", server.address, "--link", "--name", "Ann"], capture_output=True, text=True, timeout=60,
                             env=player_env(tmp_path / "laptop"))
        assert got.returncode == 0, got.stderr
        code = re.search(r"Link code (\w{4}-\w{4}) \(once, until ", got.stdout)
        assert code is not None, got.stdout
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "door"))  # the door's own identity key

        async def main() -> None:
            app = _app(server, name="ann-door")
            async with app.run_test(size=(80, 24)) as pilot:
                lobby = await _lobby(app, pilot)
                assert "you are ann-door" in _text(app) and "l links" in _text(app)
                await pilot.press("enter")  # the door's identity takes a seat
                await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), tries=1500)
                await app.back_to_lobby()
                await pilot.press("l")
                await wait_for(pilot, lambda: isinstance(app.screen, LinkDoorScreen))
                await pilot.press(*code.group(1), "enter")
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and "Linked" in str(lobby.status), tries=1500)
                assert "you are Ann" in _text(app)
                await pilot.press("l")  # the same code again: used up
                await wait_for(pilot, lambda: isinstance(app.screen, LinkDoorScreen))
                await pilot.press(*code.group(1), "enter")
                await wait_for(pilot, lambda: "Not linked" in str(lobby.status), tries=1500)
                await pilot.press("q")

        asyncio.run(asyncio.wait_for(main(), 120))
        mine = tables(server.address, "--mine", home=tmp_path / "laptop")  # the door's seat is Ann's now
        assert [(r["id"], r["mine"]) for r in mine] == [(table, [1])], mine
    finally:
        server.stop()
