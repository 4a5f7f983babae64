"""The app at a table of a real `cthulhu server` process, at 80x24, says what a server does: `s`
says the server saves every move (there is no host to ask), `L` shows the table's id and the
`cthulhu join HOST --table ID` line to pass on, and a watcher who quits is told the table plays
on (not "quitting ends it")."""

from __future__ import annotations

import asyncio

from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import QuitScreen
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.lobby import LobbyScreen

from support.server_proc import ServerProcess, tables
from support.tui_drive import screen_text, wait_for


def _log(app) -> list[str]:
    return app.screen.query_one("#log").lines_plain if isinstance(app.screen, GameScreen) else []


def _text(app) -> str:
    return " ".join(screen_text(app).split())


def test_a_server_tables_s_l_and_a_watchers_quit_say_what_the_server_does(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server").start()
    try:
        table = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", home=tmp_path / "bea")["id"]
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))

        async def seated() -> str:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, join_table=table, name="Ann"))
            async with app.run_test(size=(80, 24)) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, GameScreen) and app.screen.updates_seen > 0, tries=1500)
                await pilot.press("s")
                await wait_for(pilot, lambda: any("server saves" in line for line in _log(app)))
                said = [line for line in _log(app) if "save" in line]
                await pilot.press("L")
                await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
                await pilot.pause()
                shown = _text(app)
                await pilot.press("escape")
            return "\n".join(said) + "\n" + shown

        said = asyncio.run(asyncio.wait_for(seated(), 120))
        assert "The server saves this table after every move" in said and "ask them" not in said, said
        assert f"Table {table} at the server {server.address}" in said, said
        assert f"cthulhu join {server.address} --table {table}" in said, said

        async def watching() -> str:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, join_table=table, name="Cy",
                                         watch=True))
            async with app.run_test(size=(80, 24)) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, GameScreen) and app.screen.updates_seen > 0, tries=1500)
                await pilot.press("q")
                await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
                await pilot.pause()
                shown = _text(app)
                await pilot.press("escape")
            return shown

        shown = asyncio.run(asyncio.wait_for(watching(), 120))
        assert "quitting ends it" not in shown and "You are watching: quitting leaves the table, which plays on" in shown, shown
    finally:
        server.stop()
