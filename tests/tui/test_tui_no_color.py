"""NO_COLOR: no color codes at all reach the terminal, and what color told apart is still told apart.

Tokens keep their letters and weight; the choices list's cursor is underlined and the
prompt bar's keys are in reverse (checked in the emulated terminal).
"""

from __future__ import annotations

import asyncio
import re
import tempfile

import pytest

from support.pty_term import CLI, PtyTerm
from support.tour import STOPS, visit
from support.tui_drive import SEED

COLOR_PARAMS = set(range(30, 50)) | set(range(90, 98)) | set(range(100, 108)) | {58, 59}


def color_codes(data: bytes) -> list[str]:
    """Every SGR sequence that sets or resets a color."""
    found = []
    for params in re.findall(rb"\x1b\[([0-9;:]*)m", data):
        numbers = [int(p) for p in re.split(rb"[;:]", params) if p]
        if COLOR_PARAMS & set(numbers):
            found.append(params.decode())
    return found


@pytest.mark.parametrize("stop", STOPS, ids=lambda s: s.name)
def test_no_color_code_on_any_screen(stop, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")

    async def run():
        async with visit(stop, size=(100, 30)) as (pilot, capture):
            assert pilot.app.no_color
            assert capture.raw
            assert not color_codes(capture.raw)

    asyncio.run(run())


def test_without_color_the_cursor_is_underlined_and_keys_are_reverse(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    choices = next(s for s in STOPS if s.name == "choices")

    async def run():
        async with visit(choices, size=(100, 30)) as (pilot, capture):
            screen = capture.ours.screen
            lines = screen.display
            y = next(n for n, line in enumerate(lines) if "1  Run" in line and "│" in line)  # the list, not the bar
            x = lines[y].index("1  Run")
            assert screen.buffer[y][x].underscore and screen.buffer[y][x + 3].underscore  # the list's cursor
            other = next(n for n, line in enumerate(lines) if "2  End actions" in line and "│" in line)
            assert not screen.buffer[other][lines[other].index("2  End")].underscore
            bar = max(n for n, line in enumerate(lines) if " 1  Run" in line)
            assert screen.buffer[bar][lines[bar].index(" 1 ") + 1].reverse  # the prompt bar's key

    asyncio.run(run())


def test_tokens_keep_their_letters_and_weight(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    game = next(s for s in STOPS if s.name == "game")

    async def run():
        async with visit(game, size=(120, 40)) as (pilot, capture):
            screen = capture.ours.screen
            text = "\n".join(screen.display)
            for token in ("#r", "#b", "#y", "F1"):  # gates by their color's letter, Fire by its count
                assert token in text
            y = next(n for n, line in enumerate(screen.display) if "#r" in line)
            assert screen.buffer[y][screen.display[y].index("#r")].bold

    asyncio.run(run())


def test_play_with_no_color_sends_no_color_to_a_real_terminal():
    saves = tempfile.mkdtemp(prefix="cthulhu-nocolor-")
    with PtyTerm([*CLI, "play", "--start", "--seed", str(SEED), "--saves", saves], env={"NO_COLOR": "1"}) as term:
        term.wait_for(b"End actions")
        term.settle()
        for keys in ("o", "\x1b", "1"):
            term.send(keys)
            term.settle(0.3)
        assert b"\x1b[" in term.data and not color_codes(bytes(term.data))
        term.close()
