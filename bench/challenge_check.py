"""What a server's check of a challenge try costs: the save's size and the time to replay and
verify it (`server.challenge.check_try`: decode, set-up and seed, commitment, every step).

    python bench/challenge_check.py [--days 14] [--start 2026-12-01]

Plays each day's challenge to its end with the heuristic bot (bot seed 0), writes its save as a
player's machine does, and times the check (best of 3). Wall-clock figures depend on the machine
and its load; the command, `uptime` and the figures go in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.challenge_saves import save_bytes  # noqa: E402  (the tests' own writer of challenge saves)

from cthulhu.savegame.challenge import challenge  # noqa: E402
from cthulhu.savegame import decode  # noqa: E402
from cthulhu.server.challenge import check_try  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--start", default="2026-12-01")
    args = parser.parse_args()
    first = date.fromisoformat(args.start)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for n in range(args.days):
            wanted = challenge("daily", first + timedelta(days=n))
            data = save_bytes(wanted, None, Path(folder), name=f"p{n}")
            times = []
            for _ in range(3):
                start = time.perf_counter()
                check_try(data, wanted)
                times.append(time.perf_counter() - start)
            rows.append((wanted.id, wanted.setup.mode, decode(data).last_step, len(data), min(times)))
    for name, mode, steps, size, best in rows:
        print(f"{name}  {mode:9}  {steps:4} steps  {size / 1024:6.1f} KiB  check {best * 1000:7.1f} ms")
    for mode in sorted({r[1] for r in rows}):
        mine = [r for r in rows if r[1] == mode]
        per_step = statistics.median(r[4] / r[2] for r in mine) * 1000
        print(f"{mode}: {len(mine)} saves, median {statistics.median(r[4] for r in mine) * 1000:.1f} ms a check, "
              f"{per_step:.2f} ms a step, largest {max(r[3] for r in mine) / 1024:.1f} KiB")


if __name__ == "__main__":
    main()
