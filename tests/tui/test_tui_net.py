"""`cthulhu play`'s real path: the embedded host on a loopback port, the app joined as a peer."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from textual.widgets import Static
from support.tui_drive import SEED, choose, press_option, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.net.delta import view_hash
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.netlink import JoinAs, NetLink
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import QuitScreen


def test_play_goes_through_the_embedded_host_and_a_watcher_agrees(tmp_path):
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True, saves_dir=tmp_path), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            link = screen.link
            assert isinstance(link, NetLink) and link.embedded is not None and link.embedded.running
            assert link.port and "127.0.0.1" not in "\n".join(screen.query_one("#log").lines_plain)  # solo: no talk of sockets

            watcher = NetLink(JoinAs(host="127.0.0.1", port=link.port, name="watcher", watch=True))
            await watcher.open()
            try:
                await choose(pilot, screen, "Run")
                await choose(pilot, screen, "Move to Loading Dock")
                mine = view_hash(screen.view)

                def agrees() -> bool:
                    mirror = watcher._conns[0].session.mirror
                    return not mirror.stale and mirror.view is not None and mirror.view.get("step") == screen.view["step"]

                await wait_for(pilot, agrees)
                theirs = watcher._conns[0].session.mirror.view
                assert theirs["investigators"][0]["space"] == "loading_dock"
                assert theirs["step"] == screen.view["step"] == 2
                assert view_hash(dict(theirs, seat=None, prompt=None)) == view_hash(dict(screen.view, seat=None, prompt=None))
                assert mine == view_hash(screen.view)
            finally:
                await watcher.close()

            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
            # The dialog's own text: on screen a long folder (pytest-xdist's are longer) is folded inside its frame.
            assert str(tmp_path) in "".join(str(w.content) for w in app.screen.query(Static)).replace("\n", "")
            await pilot.press("y")  # save and quit
            await wait_for(pilot, lambda: not app.is_running)
        assert not link.embedded.running  # the host stopped with the app
        saves = list(tmp_path.iterdir())
        assert len(saves) == 1

        # --load carries on from the same step.
        app2 = CthulhuApp(PlayOptions(load=saves[0]), link_factory=table_link)
        async with app2.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert screen.view["step"] == 2
            assert screen.view["investigators"][0]["space"] == "loading_dock"
            await pilot.press("ctrl+q")
        assert not screen.link.embedded.running

    asyncio.run(asyncio.wait_for(main(), 60))


def test_ctrl_q_mid_game_stops_the_host():
    async def main():
        app = CthulhuApp(PlayOptions(seed=11, skip_title=True), link_factory=table_link)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await started(pilot)
            await choose(pilot, screen, "Run")
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: not app.is_running)
        assert not screen.link.embedded.running

    asyncio.run(asyncio.wait_for(main(), 30))


def test_the_app_joins_a_host_elsewhere_as_a_peer():
    from cthulhu.core import Game, Setup
    from cthulhu.table import TableSpec, open_table
    from cthulhu.table import ThreadedHost

    async def main():
        host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=SEED)), code="sesame")))
        port = await host.start()
        try:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", port), code="sesame", name="Ann"))
            async with app.run_test(size=(100, 30)) as pilot:
                screen = await started(pilot)
                assert screen.link.local_seats == frozenset({0})
                assert screen.link.seed is None  # the host keeps it until the end
                await choose(pilot, screen, "Run")
                await wait_for(pilot, lambda: host.host.game.step == 1)
                await pilot.press("ctrl+q")
                await wait_for(pilot, lambda: not app.is_running)
            assert host.running  # a peer leaving does not stop someone else's host

            wrong = CthulhuApp(PlayOptions(join=("127.0.0.1", port), code="wrong"))
            async with wrong.run_test(size=(100, 30)) as pilot:
                await wait_for(pilot, lambda: any("refused" in line for line in _log(wrong)))
                await pilot.press("ctrl+q")
        finally:
            await host.stop()
        assert not host.running

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_joiner_who_comes_before_the_host_waits_for_it():
    """Friends often run `cthulhu join` before the host is up: the interface says it is waiting,
    counts its attempts, and sits down by itself once the host answers."""
    import socket

    from cthulhu.core import Game, Setup
    from cthulhu.table import TableSpec, open_table
    from cthulhu.table import ThreadedHost

    async def main():
        with socket.socket() as probe:  # a free port, closed again: nothing listens there yet
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        app = CthulhuApp(PlayOptions(join=("127.0.0.1", port), code="sesame", name="Ann"))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: "attempt 2" in str(getattr(app.screen, "note", "")), tries=600)
            screen = app.screen
            assert f"cannot reach 127.0.0.1:{port}: nothing is listening there" in str(screen.note)
            assert any("No answer yet" in line for line in _log(app))
            host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=SEED)), code="sesame")), port=port)
            await host.start()
            try:
                await wait_for(pilot, lambda: screen.updates_seen > 0 and screen.link.local_seats == frozenset({0}), tries=600)
                assert screen.link_status is None  # welcomed to a game under way: no "waiting for players" first
                await choose(pilot, screen, "Run")
                await wait_for(pilot, lambda: host.host.game.step == 1)
                await pilot.press("ctrl+q")
            finally:
                await host.stop()

    asyncio.run(asyncio.wait_for(main(), 60))


def _log(app) -> list[str]:
    from cthulhu.tui.screens.game import GameScreen

    screen = app.screen
    return screen.query_one("#log").lines_plain if isinstance(screen, GameScreen) else []


def test_every_update_a_watcher_gets_carries_the_table():
    """A watcher's welcome used to queue a "connected" update with an empty view, which the game
    screen reported as a view it cannot show."""

    async def main():
        from cthulhu.core import Game, Setup
        from cthulhu.table import TableSpec, open_table
        from cthulhu.table import ThreadedHost

        host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=SEED, players=2)), code="c0de", bots={1: "heuristic"})))
        port = await host.start()
        player = NetLink(JoinAs(host="127.0.0.1", port=port, name="ann", code="c0de"))
        watcher = NetLink(JoinAs(host="127.0.0.1", port=port, name="watcher", code="c0de", watch=True))
        try:
            first = await player.open()
            assert first.view["mode"] == "main"
            assert (await watcher.open()).view["mode"] == "main"
            prompt = first.view["prompt"]
            await player.send(0, prompt["options"][0]["command"], prompt["version"])
            seen = []
            async for update in watcher.updates():
                seen.append(update)
                if update.view.get("step", 0) >= 1:
                    break
            assert seen and all(u.view.get("mode") == "main" for u in seen), seen
        finally:
            await watcher.close()
            await player.close()
            await host.stop()

    asyncio.run(asyncio.wait_for(main(), 60))


@pytest.mark.parametrize("saved", [False, True], ids=["unsaved", "saved"])
def test_a_joiner_is_told_the_host_closed_the_table_not_that_the_connection_was_lost(tmp_path, saved):
    """The bar then says plainly that the table closed and nothing more is played, not the question
    that was pending "(no choices until then)"; with the game saved, the command that comes back."""
    from cthulhu.core import Game, Setup
    from cthulhu.table import SaveTo, TableSpec, open_table
    from cthulhu.table import ThreadedHost

    async def main():
        save = SaveTo(file=tmp_path / "table.save") if saved else None
        host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=SEED, players=2)), code="sesame", save=save)))
        port = await host.start()
        try:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", port), code="sesame", name="Ann"))
            async with app.run_test(size=(100, 30)) as pilot:
                screen = await started(pilot)
                bar = screen.query_one("#prompt")
                await host.stop()  # the hosting player quits
                await wait_for(pilot, lambda: "The host closed the table" in bar.text, tries=500)
                assert "The host closed the table." in _log(app)[-1] or "The host closed the table;" in _log(app)[-1]
                await pilot.pause(0.5)
                assert not any("reconnecting" in line or "Lost the connection" in line for line in _log(app))
                assert "reconnecting" not in str(screen.note)
                shown = bar.text
                await pilot.press("ctrl+q")
                return shown, port
        finally:
            await host.stop()

    shown, port = asyncio.run(asyncio.wait_for(main(), 60))
    assert "nothing more can be played" in shown, shown
    assert "no choices until then" not in shown and "choose an action" not in shown, shown
    if saved:
        assert f"come back with: cthulhu join 127.0.0.1:{port} --code sesame" in shown, shown
    else:
        assert "(it is not saved)" in shown and "come back" not in shown, shown
    asyncio.run(asyncio.wait_for(main(), 60))


@contextlib.asynccontextmanager
async def ann_and_bob(code: str = "owl"):
    """A two-seat table in this process (its host a ThreadedHost), Ann's app in seat 1 (Ada Whitlock,
    who starts) and Bob's link in seat 2, play started: (pilot, screen, host, bob, port)."""
    from cthulhu.core import Game, Setup
    from cthulhu.table import TableSpec, open_table
    from cthulhu.table import ThreadedHost

    host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=SEED, players=2)), code=code)))
    port = await host.start()
    bob = NetLink(JoinAs(host="127.0.0.1", port=port, name="Bob", code=code))
    try:
        app = CthulhuApp(PlayOptions(join=("127.0.0.1", port), code=code, name="Ann"))
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await started(pilot)
            await bob.open()  # every seat taken: the game starts, Ann to play
            await wait_for(pilot, lambda: bool(screen.query_one("#prompt").options) and not screen.link_status)
            yield pilot, screen, host, bob, port
            await pilot.press("ctrl+q")
    finally:
        await bob.close()
        await host.stop()


