"""Figures for the terminal app (bench/RESULTS.md): start-up and update-and-repaint.

    python bench/tui_figures.py [--seed 2] [--updates 60] [--runs 3] [--profile FILE]

1. launch -> first interactive frame: `cthulhu play --start` in a real pseudo-terminal
   (120x40), timed until the prompt bar's choices are on screen; also in-process (Pilot).
2. update -> repaint: Pilot presses option keys and waits for the update to be drawn
   (the embedded host over loopback), and, the same run, the reference: a minimal Textual
   app whose key press changes as many cells as the game's median update (with and
   without a layout pass); `ratios` are the game's over the reference's. Also the garbage
   collector's time over those spans (process-wide: the embedded host's allocations count
   too), and, last in the same run, the game as a process of its own runs it: its start-up
   heap frozen once the first table is drawn (`CthulhuApp.settle_heap`, set by `run_app`).
Bytes per turn are `bench/tui_bytes.py`'s. Wall-clock figures depend on the machine;
they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import shutil
import sys
import tempfile
import time
from typing import Any

from pty_session import Pty

SAVES = tempfile.mkdtemp(prefix="cthulhu-bench-")  # keep the checkout's saves/ clean


def cthulhu_argv(*extra: str) -> list[str]:
    return [sys.executable, "-m", "cthulhu.cli", "play", "--start", "--saves", SAVES, *extra]


def launch_time(seed: int, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        term = Pty(cthulhu_argv("--seed", str(seed)), 120, 40)
        got = term.read_until(b"End actions", 30)
        out.append(round(time.perf_counter() - t0, 3) if got is not None else float("nan"))
        term.close()
    return out


class Frames:
    """Every frame `app` draws, encoded by `terminal` into what a terminal would be sent (headless
    Textual writes none), and the clocks at the end of the last one: wall, process CPU, this thread's CPU."""

    def __init__(self, app: Any, terminal: Any) -> None:
        self.last = (0.0, 0.0, 0.0)
        self.bytes = 0
        self.terminal = terminal
        display = app._display

        def encoded_display(screen: Any, renderable: Any) -> None:
            if renderable is not None and not app._batch_count:
                self.bytes += len(terminal.update(renderable, *app.size).render_segments(app.console))
                self.last = (time.perf_counter(), time.process_time(), time.thread_time())
            display(screen, renderable)

        app._display = encoded_display


class Collections:
    """Time the garbage collector spends, per generation (gc.callbacks), while `on`."""

    def __init__(self) -> None:
        self.on = False
        self.count = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._start = 0.0
        gc.callbacks.append(self.callback)

    def callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        elif self.on:
            self.count[info["generation"]] += 1
            self.seconds[info["generation"]] += time.perf_counter() - self._start

    def close(self) -> None:
        gc.callbacks.remove(self.callback)


