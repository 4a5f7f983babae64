"""ASCII means ASCII: with --ascii, or a terminal whose locale is not UTF-8, every byte written is 7-bit.

Checked on what the app writes (through the same writer as a real terminal) at every
stop of the tour of screens, dialogs and notices, at two sizes; and on the raw bytes of
`cthulhu play` in a real pseudo-terminal under LC_ALL=C. The writer would replace a
stray character, but these tests insist it never had to: every screen is drawn in ASCII.
"""

from __future__ import annotations

import asyncio
import tempfile

import pytest

from cthulhu.cli.embedded import table_link
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions

from support.pty_term import CLI, PtyTerm
from support.tour import STOPS, visit
from support.tui_drive import SEED


def seven_bit(data: bytes) -> bool:
    return all(b < 128 for b in data)


@pytest.mark.parametrize("stop", STOPS, ids=lambda s: s.name)
def test_every_screen_dialog_and_notice_writes_only_ascii(stop):
    async def run():
        async with visit(stop, options=PlayOptions(ascii=True), size=(80, 24)) as (pilot, capture):
            await pilot.resize_terminal(120, 40)
            await pilot.pause(0.2)
            assert capture.raw and seven_bit(capture.raw)
            assert not pilot.app.terminal.replaced, f"drawn with non-ASCII characters: {dict(pilot.app.terminal.replaced)}"

    asyncio.run(run())


def test_scrollbars_show_the_position_in_ascii():
    """The help at 80x24 is longer than its dialog: a '#' thumb on a ':' track, moving to the end with End."""
    help_stop = next(s for s in STOPS if s.name == "help")

    def thumb_rows(capture) -> list[int]:
        lines = capture.text().splitlines()
        column = max(range(len(lines[3])), key=lambda x: sum(line[x : x + 1] == ":" for line in lines[3:20]))
        return [y for y, line in enumerate(lines) if line[column : column + 1] == "#"], column

    async def run():
        async with visit(help_stop, options=PlayOptions(ascii=True), size=(80, 24)) as (pilot, capture):
            top, column = thumb_rows(capture)
            assert top, capture.text()
            await pilot.press("end")
            await pilot.pause(0.2)
            bottom, _ = thumb_rows(capture)
            assert bottom and min(bottom) > min(top), capture.text()
            assert not pilot.app.terminal.replaced

    asyncio.run(run())


def test_ascii_follows_the_locale(monkeypatch):
    monkeypatch.setenv("LC_ALL", "C")
    assert CthulhuApp(PlayOptions(), link_factory=table_link).ascii_mode
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")
    assert not CthulhuApp(PlayOptions(), link_factory=table_link).ascii_mode
    assert CthulhuApp(PlayOptions(ascii=True), link_factory=table_link).ascii_mode


def test_play_under_lc_all_c_writes_seven_bit_bytes_to_a_real_terminal():
    saves = tempfile.mkdtemp(prefix="cthulhu-ascii-")
    with PtyTerm([*CLI, "play", "--start", "--seed", str(SEED), "--saves", saves], env={"LC_ALL": "C"}) as term:
        term.wait_for(b"End actions")
        term.settle()
        for keys in ("?", "\x1b", "o", "\x1b", "1"):  # help, the choices list, a move
            term.send(keys)
            term.settle(0.3)
        assert b"+-" in term.data and b"Help" in term.data
        assert seven_bit(bytes(term.data)), sorted({c for c in bytes(term.data).decode("utf-8", "replace") if not c.isascii()})
        term.close()