def test_after_the_host_closes_the_table_the_last_mover_is_offered_no_undo(tmp_path):
    """A take-back needs a host to take it: once the table is closed the Footer leaves Undo out."""
    from test_tui_undo import footer_offers_undo

    async def main():
        async with ann_and_bob() as (pilot, screen, host, bob, port):
            await choose(pilot, screen, "Run")
            await wait_for(pilot, lambda: footer_offers_undo(pilot.app))
            await host.stop()
            await wait_for(pilot, lambda: screen.table_closed)
            await wait_for(pilot, lambda: not footer_offers_undo(pilot.app))
            assert not screen.check_action("undo", ())

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_crash_of_the_embedded_host_is_said_with_its_first_line_and_q_quits(tmp_path):
    """`cthulhu play`'s host runs in a thread of this process: when its loop raises, the table has
    stopped for good. The Log and the bar say so with the error's first line and offer to quit,
    instead of waiting (or reconnecting) for a host that will never answer."""
    from cthulhu.core import Game, Setup
    from cthulhu.table import TableSpec, open_table
    from cthulhu.cli.embedded import embedded_link

    host = open_table(TableSpec(start=Game.new(Setup(seed=SEED))))
    calls = []
    play_bots = host._play_bots

    async def crashing_play_bots() -> None:  # the loop calls it at the start and after every command
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("the rules broke at step 1\n(a second line that is not shown)")
        await play_bots()

    host._play_bots = crashing_play_bots

    async def factory(options):
        return await embedded_link(options, host)

    async def main():
        app = CthulhuApp(PlayOptions(skip_title=True, saves_dir=tmp_path), link_factory=factory)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await started(pilot)
            bar = screen.query_one("#prompt")
            await choose(pilot, screen, "Run")
            await wait_for(pilot, lambda: "The table stopped" in bar.text)
            assert "the rules broke at step 1" in bar.text and "q quits" in bar.text and "second line" not in bar.text, bar.text
            assert any("The table stopped: the rules broke at step 1" in line for line in _log(app)), _log(app)
            assert not bar.options and not screen.check_action("undo", ())
            assert not any("reconnecting" in line for line in _log(app)), _log(app)
            await pilot.press("q")  # the quit menu, as ever
            await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 60))


