"""The lobby screen's records (`R`) and challenges (`d`) at a real `cthulhu server` process: the
records of a game played to its end there, today's challenges with their seeds, and the board
with a try sent from the command line; a player's name on them is drawn as typed, never markup."""

from __future__ import annotations

import asyncio
import re
import subprocess
from datetime import datetime, timezone

from support.tui_drive import screen_text, wait_for

from cthulhu.savegame.challenge import challenge
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.club import ChallengesScreen, RecordsScreen
from cthulhu.tui.screens.tables import TablesScreen

from support.challenge_saves import save_bytes, wait_counted
from support.server_proc import CLI, ServerProcess, player_env, tables


def _text(app) -> str:
    return " ".join(screen_text(app).split())


def _run(home, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=player_env(home))


def test_the_lobby_shows_the_records_and_the_challenges(tmp_path, monkeypatch):
    today = challenge("daily", datetime.now(timezone.utc).date())
    save = tmp_path / "eve.save"
    save.write_bytes(save_bytes(today, None, tmp_path, name="Eve"))
    server = ServerProcess(tmp_path / "server").start()
    try:
        address = server.address
        sent = _run(tmp_path / "eve", "challenge", address, "--submit", str(save), "--name", "[red]Eve")
        assert sent.returncode == 0, sent.stderr
        made = tables(address, "--create", "--mode", "shamblers", "--difficulty", "easy", "--seats", "1", home=tmp_path / "cy")
        assert _run(tmp_path / "cy", "join", address, "--table", made["id"], "--headless", "--bot", "random", "--name", "cy").returncode == 0
        wait_counted(server.port)
        home = tmp_path / "ann"
        home.mkdir()
        monkeypatch.setenv("XDG_DATA_HOME", str(home))

        async def main() -> None:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=address, name="Ann"))
            async with app.run_test(size=(100, 30)) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and app.screen.page is not None, tries=1500)
                assert "R records d challenges" in _text(app)
                await pilot.press("R")
                await wait_for(pilot, lambda: isinstance(app.screen, RecordsScreen) and "1 game," in _text(app), tries=1500)
                assert "Shamblers: Easy (1 player)" in _text(app)
                await pilot.press("escape")
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen))
                await pilot.press("d")
                await wait_for(pilot, lambda: isinstance(app.screen, ChallengesScreen) and "The board of" in _text(app), tries=1500)
                text = _text(app)
                assert f"> {today.id}" in text and f"seed {today.setup.seed}" in text and "1 try; you have not tried it" in text
                assert re.search(r"1\. \[red\]Eve ?: (won|lost) in \d+ turns", text), text  # a name as typed: not read as markup
                await pilot.press("down")  # the week's challenge, nobody has tried it
                await wait_for(pilot, lambda: "Nobody has sent a try yet." in _text(app), tries=1500)

        asyncio.run(main())
    finally:
        server.stop()
