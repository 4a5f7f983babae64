"""Issue 35, every line fits and every word is right: the help at 80x24 and 120x40, ctrl+c.

Each screen is reached the way a player reaches it (keys, on a real table in this process) and read
at the sizes players have.
"""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Static

from support.tour import STOPS, visit
from support.tui_drive import started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.tui.options import OPTION_KEYS
from cthulhu.tui.screens.dialogs import HelpScreen, QuitScreen
from cthulhu.tui.screens.game import GameScreen

SIZES = [(80, 24), (120, 40)]
HELP = next(s for s in STOPS if s.name == "help")
GAME = next(s for s in STOPS if s.name == "game")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_help_keys_are_one_a_line_and_no_line_wraps(size: tuple[int, int]) -> None:
    """Every line of the help is one row of the dialog (the two-column key lines wrapped mid-phrase),
    and the option keys are named as the prompt gives them: `a` is the odds, never an option."""

    async def main() -> None:
        async with visit(HELP, size=size) as (pilot, capture):
            screen = pilot.app.screen
            assert isinstance(screen, HelpScreen)
            body = screen.query_one("#help-body Static", Static)
            lines = screen.text.splitlines()
            assert body.size.height == len(lines), f"{body.size.height} rows for {len(lines)} lines: a line wrapped"
            assert max(len(line) for line in lines) <= body.size.width
            keys = [line for line in lines if line.startswith("  1-9")]
            assert keys == ["  1-9, then b, d, e ..."], keys
            assert "a" not in OPTION_KEYS and OPTION_KEYS[9:12] == "bde"
            odds = next(line for line in lines if line.split()[:1] == ["a"])
            assert "the odds" in odds

    asyncio.run(main())


@pytest.mark.parametrize("modal", [None, "question_mark", "o"], ids=["game", "over-help", "over-choices"])
def test_ctrl_c_opens_the_quit_dialog_as_q_does(modal: str | None) -> None:
    """Ctrl+C asks to save and quit (Textual's own only told to press ctrl+q), over a dialog too;
    escape goes back to where the player was."""

    async def main() -> None:
        async with visit(GAME, size=(80, 24)) as (pilot, capture):
            game = await started(pilot)
            if modal is not None:
                await pilot.press(modal)
                await wait_for(pilot, lambda: pilot.app.screen is not game)
            under = pilot.app.screen
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: isinstance(pilot.app.screen, QuitScreen))
            assert "Quit the game?" in capture.text() or await _drawn(pilot, capture, "Quit the game?")
            await pilot.press("ctrl+c")  # a second one leaves the one dialog open
            await pilot.pause()
            assert sum(isinstance(s, QuitScreen) for s in pilot.app.screen_stack) == 1
            await pilot.press("escape")
            await wait_for(pilot, lambda: pilot.app.screen is under)
            assert isinstance(pilot.app.screen_stack[1], GameScreen)

    asyncio.run(main())


async def _drawn(pilot, capture, text: str) -> bool:
    await wait_for(pilot, lambda: text in capture.text())
    return True


TITLE = next(s for s in STOPS if s.name == "title")


def test_default_says_what_the_default_is_and_new_tables_seat_the_investigators() -> None:
    """The title screen's "(default)" names the rules' choice ("The Wexley Mill Fire (default)"), listed
    once; a new server table starts with a seat for each investigator chosen, and follows the choice."""
    from cthulhu.tui.screens.tables import CreateTableScreen

    async def main() -> None:
        async with visit(TITLE, size=(80, 24)) as (pilot, capture):
            await wait_for(pilot, lambda: "The Wexley Mill Fire (default)" in capture.text())
            assert "Hastur (default)" in capture.text() and "  (default)" not in capture.text()
            form = CreateTableScreen(pilot.app.content)
            await pilot.app.push_screen(form)
            await wait_for(pilot, lambda: "A new table" in capture.text())
            episode = next(r for r in form.rows if r.key == "episode")
            assert [shown for _, shown in episode.values].count("The Wexley Mill Fire") == 0  # once, as the default
            investigators = [r for r in form.rows if r.key.startswith("investigators:")]
            chosen = sum(r.value is not None for r in investigators)
            assert chosen >= 1 and form.form()["seats"] == chosen
            form.cursor = form.rows.index(investigators[chosen])  # one more investigator: one more seat
            taken = {r.value for r in investigators[:chosen]}
            await pilot.press("right")
            while investigators[chosen].value in taken:  # the same investigator twice counts once
                await pilot.press("right")
            assert form.form()["seats"] == chosen + 1
            await pilot.press("escape")

    asyncio.run(main())


