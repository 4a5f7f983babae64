"""Chat in networked games: `c` opens a line, Enter sends it through the real host to every peer."""

from __future__ import annotations

import asyncio

from support.terminal_capture import Capture
from support.tui_drive import SEED, started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.widgets.chat import ChatInput
from cthulhu.tui.link import ChatSaid
from cthulhu.tui.netlink import JoinAs, NetLink
from cthulhu.tui.options import PlayOptions


def _log(screen) -> str:
    return "\n".join(screen.query_one("#log").lines_plain)


def test_host_and_peer_chat_through_the_embedded_host(tmp_path):
    async def main():
        # Two players at the table: this terminal hosts (seat 1), seat 2 is left open for a peer.
        app = CthulhuApp(PlayOptions(seed=SEED, players=2, remote_seats=1, skip_title=True, saves_dir=tmp_path, name="Ann"), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            link = screen.link
            assert isinstance(link, NetLink) and link.embedded is not None and link.chat_ok
            peer = NetLink(JoinAs(host="127.0.0.1", port=link.port, name="Bob"))
            await peer.open()
            heard: list[tuple[str, str]] = []

            async def listen():
                async for update in peer.updates():
                    if isinstance(update, ChatSaid):
                        heard.append((update.name, update.text))

            listener = asyncio.create_task(listen())
            try:
                step = screen.view["step"]
                chat = screen.query_one(ChatInput)
                assert not chat.is_open
                await pilot.press("c")
                assert chat.is_open and chat.has_focus
                await pilot.press(*"1 q s")  # typed into the line: no option picked, no quit
                await pilot.press("enter")
                await wait_for(pilot, lambda: "<Ann> 1 q s" in _log(screen))
                assert not chat.is_open and screen.view["step"] == step and app.is_running
                await wait_for(pilot, lambda: ("Ann", "1 q s") in heard)

                await peer.chat("evening, all")  # the other player's line reaches our Log
                await wait_for(pilot, lambda: "<Bob> evening, all" in _log(screen))

                await pilot.press("c")
                await pilot.press(*"never mind")
                await pilot.press("escape")  # closes without sending
                await pilot.press("c", "enter")  # an empty line is not sent
                await pilot.pause(0.2)
                assert "never mind" not in _log(screen) and not chat.is_open
                assert sum(1 for n, _ in heard if n == "Ann") == 1
            finally:
                listener.cancel()
                await peer.close()
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: not app.is_running)

    asyncio.run(asyncio.wait_for(main(), 60))


def test_no_chat_in_a_solo_game():
    async def main():
        app = CthulhuApp(PlayOptions(seed=SEED, skip_title=True), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert not screen.link.chat_ok
            await pilot.press("c")
            assert not screen.query_one(ChatInput).is_open
            assert screen.check_action("chat", ()) is False  # not in the Footer either
            await pilot.press("ctrl+q")

    asyncio.run(asyncio.wait_for(main(), 30))


def test_what_is_typed_in_the_chat_line_is_on_screen(tmp_path):
    """At 80x24 and 120x40 the open chat line shows the words being typed (not only its border)."""

    async def main(size):
        app = CthulhuApp(PlayOptions(seed=SEED, players=2, remote_seats=1, skip_title=True, saves_dir=tmp_path, name="Ann"), link_factory=table_link)
        capture = Capture(app)  # the screen a terminal shows, from the app's own bytes
        async with app.run_test(size=size) as pilot:
            screen = await started(pilot)
            await pilot.press("c")
            await pilot.press(*"see you at the mill")
            await pilot.pause(0.1)
            chat = screen.query_one(ChatInput)
            assert chat.value == "see you at the mill"
            rows = capture.text().splitlines()
            row = chat.region.y
            assert chat.region.height >= 1 and "see you at the mill" in rows[row], (chat.region, rows[row - 1 : row + 2])
            assert chat.region.bottom <= screen.query_one("#prompt").region.y  # above the prompt bar, not under it
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: not app.is_running)

    for size in ((80, 24), (120, 40)):
        asyncio.run(asyncio.wait_for(main(size), 60))

