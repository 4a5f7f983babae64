"""The app's lobby screen at a real `cthulhu server` process: `cthulhu join HOST` with no table
opens it; a table made from its form is made on the server and sat at; leaving the table comes
back to the lobby, where "my tables" has it; a refusal is one line and the list stays."""

from __future__ import annotations

import asyncio
import re
import subprocess

from support.tui_drive import screen_text, started, wait_for

from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import QuitScreen
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.tables import CreateTableScreen, TableByIdScreen, TablesScreen

from support.server_proc import CLI, ServerProcess, player_env, tables


def _text(app) -> str:
    return " ".join(screen_text(app).split())


def test_the_lobby_screen_lists_makes_sits_and_comes_back(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server").start()
    try:
        other = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--name", "Bea", home=tmp_path / "bea")
        home = tmp_path / "ann"
        home.mkdir()
        monkeypatch.setenv("XDG_DATA_HOME", str(home))

        async def main() -> str:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, name="Ann"))
            async with app.run_test(size=(100, 30)) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and app.screen.page is not None, tries=1500)
                lobby = app.screen
                assert isinstance(lobby, TablesScreen)
                text = _text(app)
                assert other["id"] in text and "Shamblers" in text and "1 open" in text and "you are Ann" in text

                await pilot.press("i")  # a table by an id the server has not: one line, the list stays
                await wait_for(pilot, lambda: isinstance(app.screen, TableByIdScreen))
                await pilot.press(*"nosuchtable", "enter")
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and lobby.status is not None, tries=1500)
                assert "no table with that id" in str(lobby.status) and other["id"] in _text(app)

                await pilot.press("slash", *"hastur", "enter")  # a search nothing matches, and back
                await wait_for(pilot, lambda: lobby.page is not None and lobby.page.total == 0 and "'hastur': 0" in _text(app), tries=1500)
                await pilot.press("slash", *["backspace"] * 6, "enter")
                await wait_for(pilot, lambda: lobby.page is not None and lobby.page.total == 1, tries=1500)

                await pilot.press("c")  # a new table: Shamblers, two seats, one bot, 12 hours a move, pause when out of time
                await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
                form = app.screen
                assert isinstance(form, CreateTableScreen)
                while form.mode_row.value != "shamblers":
                    await pilot.press("right")
                assert form.timeout not in form.rows  # (asked only of a turn-based table)
                for row, wanted in ((form.seats, 2), (form.bots, 1), (form.pace, 43_200), (form.timeout, ("pause", 3))):
                    while form.rows[form.cursor] is not row:
                        await pilot.press("down")
                    while row.value != wanted:
                        await pilot.press("left" if isinstance(wanted, int) and isinstance(row.value, int) and row.value > wanted else "right")
                assert form.form()["turn_time"] == 43_200 and form.form()["on_timeout"] == "pause"
                await pilot.press("enter")
                screen = await started(pilot)  # made, and sat at
                assert isinstance(screen, GameScreen) and screen.link.local_seats == frozenset({0})
                made = lobby.status.plain.split()[1]  # "Table ID made."
                await wait_for(pilot, lambda: "you to move: 11h 59m left" in _text(app) or "you to move: 12h left" in _text(app), tries=1500)

                await pilot.press("q")  # leaving the table comes back to the lobby; the seat waits
                await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
                await pilot.press("n")
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen), tries=1500)
                await pilot.press("m")
                await wait_for(pilot, lambda: lobby.mine and lobby.page is not None and [r.id for r in lobby.rows] == [made], tries=1500)
                assert "yours" in _text(app) or "your move" in _text(app)
                # its pace and the time left on Ann's clock (within its first second, a clock still shows 12h)
                assert re.search(r"12h a move, (11h 5\dm|12h) left", _text(app)), _text(app)

                await pilot.press("m")  # all tables again: watch Bea's
                await wait_for(pilot, lambda: not lobby.mine and lobby.page is not None and lobby.page.total == 2, tries=1500)
                while lobby.rows[lobby.cursor].id != other["id"]:
                    await pilot.press("down")
                await pilot.press("w")
                watching = await started(pilot)
                assert watching.link.watch and watching.link.local_seats == frozenset()
                await pilot.press("q")
                await wait_for(pilot, lambda: isinstance(app.screen, (QuitScreen, TablesScreen)))
                if isinstance(app.screen, QuitScreen):
                    await pilot.press("n")
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen), tries=1500)
                await pilot.press("q")
                await wait_for(pilot, lambda: not app.is_running)
                return made

        made = asyncio.run(asyncio.wait_for(main(), 120))
        listed = subprocess.run([*CLI, "tables", server.address], capture_output=True, text=True, timeout=60, env=player_env(home))
        assert listed.returncode == 0, listed.stderr
        assert f"{made}  Shamblers: Normal (you: seat 1)" in listed.stdout and "seats: 1 Ann (away); 2 heuristic bot" in listed.stdout
        [row] = [t for t in tables(server.address, "--mine", home=home)]  # the same identity, from the command line
        assert row["id"] == made and row["mode"] == "shamblers" and row["setup"] == {"difficulty": "normal"}
        assert [(s["name"], s["status"]) for s in row["seats"]] == [("Ann", "away"), ("heuristic bot", "bot")]
        assert row["moving"] == [1] and row["to_move"] is True and row["pace"] == "turn-based" and row["turn_time"] == 43_200  # Ann's move: her seat waits for her
    finally:
        assert server.stop()[0] == 0


def test_the_lobby_keys_fit_one_line_at_80_columns(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server").start()
    try:
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))

        async def main() -> list[str]:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, name="Ann"))
            async with app.run_test(size=(80, 24)) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and app.screen.page is not None, tries=1500)
                lobby = app.screen
                assert isinstance(lobby, TablesScreen)
                seen = []
                for key in ("", "m"):  # "m my tables", then "m all tables" (the longer)
                    if key:
                        await pilot.press(key)
                        await wait_for(pilot, lambda: lobby.mine and lobby.page is not None, tries=1500)
                    await pilot.pause()
                    line = lobby.query_one("#tables-status")
                    assert line.outer_size.height == 1, str(line.render())  # one line: it does not wrap
                    seen.append(str(line.render()))
                await pilot.press("q")
                await wait_for(pilot, lambda: not app.is_running)
                return seen

        seen = asyncio.run(asyncio.wait_for(main(), 120))
        for text, other in zip(seen, ("m my tables", "m all tables")):
            for keys in ("enter sit", "w watch", "c new", other, "/ search", "n/p pages", "i by id", "q quit"):
                assert keys in text, (keys, text)  # every key is still told
    finally:
        assert server.stop()[0] == 0