@pytest.mark.parametrize("deep", [False, True], ids=["home", "deep"])
def test_the_quit_dialogs_path_is_one_line_with_home_as_a_tilde(tmp_path, monkeypatch, deep: bool) -> None:
    """The save's path is one line of the dialog at 80 columns: the home folder as `~`, a path still too
    long given up from its first folders for `…`, the file's own name whole (it wrapped mid-word)."""
    from support.terminal_capture import Capture
    from support.tui_drive import SEED

    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.options import PlayOptions

    monkeypatch.setenv("HOME", str(tmp_path))
    saves = tmp_path / "saves"
    if deep:
        saves = tmp_path.joinpath(*[f"a-folder-with-a-long-name-{n}" for n in range(4)], "saves")

    async def main() -> None:
        app = CthulhuApp(PlayOptions(seed=SEED, saves_dir=saves, skip_title=True), link_factory=table_link)
        capture = Capture(app)
        async with app.run_test(size=(80, 24)) as pilot:
            game = await started(pilot)
            await pilot.press("1")
            await wait_for(pilot, lambda: game.view.get("step", 0) >= 1 and game.link.save_path is not None)
            name = game.link.save_path.name
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen) and name in capture.text())
            row = next(row for row in capture.text().splitlines() if name in row)
            shown = next(word for word in row.split() if word.endswith(name))  # the path, whole on its row
            assert shown == ("…/a-folder-with-a-long-name-3/saves/" if deep else "~/saves/") + name, row
            await pilot.press("escape")
            await pilot.press("ctrl+q")

    asyncio.run(main())


LOAD = next(s for s in STOPS if s.name == "load")


def test_the_load_dialog_at_80_columns_wraps_no_phrase() -> None:
    """Each save is two whole lines: its file, then its game and date ('2026-01-01', not a timestamp
    cut over two rows)."""

    async def main() -> None:
        async with visit(LOAD, size=(80, 24)) as (pilot, capture):
            await wait_for(pilot, lambda: "example-won-shamblers.save" in capture.text())
            rows = capture.text().splitlines()
            for details in ("main, step 39, in play, 2026-01-01", "main, step 88, won, 2026-01-01", "shamblers, step 57, won, 2026-01-01"):
                assert any(details in row for row in rows), (details, capture.text())
            assert "T00:00" not in capture.text()

    asyncio.run(main())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_hosts_header_never_cuts_the_tables_code(tmp_path, size: tuple[int, int]) -> None:
    """Hosting at 80 columns, the header gave the code's end up to the terminal's edge; now the words
    that may go go first ("hosting on port N"), and the code, the turn and the step stay whole."""
    from support.tui_drive import SEED

    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.options import PlayOptions

    code = "owl-moth-lantern-17"

    async def main() -> None:
        app = CthulhuApp(PlayOptions(seed=SEED, players=2, remote_seats=1, code=code, skip_title=True, saves_dir=tmp_path, name="Ann"), link_factory=table_link)
        async with app.run_test(size=size) as pilot:
            game = await started(pilot)
            header = str(game.query_one("#status", Static).render())
            assert len(header) <= size[0] and f"code {code}" in header and "turn 1" in header and "step 0" in header, header
            if size[0] >= 120:
                assert "hosting on port" in header  # room for everything
            await pilot.press("ctrl+q")

    asyncio.run(main())