def test_back_at_the_table_is_told_after_the_story_of_what_was_played_meanwhile(tmp_path):
    """A joiner whose connection dropped while another seat played: the Log tells what happened
    meanwhile, then "Back at the table", so the strip's last line says where they are (the notice
    came first and a long recap scrolled it out of the two-line strip)."""

    async def main():
        async with ann_and_bob() as (pilot, screen, host, bob, port):
            await choose(pilot, screen, "End actions")
            for _ in range(50):  # Ada's Mythos card may ask her more; the first option each time
                await wait_for(pilot, lambda: bool(screen.query_one("#prompt").options) or screen.view["prompt"]["seat"] == 1)
                if screen.view["prompt"]["seat"] == 1:
                    break
                await press_option(pilot, screen, 0)
            link = screen.link
            link.port = 9  # nothing listens there: Ann stays away until it is her host's port again
            link._conns[0].writer.close()
            await wait_for(pilot, lambda: "reconnecting" in (screen.link_status or ""))
            step = bob._view()["step"]
            prompt = bob._view()["prompt"]
            await bob.send(1, prompt["options"][0]["command"], prompt["version"])  # Bob plays while Ann is away
            await wait_for(pilot, lambda: host.host.game.step > step)
            link.port = port
            await wait_for(pilot, lambda: any(line.startswith("Back at the table") for line in _log(pilot.app)))
            told = _log(pilot.app)
            away = max(n for n, line in enumerate(told) if line == "While you were away:")
            back = max(n for n, line in enumerate(told) if line.startswith("Back at the table (you play Ada Whitlock)"))
            assert away < back, told[away - 1:]
            assert told[-1].startswith("Back at the table"), told[away - 1:]  # the newest line: what the strip shows

    asyncio.run(asyncio.wait_for(main(), 60))
