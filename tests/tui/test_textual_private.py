"""Textual's private API, used in one module only (`tui/compositor.py`): this fails loudly, naming
what moved, when a Textual upgrade changes the frames the terminal writer reads or the hook
they leave the app by."""

from __future__ import annotations

import ast
import asyncio
import inspect
import tomllib
from importlib import metadata
from pathlib import Path

from rich.segment import Segment
from textual.app import App
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Static

from cthulhu.tui import compositor

ROOT = Path(__file__).resolve().parents[2]


def test_the_textual_installed_is_the_one_pinned():
    pinned = next(d for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"] if d.startswith("textual=="))
    assert metadata.version("textual") == pinned.removeprefix("textual=="), "re-check tui/compositor.py against the new Textual"


def test_the_frames_have_the_shape_the_terminal_writer_reads():
    strip = Strip([Segment("ab")])
    layout = compositor.LayoutUpdate([[strip]], Region(1, 2, 2, 1))
    assert isinstance(layout, compositor.CompositorUpdate)
    assert layout.region == Region(1, 2, 2, 1) and [list(line) for line in layout.strips] == [[strip]]
    chops = compositor.ChopsUpdate([{0: strip}], [(0, 0, 2)], [[2]])
    assert isinstance(chops, compositor.CompositorUpdate)
    assert chops.spans == [(0, 0, 2)] and chops.chop_ends == [[2]] and dict(chops.chops[0]) == {0: strip}
    assert callable(compositor.CompositorUpdate.render_segments)


def test_every_frame_leaves_the_app_through_its_display_hook():
    hook = getattr(App, compositor.DISPLAY_HOOK)
    assert list(inspect.signature(hook).parameters) == ["self", "screen", "renderable"]
    frames: list[object] = []

    class Watched(App[None]):
        def compose(self):
            yield Static("hello")

        def _display(self, screen, renderable):  # the override CthulhuApp makes
            frames.append(renderable)
            super()._display(screen, renderable)

    async def main() -> None:
        app = Watched()
        async with app.run_test(size=(20, 4)) as pilot:
            await pilot.pause()
            app.query_one(Static).update("world")
            await pilot.pause()

    asyncio.run(main())
    assert any(isinstance(f, compositor.CompositorUpdate) for f in frames)


def test_no_other_module_touches_textuals_private_modules():
    users = []
    for folder in ("core", "savegame", "net", "serve", "tui", "cli", "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if any(n.startswith("textual._") or n == "textual._compositor" for n in names):
                    users.append(str(path.relative_to(ROOT)))
    assert users == ["tui/compositor.py"]
