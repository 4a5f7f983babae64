"""The app's process freezes its start-up heap once the first table is drawn (issue 28): a full collection
then walks only what came after, not Textual's and the screens' ~90,000 objects. Objects are counted,
never timed. A test process runs many apps: only an app told it owns its process (`run_app` tells it) freezes."""

from __future__ import annotations

import asyncio
import gc

from support.tui_drive import SEED, started

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions


def run_to_first_view(own_process: bool) -> tuple[int, int, int, bool]:
    """Frozen objects before and after the first view and a moment, the objects the collector still walks,
    and whether the game screen is among them."""

    async def main() -> tuple[int, int, int, bool]:
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, hints=False), link_factory=table_link)
        app.settle_heap = own_process
        before = gc.get_freeze_count()
        async with app.run_test(size=(100, 32)) as pilot:
            screen = await started(pilot)
            await pilot.pause(0.2)
            after = gc.get_freeze_count()
            tracked = gc.get_objects()
            walked = any(o is screen for o in tracked)
        return before, after, len(tracked), walked

    try:
        return asyncio.run(main())
    finally:
        gc.unfreeze()  # (this test process goes on to run other apps)


def test_an_app_in_its_own_process_freezes_the_start_up_heap_once_the_first_view_is_drawn():
    before, after, tracked, walked = run_to_first_view(own_process=True)
    assert after - before > 20_000  # Textual, the app, the screen and its widgets
    assert not walked  # the game screen is no longer walked by a full collection
    assert tracked < after - before  # what is still walked is the smaller part


def test_an_app_not_told_it_owns_its_process_leaves_the_collector_alone():
    before, after, _, walked = run_to_first_view(own_process=False)
    assert after == before
    assert walked
