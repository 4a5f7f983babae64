"""The "since you left" dialog in the app, at 80x24, against a real `cthulhu server` process: Ann
leaves Bea's table, Bea plays on, Ann's `cthulhu join --table` shows what Bea did, grouped by
turn, then the prompt; a return with nothing new shows no dialog. The same through the lobby: Ann
picks a turn-based table from her "my tables"."""

from __future__ import annotations

import asyncio

import trio

from cthulhu.net.seatstore import SeatStore
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.game import GameScreen
from cthulhu.tui.screens.since import SinceScreen
from cthulhu.tui.screens.tables import TablesScreen

from support.server_proc import ServerProcess, tables
from support.memory import until
from support.since_play import deciding, play_until, sit, started, told
from support.tui_drive import screen_text, wait_for


def _ann_away_while_bea_plays(server: ServerProcess, table: str) -> tuple[int, int]:
    """Ann (this XDG_DATA_HOME's seat store and identity) sits, plays to Bea's move and leaves; Bea
    plays on until it is Ann's move again. The step Ann left at, and the step now."""
    store = SeatStore()

    async def away() -> tuple[int, list]:
        ann = await sit(server.port, "Ann", table_id=table, ident=store.identity(server.address))
        bea = await sit(server.port, "Bea", table_id=table, ident="key-bea")
        store.remember(address=server.address, table=table, name="Ann", seat=0, token=ann.session.token)
        await started(ann)
        await play_until(ann, lambda p, got: deciding(p) == 1)
        left = ann.session.mirror.view["step"]
        await ann.aclose()
        await until(bea, lambda: not bea.session.table.seats[0].connected)  # the server has seen her go
        missed = await play_until(bea, lambda p, got: deciding(p) == 0 and p.session.mirror.view["step"] > left)
        await bea.aclose()
        return left, told(missed, left)

    left, missed = trio.run(away)
    return left, missed[-1][0]


def test_ann_back_at_the_table_sees_what_bea_did_then_her_prompt(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server").start()
    try:
        table = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--name", "Dee", home=tmp_path / "dee")["id"]
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))
        left, now = _ann_away_while_bea_plays(server, table)

        async def back(expect_since: bool) -> str:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, join_table=table, name="Ann"))
            async with app.run_test(size=(80, 24)) as pilot:
                if expect_since:
                    await wait_for(pilot, lambda: isinstance(app.screen, SinceScreen), tries=1500)
                    shown = screen_text(app)
                    await pilot.press("enter")
                else:
                    await wait_for(pilot, lambda: isinstance(app.screen, GameScreen) and app.screen.updates_seen > 0, tries=1500)
                    await pilot.pause(0.3)
                    shown = ""
                    assert not isinstance(app.screen, SinceScreen)
                await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
                screen = app.screen
                assert screen.link.local_seats == frozenset({0}) and screen.view["prompt"]["seat"] == 0  # then her prompt
                await wait_for(pilot, lambda: "1 " in screen_text(app))
            return shown

        shown = asyncio.run(back(True))
        assert "Since you left" in shown and f"steps {left + 1} to {now}" in shown
        assert "Turn " in shown and "Enter / escape" in shown  # grouped by turn; the whole dialog within 80x24
        asyncio.run(back(False))  # nothing new since: no dialog
    finally:
        server.stop()


def test_ann_back_through_the_lobby_at_a_turn_based_table_sees_what_bea_did(tmp_path, monkeypatch):
    server = ServerProcess(tmp_path / "server").start()
    try:
        table = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--turn-time", "1d", "--name", "Dee",
                       home=tmp_path / "dee")["id"]
        assert [(r["id"], r["pace"]) for r in tables(server.address, home=tmp_path / "dee")] == [(table, "turn-based")]
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))
        left, now = _ann_away_while_bea_plays(server, table)

        async def back() -> str:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, name="Ann"))  # no table: the lobby
            async with app.run_test(size=(80, 24)) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and app.screen.page is not None, tries=1500)
                lobby = app.screen
                assert isinstance(lobby, TablesScreen)
                await pilot.press("m")
                await wait_for(pilot, lambda: lobby.mine and lobby.page is not None and [r.id for r in lobby.rows] == [table], tries=1500)
                await pilot.press("enter")
                await wait_for(pilot, lambda: isinstance(app.screen, SinceScreen), tries=1500)
                shown = screen_text(app)
                await pilot.press("enter")
                await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
                screen = app.screen
                assert screen.link.local_seats == frozenset({0}) and screen.view["prompt"]["seat"] == 0  # her seat, then her prompt
            return shown

        shown = asyncio.run(asyncio.wait_for(back(), 120))
        assert "Since you left" in shown and f"steps {left + 1} to {now}" in shown
        assert "Turn " in shown and "Enter / escape" in shown
    finally:
        server.stop()


def test_a_door_visitor_back_at_the_table_sees_the_dialog_with_no_toast_over_it(tmp_path, monkeypatch):
    """The SSH or web door's visitor is told how they joined in a toast; it waits under the dialog
    (the Log has it) and shows once the dialog is gone."""
    from textual.widgets._toast import Toast, ToastRack

    def toasts(screen) -> list:
        """The toasts drawn on `screen` (its rack shown, each with room on the screen)."""
        rack = screen.get_child_by_type(ToastRack)
        return [t for t in rack.query(Toast) if rack.display and t.visible and t.region.area]

    server = ServerProcess(tmp_path / "server").start()
    try:
        table = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--name", "Dee", home=tmp_path / "dee")["id"]
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))
        _ann_away_while_bea_plays(server, table)

        async def back() -> tuple[str, list[str], list[str]]:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", server.port), join_address=server.address, join_table=table, name="Ann",
                                         kiosk=True, kiosk_comeback="To come back, use the same key."))
            async with app.run_test(size=(80, 24), notifications=True) as pilot:
                await wait_for(pilot, lambda: isinstance(app.screen, SinceScreen), tries=1500)
                await pilot.pause()
                drawn = toasts(app.screen)
                shown = screen_text(app)
                over = [str(n.message) for n in app._notifications]  # what a toast would say
                await pilot.press("enter")
                await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
                await wait_for(pilot, lambda: bool(toasts(app.screen)), tries=1500)  # then it shows
                return shown, [str(t.render()) for t in drawn], over

        shown, drawn, over = asyncio.run(asyncio.wait_for(back(), 120))
        assert over and "Joined the table" in over[0]  # there was a toast to draw
        assert drawn == [], drawn  # and none over the dialog (the Log behind it has the line)
        assert "Since you left" in shown and "Enter / escape" in shown
    finally:
        server.stop()
