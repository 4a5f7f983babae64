"""The lobby's create form takes a notification address (n): one the server's operator does not
allow is refused in one line and nothing is made; an allowed one makes the table."""

from __future__ import annotations

import asyncio

from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.tables import CreateTableScreen, NotifyScreen, TablesScreen

from support.server_proc import ServerProcess, tables
from support.tui_drive import screen_text, wait_for


def test_the_create_form_sends_a_notification_address_the_server_checks(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server", args=("--notify-allow", "http://127.0.0.1:9/*")).start()
    try:
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))

        async def main() -> None:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, name="Ann"))
            async with app.run_test(size=(100, 30)) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and app.screen.page is not None, tries=1500)
                lobby = app.screen
                for url, made in (("https://elsewhere.example/x", False), ("http://127.0.0.1:9/hook", True)):
                    await pilot.press("c")
                    await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
                    form = app.screen
                    while form.mode_row.value != "shamblers":
                        await pilot.press("right")
                    while form.seats.value != 1:
                        await pilot.press("down") if form.rows[form.cursor] is not form.seats else await pilot.press("left")
                    await pilot.press("n")
                    await wait_for(pilot, lambda: isinstance(app.screen, NotifyScreen))
                    await pilot.press(*url, "enter")
                    await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen) and form.notify_url == url)
                    assert url in screen_text(app)
                    await pilot.press("enter")
                    if made:
                        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), tries=1500)
                    else:
                        await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and lobby.status is not None, tries=1500)
                        assert "Not made" in str(lobby.status) and "does not allow notifications" in str(lobby.status)
                        assert tables(server.address, home=tmp_path / "bea") == []

        asyncio.run(main())
        [row] = tables(server.address, home=tmp_path / "bea")
        assert "127.0.0.1:9" not in str(row)  # the address is never listed
    finally:
        server.stop()
