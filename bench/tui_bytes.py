"""Bytes a real terminal receives per turn (bench/RESULTS.md): `cthulhu play` in a pseudo-terminal.

    python bench/tui_bytes.py [--seed 2] [--keys 60] [--json]

A fixed, seeded sequence of key presses (each one picks a legal option, chosen by a
seeded random policy replayed on the engine in this process, so the app in the pty
is offered the same options) is typed into `cthulhu play --start` running in a
pseudo-terminal at 80x24 and 120x40, in the default theme and with `--ascii --ansi`.
Every byte the app writes after its first interactive frame is counted; a key is sent
once the previous one's output has gone quiet. Bytes per turn = bytes / turns played
(the view's turn number at the end minus at the start). The save the app wrote is read
afterwards to check that every key was taken (its last step is the number of keys).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from pty_session import Pty

from cthulhu.core import Game, Setup
from cthulhu.tui.modes import tui_mode
from cthulhu.tui.options import OPTION_KEYS, OptionKeys

SIZES = [(80, 24), (120, 40)]
THEMES = {"default": [], "ascii+ansi": ["--ascii", "--ansi"]}
TARGET_KB = {(80, 24): 12, (120, 40): 20}  # default theme; half that with --ascii --ansi


def key_sequence(seed: int, count: int) -> tuple[list[str], int]:
    """`count` option keys for a solo game of `seed`, and the number of turns they play."""
    game = Game.new(Setup(seed=seed))
    rng = random.Random(seed)
    first_turn = game.view(None)["turn"]
    stable = tui_mode(game.setup.mode).stable_keys
    assigner = OptionKeys()  # the keys the app's prompt bar gives the same prompts
    keys: list[str] = []
    while len(keys) < count and game.prompt is not None:
        prompt = game.prompt
        on_keys = assigner.assign(game.view(prompt.seat)["prompt"], stable)
        pick = rng.randrange(min(len(prompt.options), len(OPTION_KEYS)))
        keys.append(on_keys[pick])
        game.apply(prompt.seat, prompt.options[pick].command)
    return keys, game.view(None)["turn"] - first_turn


def measure(seed: int, keys: list[str], cols: int, rows: int, extra: list[str], env: dict[str, str], ssh: str | None = None) -> dict[str, object]:
    """Bytes written for the key sequence in one configuration, and whether every key was taken.
    With `ssh` (a command such as "ssh -p 2222 me@127.0.0.1"), the game runs at the other end of an
    SSH session to this same machine and the bytes are those the ssh client hands the terminal."""
    saves = tempfile.mkdtemp(prefix="cthulhu-bytes-")
    argv = [sys.executable, "-m", "cthulhu.cli", "play", "--start", "--seed", str(seed), "--saves", saves, *extra]
    if ssh:
        remote = " ".join(shlex.quote(a) for a in ["env", *(f"{k}={v}" for k, v in env.items()), *argv])
        argv = [*shlex.split(ssh), "-tt", f"cd {shlex.quote(os.getcwd())} && exec {remote}"]
    term = Pty(argv, cols, rows, env)
    try:
        if term.read_until(b"Setting up", 30) is None:
            raise SystemExit(f"the app never drew its game screen at {cols}x{rows}")
        term.drain(1.0, 30)  # the first whole frame and the first view
        start = len(term.data)
        per_key = []
        for key in keys:
            before = len(term.data)
            term.send(key)
            term.drain(0.3)
            per_key.append(len(term.data) - before)
        total = len(term.data) - start
        raw = bytes(term.data[start:])
    finally:
        term.close()
    steps = last_step(Path(saves))
    shutil.rmtree(saves, ignore_errors=True)
    return {"bytes": total, "per_key": per_key, "steps_saved": steps, "seven_bit": all(b < 128 for b in raw)}


def last_step(folder: Path) -> int | None:
    from cthulhu.savegame import load

    files = sorted(p for p in folder.iterdir() if p.is_file())
    for path in files:
        try:
            return load(path).last_step
        except Exception:
            continue
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--keys", type=int, default=60)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", help="one configuration, e.g. 80x24:default")
    ap.add_argument("--ssh", metavar="COMMAND", help='run the game over SSH to this machine, e.g. "ssh -p 2222 me@127.0.0.1"')
    args = ap.parse_args()
    keys, turns = key_sequence(args.seed, args.keys)
    env = {"TERM": "xterm-256color", "COLORTERM": "truecolor", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    env.pop("NO_COLOR", None)
    os.environ.pop("NO_COLOR", None)
    rows_out = []
    ok = True
    for (cols, rows) in SIZES:
        for theme, extra in THEMES.items():
            if args.only and args.only != f"{cols}x{rows}:{theme}":
                continue
            got = measure(args.seed, keys, cols, rows, extra, env, args.ssh)
            per_turn = got["bytes"] / max(1, turns) / 1024
            target = TARGET_KB[(cols, rows)] / (2 if extra else 1)
            taken = got["steps_saved"] == len(keys)
            ok = ok and taken and per_turn <= target
            rows_out.append(
                {
                    "size": f"{cols}x{rows}",
                    "theme": theme,
                    "keys": len(keys),
                    "turns": turns,
                    "bytes": got["bytes"],
                    "kb_per_turn": round(per_turn, 1),
                    "bytes_per_key_median": sorted(got["per_key"])[len(keys) // 2],
                    "bytes_per_key_max": max(got["per_key"]),
                    "target_kb_per_turn": target,
                    "every_key_taken": taken,
                    "seven_bit": got["seven_bit"],
                }
            )
    if args.json:
        print(json.dumps(rows_out, indent=2))
    else:
        print(f"{len(keys)} keys, {turns} turns, seed {args.seed}" + (f", over `{args.ssh}`" if args.ssh else ""))
        print("| size | theme | KB per turn | target | bytes per key (median / max) | all keys taken | 7-bit |")
        print("|---|---|---:|---:|---|---|---|")
        for r in rows_out:
            print(
                f"| {r['size']} | {r['theme']} | {r['kb_per_turn']} | {r['target_kb_per_turn']:g} | "
                f"{r['bytes_per_key_median']:,} / {r['bytes_per_key_max']:,} | {r['every_key_taken']} | {r['seven_bit']} |"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
