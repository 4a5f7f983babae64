"""Saves of challenge games for the tests: played to the end by a bot, written as a player's
machine writes them (a dice commitment, the header naming who played), and re-encoded after an
edit (with fresh checksums: a forger's first step)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from cthulhu.core import Game
from cthulhu.core.bots import make_bot
from cthulhu.savegame.challenge import Challenge, challenge
from cthulhu.savegame import SaveFile, decode, encode, save_game
from cthulhu.savegame.dice import Dice

DAY = date(2026, 12, 5)  # a day whose daily challenge is a short game (Shamblers, one Player Mat)


def today() -> Challenge:
    return challenge("daily", DAY)


def played(wanted: Challenge, outcome: str | None, first_seed: int = 0) -> tuple[Game, list[tuple[int, Any, str]]]:
    """`wanted`'s game played to `outcome` (None: to its end, either way) by the heuristic bot (the
    first bot seed that gets there from `first_seed`), with its log of (seat, command, hash)."""
    for seed in range(first_seed, first_seed + 300):
        game = Game.new(wanted.setup)
        bot = make_bot("heuristic", wanted.setup.mode, seed)
        log = []
        while game.outcome is None:
            command = bot.choose(game, 0)
            game.apply(0, command)
            log.append((0, command, game.state_hash()))
        if outcome in (None, game.outcome):
            return game, log
    raise AssertionError(f"no bot seed plays {wanted.id} to {outcome}")


def save_bytes(wanted: Challenge, outcome: str | None, folder: Path, *, name: str = "Ada", bot: str | None = None,
               first_seed: int = 0, upto: int | None = None) -> bytes:
    """The save a player's machine writes of `wanted` played to `outcome` (`bot`: its header says
    a bot played the seat; `upto`: only that many steps of it)."""
    game, log = played(wanted, outcome, first_seed)
    if upto is not None:
        game = Game.new(wanted.setup)
        for seat, command, _ in log[:upto]:
            game.apply(seat, command)
        log = log[:upto]
    player = {"seat": 0, "name": name, **({"bot": bot} if bot else {})}
    path = folder / f"{name}-{outcome}-{first_seed}-{upto}.save"
    save_game(path, game, log, players=[player], dice=Dice.new(wanted.setup.seed), fsync=False)
    return path.read_bytes()


def edited(data: bytes, change: Callable[[dict[str, Any]], None]) -> bytes:
    """`data`'s save with `change` made to its fields (as `SaveFile.model_dump`), written whole again."""
    fields = decode(data).model_dump(mode="python")
    change(fields)
    return encode(SaveFile.model_validate(fields))


def wait_counted(port: int, games: int = 1) -> None:
    """Ask a server's records over one anonymous lobby session until `games` are counted (the
    server replays a finished game's save off its loop, so it is counted moments after the end)."""
    import trio

    from cthulhu.net.lobbyclient import open_lobby

    async def ask() -> None:
        async with open_lobby("127.0.0.1", port, "watcher") as lobby:
            for _ in range(1200):
                answer = await lobby.records()
                if sum(row.games for row in getattr(answer, "rows", [])) >= games:
                    return
                await trio.sleep(0.1)
            raise AssertionError(f"the server never counted {games} games: {answer}")

    trio.run(ask)
