"""The writer check of `tests/tui/test_tui_terminal.py`, run in a fresh interpreter.

Rich keeps a style's escape codes from the first color system it was rendered in (`Style._ansi`),
and Textual a strip's rendering (`Strip._render_cache`), both process-wide for shared objects: after
another test drew in 256 or 16 colors in the same worker, Textual's own rendering (the reference)
carries those codes. A spawned process starts with no such caches, as the app does.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from typing import Any

from support.tour import STOPS, visit


def first_difference(ours: list[list[tuple[Any, ...]]], theirs: list[list[tuple[Any, ...]]]) -> str | None:
    """Where two emulated screens first differ (a short line), or None if they agree."""
    if len(ours) != len(theirs) or any(len(a) != len(b) for a, b in zip(ours, theirs)):
        return f"sizes differ: {len(ours)} rows against {len(theirs)}"
    for y, (a, b) in enumerate(zip(ours, theirs)):
        for x, (p, q) in enumerate(zip(a, b)):
            if p != q:
                return f"row {y}, column {x}: ours {p}, Textual's {q}; ours: {''.join(c[0] for c in a)!r}"
    return None


def check(name: str) -> list[str]:
    """The tour's stop `name` at 100x30, then resized to 80x24 and 120x40: what differs at each, and
    whether fewer bytes went out than Textual's full repaints."""
    stop = next(s for s in STOPS if s.name == name)

    async def run() -> list[str]:
        found = []
        async with visit(stop, size=(100, 30), reference=True) as (pilot, capture):
            found.append(f"100x30: {first_difference(capture.ours.cells(), capture.reference.cells())}")
            for size in ((80, 24), (120, 40)):
                await pilot.resize_terminal(*size)
                await pilot.pause(0.1)
                found.append(f"{size[0]}x{size[1]}: {first_difference(capture.ours.cells(), capture.reference.cells())}")
            found.append(f"fewer bytes: {len(capture.raw) < capture.reference_bytes}")
        return found

    return asyncio.run(run())


def check_apart(name: str) -> list[str]:
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(check, (name,))