class Spans:
    """Per update: key press -> end of its last frame (wall), process CPU, interface-thread CPU, cells sent;
    and the collector's time over all of them."""

    def __init__(self) -> None:
        self.rows: list[tuple[float, float, float, int]] = []
        self.gc = Collections()

    async def measure(self, pilot: Any, frames: Frames, key: str, done: Any) -> None:
        cells = frames.terminal.cells_sent
        t, c, th = time.perf_counter(), time.process_time(), time.thread_time()
        self.gc.on = True
        await pilot.press(key)
        while not done():
            await pilot.pause(0)
        await pilot.pause()
        await pilot.pause(0.1)  # every frame the update causes is drawn by now
        self.gc.on = False
        last = frames.last
        self.rows.append((last[0] - t, last[1] - c, last[2] - th, frames.terminal.cells_sent - cells))

    def figures(self) -> dict[str, float | int | None]:
        def ms(col: int, q: float = 0.5) -> float | None:
            xs = sorted(r[col] for r in self.rows)
            return round(xs[int(len(xs) * q)] * 1000, 1) if xs else None

        cells = sorted(r[3] for r in self.rows)
        n, full = max(1, len(self.rows)), self.gc.count[2]
        return {
            "gc_ms_per_update": round(sum(self.gc.seconds) * 1000 / n, 1),
            "gc_collections_by_generation": self.gc.count,
            "gc_full_collection_ms_mean": round(self.gc.seconds[2] * 1000 / full, 1) if full else None,
            "update_to_frame_ms_median": ms(0),
            "update_to_frame_ms_p90": ms(0, 0.9),
            "update_cpu_ms_median": ms(1),
            "interface_cpu_ms_median": ms(2),
            "cells_sent_median": cells[len(cells) // 2] if cells else 0,
            "updates": len(self.rows),
        }


async def game(seed: int, updates: int, profiler: cProfile.Profile | None = None, settle: bool = False) -> dict[str, Any]:
    """Press option keys in the game and time each update until its last frame is drawn.

    `update_to_frame` runs from the key press to the end of the last frame that update caused;
    `update_cpu` is the process time over the same span (the embedded host's thread included),
    `interface_cpu` the interface thread's alone (what the minimal app is compared with).
    """
    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.options import PlayOptions
    from cthulhu.tui.screens.game import GameScreen

    t0 = time.perf_counter()
    app = CthulhuApp(PlayOptions(seed=seed, skip_title=True))
    app.settle_heap = settle  # (what `run_app` sets: this process then freezes its start-up heap)
    frames = Frames(app, app.terminal)
    spans = Spans()
    async with app.run_test(size=(120, 40)) as pilot:
        while not (isinstance(app.screen, GameScreen) and app.screen.updates_seen):
            await pilot.pause(0.001)
        await pilot.pause()
        first = time.perf_counter() - t0
        await pilot.pause(0.2)
        screen = app.screen
        if profiler is not None:
            profiler.enable()
        while len(spans.rows) < updates and not screen.view.get("outcome"):
            labels = [str(o.get("label")) for o in screen.query_one("#prompt").options]
            if not labels:
                await pilot.pause(0.01)
                continue
            end = [n for n, lab in enumerate(labels) if lab.startswith("End actions")]
            seen = screen.updates_seen
            await spans.measure(pilot, frames, screen.query_one("#prompt").keys[end[0] if end else 0], lambda: screen.updates_seen != seen)
        if profiler is not None:
            profiler.disable()
        await pilot.press("ctrl+q")
    spans.gc.close()
    return {"first_frame_s": round(first, 3), **spans.figures(), "bytes_per_update": frames.bytes // max(1, len(spans.rows))}


async def minimal(cells: int, updates: int, layout: bool) -> dict[str, Any]:
    """The reference: a minimal Textual app (one `Static` filling the 120x40 screen) whose key press
    rewrites its text so that `cells` cells change (whole lines), its frames encoded by the same writer.
    `layout`: `Static.update`'s default, a layout pass on every update; else `layout=False`."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    from cthulhu.tui.terminal import Terminal

    width, height = 120, 40
    changed_rows = max(1, min(height, round(cells / width)))

    def text(n: int) -> str:
        rows = [chr(ord("a") + (n + y) % 26) * width if y < changed_rows else f"line {y} " * (width // 8) for y in range(height)]
        return "\n".join(row[:width] for row in rows)

    class Minimal(App[None]):
        CSS = "Static { height: 1fr; }"

        def __init__(self) -> None:
            super().__init__()
            self.n = 0

        def compose(self) -> ComposeResult:
            yield Static(text(0), id="text")

        def on_key(self) -> None:
            self.n += 1
            self.query_one(Static).update(text(self.n), layout=layout)

    app = Minimal()
    frames = Frames(app, Terminal())
    spans = Spans()
    async with app.run_test(size=(width, height)) as pilot:
        await pilot.pause(0.2)
        for _ in range(updates):
            seen = frames.last
            await spans.measure(pilot, frames, "x", lambda: frames.last != seen)
    return {**spans.figures(), "bytes_per_update": frames.bytes // max(1, len(spans.rows))}


def ratios(game_run: dict[str, Any], refs: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    out = {}
    for name, ref in refs.items():
        for figure in ("interface_cpu_ms_median", "update_to_frame_ms_median"):
            if game_run.get(figure) and ref.get(figure):
                out[f"{figure} / {name}"] = round(game_run[figure] / ref[figure], 2)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--updates", type=int, default=60)
    ap.add_argument("--runs", type=int, default=3, help="launches timed in a real terminal (0: none)")
    ap.add_argument("--profile", metavar="FILE", help="cProfile the game's updates (the interface thread) into FILE (pstats)")
    args = ap.parse_args()
    figures: dict[str, Any] = {}
    if args.runs:
        figures["launch_to_first_frame_s (pty, embedded host)"] = launch_time(args.seed, args.runs)
    profiler = cProfile.Profile() if args.profile else None
    played = asyncio.run(game(args.seed, args.updates, profiler))
    figures["game_embedded_host"] = played
    if profiler is not None:
        profiler.dump_stats(args.profile)
        return print(json.dumps(figures, indent=2)) or 0  # a profiled run's times are no figures to compare
    cells = int(played["cells_sent_median"] or 1)
    refs = {
        "minimal": asyncio.run(minimal(cells, args.updates, layout=True)),
        "minimal_no_layout": asyncio.run(minimal(cells, args.updates, layout=False)),
    }
    figures.update(refs)
    figures["ratios"] = ratios(played, refs)
    figures["game_settled_heap"] = asyncio.run(game(args.seed, args.updates, settle=True))  # last: it freezes this process
    gc.unfreeze()
    print(json.dumps(figures, indent=2))
    shutil.rmtree(SAVES, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
