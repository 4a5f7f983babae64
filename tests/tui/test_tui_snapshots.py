"""Snapshots of the screens (pytest-textual-snapshot): title, main game, Shamblers game, help, the
choices list, game over and the replay viewer, at 80x24 and 120x40, in the default look and with
--ascii --ansi. Each is compared with its SVG in `__snapshots__/test_tui_snapshots/`.

When a screen changes on purpose, look at the new pictures and regenerate them all with:

    pytest tests/tui/test_tui_snapshots.py --snapshot-update
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cthulhu.tui.options import PlayOptions

from support.tour import LOCAL_GAME, STOPS, wait_for

BY_NAME = {stop.name: stop for stop in [*STOPS, LOCAL_GAME]}
LOOKS = {"default": PlayOptions(), "ascii-ansi": PlayOptions(ascii=True, theme="ansi")}
SAVES = Path(__file__).resolve().parents[2] / "saves"


@pytest.mark.parametrize("look", list(LOOKS))
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", ["title", "main-game", "shamblers", "help", "choices", "game-over", "replay"])
def test_screen_matches_its_snapshot(name, size, look, snap_compare, tmp_path):
    import shutil

    for save in ("example-won-main.save", "example-midgame-main.save"):
        shutil.copy(SAVES / save, tmp_path / save)
    stop = BY_NAME[name]
    app = stop.app(LOOKS[look], tmp_path)

    async def reach(pilot) -> None:
        await stop.reach(pilot)
        await wait_for(pilot, lambda: stop.is_there(app))
        await pilot.pause(0.2)
        # Settled: the same screen twice in a row (a pane's scrollbar can come and go for a frame while
        # the last update lays out, shifting the map by a column under a loaded machine).
        shown = app.export_screenshot()
        for _ in range(30):
            await pilot.pause(0.1)
            again = app.export_screenshot()
            if again == shown:
                break
            shown = again

    assert snap_compare(app, terminal_size=size, run_before=reach)
