"""Line-API panes: an update repaints only the lines that changed and never lays out the screen."""

from __future__ import annotations

import asyncio

from rich.console import Console
from rich.text import Text
from textual.app import App

from cthulhu.tui.widgets.lines import LinesView, LogLines, text_strips


def test_text_strips_wraps_only_lines_that_do_not_fit_and_reuses_drawn_lines():
    console = Console(width=80)
    text = Text("short\n")
    text.append("a line far too long for ten columns", style="bold")
    cache: dict = {}
    strips = text_strips(console, text, 10, cache)
    assert [s.text.rstrip() for s in strips] == ["short", "a line far", "too long", "for ten", "columns"]
    assert all(s.cell_length <= 10 for s in strips)
    assert any("bold" in str(seg.style) for seg in strips[1])
    again = text_strips(console, Text("short\nnew"), 10, cache)
    assert again[0] is strips[0]  # unchanged line: the same strip, not rendered again
    assert [s.text for s in again] == ["short", "new"]
    assert len(cache) == 2  # only this text's lines are kept


class Panes(App[None]):
    CSS = "LinesView { height: 6; width: 30; }"

    def compose(self):
        yield LinesView(id="pane")
        yield LogLines(id="log")


def _lines(view: LinesView, *rows: str):
    return view.strips_of(Text("\n".join(rows)), view.text_width)


def test_changing_one_line_repaints_that_line_only():
    async def main():
        app = Panes()
        async with app.run_test() as pilot:
            pane = app.query_one("#pane", LinesView)
            pane.set_lines(_lines(pane, "one", "two", "three"))
            await pilot.pause()
            pane._repaint_regions.clear()
            pane.set_lines(_lines(pane, "one", "TWO", "three"))
            assert [r.height for r in pane._repaint_regions] == [1]
            assert not pane._layout_required
            await pilot.pause()
            assert pane.render_line(1).text.startswith("TWO")
            pane._repaint_regions.clear()
            pane.set_lines(_lines(pane, "one", "TWO", "three"))
            assert not pane._repaint_regions  # nothing changed, nothing to paint

    asyncio.run(main())


def test_log_writes_follow_the_end_without_a_layout_unless_scrolled_back():
    async def main():
        app = Panes()
        async with app.run_test() as pilot:
            log = app.query_one("#log", LogLines)
            for n in range(20):
                log.write(Text(f"line {n}"))
            await pilot.pause()
            assert log.show_vertical_scrollbar and log.scroll_offset.y == log.max_scroll_y
            log.write(Text("line 20"))
            assert not log._layout_required  # the pane's size is the grid's: no screen layout
            await pilot.pause()
            assert log.render_line(log.size.height - 1).text.startswith("line 20")
            log.scroll_to(y=0, animate=False, immediate=True)
            log.write(Text("line 21"))
            await pilot.pause()
            assert log.scroll_offset.y == 0  # a player reading back is not pulled to the end
            assert [t.plain for t in log.entries][-1] == "line 21"

    asyncio.run(main())


def test_log_keeps_at_most_max_lines_and_rewraps_on_resize():
    async def main():
        app = Panes()
        async with app.run_test() as pilot:
            log = app.query_one("#log", LogLines)
            for n in range(LogLines.MAX_LINES + 10):
                log.write(Text(f"entry {n} " + "x" * 20))
            await pilot.pause()
            assert len(log.entries) == LogLines.MAX_LINES and len(log.lines) == LogLines.MAX_LINES
            narrow = len(log.lines)
            log.styles.width = 60
            await pilot.pause()
            assert log.text_width > 30 and len(log.lines) <= narrow

    asyncio.run(main())


class ShrinkingLog(App[None]):
    CSS = "LogLines { height: 8; width: 30; } LogLines.small { height: 4; }"

    def compose(self):
        yield LogLines(id="log")


def test_the_log_keeps_following_when_its_pane_shrinks_and_never_crops_wrapped_text():
    async def main():
        app = ShrinkingLog()
        async with app.run_test() as pilot:
            log = app.query_one("#log", LogLines)
            for n in range(6):
                log.write(Text(f"entry {n}"))
            await pilot.pause()
            log.add_class("small")  # the prompt bar grew: the log got shorter while at the end
            await pilot.pause()
            for n in range(6, 20):
                log.write(Text(f"entry {n} with words enough to wrap past the pane width"))
                await pilot.pause()
            assert log.following and log.scroll_offset.y == log.max_scroll_y
            shown = "".join(log.render_line(y).text for y in range(4))
            assert "entry 19" in shown.replace("  ", " ") or "width" in shown
            # Every wrapped piece is whole: joining the pieces gives back the words.
            words = " ".join(s.text.strip() for s in log.lines)
            assert "wrap past the pane width" in words
            log.scroll_to(y=0, animate=False, immediate=True)
            await pilot.pause()
            assert not log.following
            log.write(Text("newest"))
            await pilot.pause()
            assert log.scroll_offset.y == 0  # scrolled back: left where the player put it

    asyncio.run(main())
