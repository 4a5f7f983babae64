"""No save before a game's first command: starting and quitting at once leaves no file behind
(the same choices make the same game again); from the first command on, every step is saved."""

from __future__ import annotations

import asyncio

import pytest

from support.tui_drive import SEED, first_move_then_quit, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.net.seatstore import SeatStore
from cthulhu.tui.netlink import JoinAs, NetLink
from cthulhu.savegame import load
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions


def _files(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def _log(screen) -> str:
    return "\n".join(screen.query_one("#log").lines_plain)


def test_starting_and_quitting_at_once_leaves_no_file(tmp_path):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=tmp_path), link_factory=table_link)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            await pilot.press("s")
            await wait_for(pilot, lambda: "Nothing to save yet: the game is saved from its first move on." in _log(screen))
            await pilot.press("ctrl+q")
        assert _files(tmp_path) == []
        assert app.farewell is None  # no "carry it on with --load" for a file that is not there

        again = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=tmp_path), link_factory=table_link)
        async with again.run_test(size=(80, 24)) as pilot:
            await first_move_then_quit(pilot, await started(pilot))
        (save,) = [p for p in tmp_path.iterdir() if p.suffix == ".save"]
        assert load(save).last_step == 1 and again.farewell and save.name in again.farewell

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_hosted_table_is_saved_once_a_friend_holds_a_seat_token(tmp_path):
    """The hosting player alone, quitting at once: no file. A friend who sat down holds a seat token,
    which must outlive a crash of the host: from then on the table is saved, before any command."""

    async def main():
        options = PlayOptions(seed=SEED, players=2, remote_seats=1, host_table=True, code="owl-17", skip_title=True,
                              saves_dir=tmp_path / "saves", name="Ann")
        async with CthulhuApp(options, link_factory=table_link).run_test(size=(120, 40)) as pilot:
            await started(pilot)
            await pilot.press("ctrl+q")
        assert _files(tmp_path / "saves") == []

        app = CthulhuApp(options, link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            bob = NetLink(JoinAs(host="127.0.0.1", port=screen.link.port, name="Bob", code="owl-17"), store=SeatStore(tmp_path / "bob.json"))
            await bob.open()
            await wait_for(pilot, lambda: screen.link_status is None and bool(screen.query_one("#prompt").options))
            (save,) = [p for p in (tmp_path / "saves").iterdir() if p.suffix == ".save"]
            assert load(save).last_step == 0 and [p.seat for p in load(save).header.players] == [0, 1]
            await bob.close()
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))
