"""Figures for the terminal app (README): start-up and update-and-repaint.

    python bench/tui_figures.py [--seed 2] [--updates 60]

1. launch -> first interactive frame: `cthulhu play --start` in a real pseudo-terminal
   (120x40), timed until the prompt bar's choices are on screen; also in-process (Pilot).
2. update -> repaint: Pilot presses option keys and waits for the update to be drawn;
   in-process table and the embedded host over loopback.
Bytes per turn are `bench/tui_bytes.py`'s. Wall-clock figures depend on the machine;
they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time

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


async def in_process(seed: int, updates: int) -> dict[str, float]:
    """Press option keys and time each update until its last frame is drawn.

    Headless Textual skips writing to a terminal, so every frame is encoded here into the
    escape sequences a terminal would get, by the app's own writer (`app.terminal`). `update_to_frame`
    runs from the key press to the end of the last frame that update caused; `cpu` is the
    process time over the same span. `pilot_round_trip` is Pilot's press + pause, which
    polls for idleness in 20 ms sleeps: it is at least 60 ms whatever the app does.
    """
    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.options import PlayOptions
    from cthulhu.tui.screens.game import GameScreen

    t0 = time.perf_counter()
    app = CthulhuApp(PlayOptions(seed=seed, skip_title=True))
    last = [0.0, 0.0]
    display = app._display

    def encoded_display(screen, renderable):
        if renderable is not None:
            app.terminal.update(renderable, *app.size).render_segments(app.console)  # what the app writes
            last[:] = [time.perf_counter(), time.process_time()]
        return display(screen, renderable)

    app._display = encoded_display
    frame, cpu, pilot_times = [], [], []
    async with app.run_test(size=(120, 40)) as pilot:
        while not (isinstance(app.screen, GameScreen) and app.screen.updates_seen):
            await pilot.pause(0.001)
        await pilot.pause()
        first = time.perf_counter() - t0
        await pilot.pause(0.2)
        screen = app.screen
        for _ in range(updates):
            if screen.view.get("outcome"):
                break
            labels = [str(o.get("label")) for o in screen.query_one("#prompt").options]
            if not labels:
                await pilot.pause(0.01)
                continue
            end = [n for n, lab in enumerate(labels) if lab.startswith("End actions")]
            seen = screen.updates_seen
            t, c = time.perf_counter(), time.process_time()
            await pilot.press(screen.query_one("#prompt").keys[end[0] if end else 0])
            while screen.updates_seen == seen:
                await pilot.pause(0)
            await pilot.pause()
            pilot_times.append(time.perf_counter() - t)
            await pilot.pause(0.1)  # every frame the update causes is drawn by now
            frame.append(last[0] - t)
            cpu.append(last[1] - c)
        await pilot.press("ctrl+q")

    def ms(xs: list[float], q: float) -> float | None:
        return round(sorted(xs)[int(len(xs) * q)] * 1000, 1) if xs else None

    return {
        "first_frame_s": round(first, 3),
        "update_to_frame_ms_median": ms(frame, 0.5),
        "update_to_frame_ms_p90": ms(frame, 0.9),
        "update_cpu_ms_median": ms(cpu, 0.5),
        "pilot_round_trip_ms_median": ms(pilot_times, 0.5),
        "updates": len(frame),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--updates", type=int, default=60)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    figures = {
        "launch_to_first_frame_s (pty, embedded host)": launch_time(args.seed, args.runs),
        "in_process_embedded_host": asyncio.run(in_process(args.seed, args.updates)),
    }
    print(json.dumps(figures, indent=2))
    shutil.rmtree(SAVES, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
