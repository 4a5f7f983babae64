"""Issue 35 at a real `cthulhu server`: `n` after a server table's game goes to that server's lobby
however the table was reached, and the lobby's rows say what is so now."""

from __future__ import annotations

import asyncio

from support.tui_drive import screen_text, started, wait_for

from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import QuitScreen
from cthulhu.tui.screens.tables import TablesScreen

from support.server_proc import ServerProcess, tables


def _text(app) -> str:
    return " ".join(screen_text(app).split())


def test_a_new_game_from_a_table_joined_by_its_id_is_the_servers_lobby(tmp_path, monkeypatch):
    """`cthulhu join HOST --table ID` has no lobby behind the table: `n` (a new game, at its game over)
    opened the title screen of a game on this machine; it opens the server's lobby, as from its lobby."""
    server = ServerProcess(tmp_path / "server").start()
    try:
        home = tmp_path / "ann"
        made = tables(server.address, "--create", "--mode", "shamblers", "--seats", "1", "--name", "Ann", home=home)
        monkeypatch.setenv("XDG_DATA_HOME", str(home))

        async def main() -> None:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, join_table=made["id"], name="Ann"))
            async with app.run_test(size=(80, 24)) as pilot:
                screen = await started(pilot)
                await screen.action_new_game()  # what `n` at the game-over dialog does
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and app.screen.page is not None, tries=1500)
                await wait_for(pilot, lambda: made["id"] in _text(app), tries=1500)
                assert app.link is None and len(app.screen_stack) == 2
                await pilot.press("q")
                await wait_for(pilot, lambda: not app.is_running)

        asyncio.run(asyncio.wait_for(main(), 120))
    finally:
        assert server.stop()[0] == 0


def test_the_lobby_names_who_is_to_move_and_leaves_finished_games_out_until_asked(tmp_path, monkeypatch):
    """A row says "Ann to move" (it said "seat 1"); a table made with `tables --create` is in its
    maker's "my tables" before they sit; a finished game is listed only once `f` asks for it."""
    import subprocess

    from support.server_proc import CLI, player_env

    server = ServerProcess(tmp_path / "server").start()
    try:
        home = tmp_path / "ann"
        waiting = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--bots", "1", "--name", "Ann", home=home)
        over = tables(server.address, "--create", "--mode", "shamblers", "--seats", "1", "--name", "Bea", home=tmp_path / "bea")
        played = subprocess.run([*CLI, "join", server.address, "--table", over["id"], "--bot", "random", "--headless"],
                                capture_output=True, text=True, timeout=300, env=player_env(tmp_path / "bea"))
        assert played.returncode == 0, played.stderr  # Bea's game, played to its end
        monkeypatch.setenv("XDG_DATA_HOME", str(home))

        async def main() -> None:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, name="Ann"))
            async with app.run_test(size=(80, 24)) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and app.screen.page is not None, tries=1500)
                lobby = app.screen
                assert [r.id for r in lobby.rows] == [waiting["id"]] and "Tables in play: 1" in _text(app)
                await pilot.press("f")
                await wait_for(pilot, lambda: lobby.finished and lobby.page is not None and lobby.page.total == 2, tries=1500)
                assert over["id"] in _text(app) and "Tables: 2" in _text(app)
                await pilot.press("f", "m")  # my tables: the one Ann made, though she has not sat down
                await wait_for(pilot, lambda: lobby.mine and not lobby.finished and lobby.page is not None, tries=1500)
                assert [r.id for r in lobby.rows] == [waiting["id"]]
                await pilot.press("enter")  # she sits; it is her move; she goes back to the lobby
                await started(pilot)
                await pilot.press("q")  # leaving the table comes back to the lobby (her seat waits)
                await wait_for(pilot, lambda: isinstance(app.screen, (QuitScreen, TablesScreen)))
                if isinstance(app.screen, QuitScreen):
                    await pilot.press("n")
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and "Ann to move" in _text(app), tries=1500)
                assert "seat 1 to move" not in _text(app)
                await pilot.press("q")
                await wait_for(pilot, lambda: not app.is_running)

        asyncio.run(asyncio.wait_for(main(), 240))
        listed = subprocess.run([*CLI, "tables", server.address], capture_output=True, text=True, timeout=60, env=player_env(home))
        assert "Ann to move" in listed.stdout and "seat 1 to move" not in listed.stdout, listed.stdout
    finally:
        assert server.stop()[0] == 0
