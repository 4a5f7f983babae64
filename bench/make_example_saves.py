"""Write the example saves shipped in `saves/` (golden logs: seed + commands -> final hash).

    python bench/make_example_saves.py [--out saves]

Each example is a real game played by a seeded bot and written by the same
`SaveWriter` the host uses, with a fixed clock so the files are byte-for-byte
reproducible. Rerun this after a change to the rules or the content that
`tests/savegame/test_save_examples.py` reports; commit the files it writes.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cthulhu.content import builtin
from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.savegame.dice import Dice
from cthulhu.savegame import SaveWriter, load, replay
from cthulhu.savegame.writer import summarize

EXAMPLE_TIME = "2026-01-01T00:00:00+00:00"
MAX_STEPS = 5000
PLAYERS = {"main": 2, "shamblers": 2}
NAMES = ["Ann", "Bo", "Cy", "Di", "Ed"]


def _summoned(game: Game) -> bool:
    return bool(summarize(game).get("elder_one_summoned"))


@dataclass(frozen=True)
class Example:
    name: str
    mode: str
    what: str
    # Given a game after a step, True when the example should stop here.
    stop: Callable[[Game], bool]
    # Whether the game at the stop is the one wanted (else try the next seed).
    wanted: Callable[[Game], bool]


EXAMPLES = [
    Example("example-fresh-main.save", "main", "a fresh game, nothing played yet", lambda g: True, lambda g: g.step == 0),
    Example(
        "example-midgame-main.save",
        "main",
        "mid-game, a few commands after the Elder One took the board",
        lambda g: g.outcome is not None or _summoned(g),
        lambda g: g.outcome is None and _summoned(g),
    ),
    Example("example-won-main.save", "main", "a finished game the investigators won", lambda g: g.outcome is not None, lambda g: g.outcome == "won"),
    Example("example-fresh-shamblers.save", "shamblers", "a fresh Shamblers game", lambda g: True, lambda g: g.step == 0),
    Example(
        "example-won-shamblers.save",
        "shamblers",
        "a finished Shamblers game that was won",
        lambda g: g.outcome is not None,
        lambda g: g.outcome == "won",
    ),
]


def _bot(kind: str, mode: str, seed: int):
    try:
        return make_bot(kind, mode, seed)
    except ImportError:
        return None


def find(example: Example, content, seeds: int = 400) -> tuple[Setup, str, int] | None:
    """The first (setup, bot kind, steps) that gives the wanted game."""
    for seed in range(1, seeds + 1):
        for kind in ("heuristic", "random"):
            # Name every choice, so content added later (a new investigator) cannot change the game.
            named = dict(episode="wexley_mill", elder_one="hastur", investigators=["ada_whitlock", "osric_vane"]) if example.mode == "main" else {}
            setup = Setup(mode=example.mode, seed=seed, players=PLAYERS[example.mode], **named)
            game = Game.new(setup, content)
            bot = _bot(kind, example.mode, seed)
            if bot is None:
                continue
            while not example.stop(game) and game.outcome is None and game.step < MAX_STEPS:
                seat = game.prompt.seat
                game.apply(seat, bot.choose(game, seat))
            if example.stop(game) and example.wanted(game):
                extra = 0
                if example.name.startswith("example-midgame"):
                    # A few commands more, so the save shows the Elder One at work; not past the end.
                    while extra < 3 and game.outcome is None:
                        seat = game.prompt.seat
                        game.apply(seat, bot.choose(game, seat))
                        extra += 1
                    if game.outcome is not None:
                        continue
                return setup, kind, game.step
    return None


def write(example: Example, setup: Setup, kind: str, steps: int, out: Path, content) -> Path:
    game = Game.new(setup, content)
    path = out / example.name
    players = [{"seat": s, "name": NAMES[s]} for s in range(setup.players)]
    # A salt derived from the file name keeps the examples byte-for-byte reproducible;
    # a real game's salt comes from `secrets` (net/commitment.py).
    salt = hashlib.blake2b(example.name.encode(), digest_size=32, person=b"cthulhu-example").digest()
    writer = SaveWriter(path, game, players=players, autosave=False, created=EXAMPLE_TIME, clock=lambda: EXAMPLE_TIME, dice=Dice(setup.seed, salt))
    bot = make_bot(kind, setup.mode, setup.seed)
    while game.step < steps:
        seat = game.prompt.seat
        command = bot.choose(game, seat)
        game.apply(seat, command)
        writer.append(seat, command.wire(), game.state_hash())
    writer.write()
    check = replay(load(path), content, verify=True)
    assert check.state_hash() == game.state_hash()
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "saves"))
    parser.add_argument("--only", action="append", help="only the example with this file name (repeatable)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    content = builtin()
    missing = 0
    for example in EXAMPLES:
        if args.only and example.name not in args.only:
            continue
        found = find(example, content)
        if found is None:
            print(f"{example.name}: no seed gives {example.what}; not written", file=sys.stderr)
            missing += 1
            continue
        setup, kind, steps = found
        path = write(example, setup, kind, steps, out, content)
        save = load(path)
        print(f"{path.name}: {example.what}: seed {setup.seed}, {kind} bot, {steps} steps, "
              f"outcome {save.header.outcome}, {path.stat().st_size:,} bytes")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
