"""How long a search bot thinks, on a real clock and off the event loop.

The rules core reads no clock, so a search there runs a number of simulations it is
given (`core.search.Search.run`). A budget in seconds is kept here: the simulations run in
batches (one world of every option at a time) and the clock is looked at between them,
which is also where a cancelled decision stops. `--sims N` skips the clock altogether, so
the same seed gives the same game on any machine (what tests and benches use).

A host or a bot peer thinks in a worker thread (`choose_off_loop`), so its trio loop keeps
serving everyone else while the bot thinks; the thread only reads a view built before it
started. Bots that do not search decide at once, on the loop, as they always have.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import trio

from cthulhu.core import Command
from cthulhu.core.bots import Bot
from cthulhu.core.game import Game
from cthulhu.core.search import Search, SearchBot, Thinking

__all__ = ["Thinking", "decide", "decide_off_loop", "decide_view", "think", "view_off_loop"]


def think(search: Search, thinking: Thinking, cancel: threading.Event | None = None) -> Search:
    """Run the search to its budget, one world of every option at a time; stop early if `cancel` is set."""
    batch = max(1, len(search.options))
    deadline = None if thinking.sims is not None else time.monotonic() + thinking.seconds
    while search.searchable and not (cancel is not None and cancel.is_set()):
        if thinking.sims is not None:
            left = thinking.sims - search.sims
            if left <= 0:
                break
            search.run(min(batch, left))
        else:
            assert deadline is not None
            if time.monotonic() >= deadline:
                break
            search.run(batch)
    return search


def decide_view(bot: Bot, view: dict[str, Any], content: Any, thinking: Thinking, cancel: threading.Event | None = None) -> dict[str, Any]:
    """The bot's answer to the view's prompt (a wire command), a search bot thinking for `thinking`."""
    if isinstance(bot, SearchBot):
        return think(bot.begin(view, content), thinking, cancel).best()
    return bot.choose_view(view)


def decide(bot: Bot, game: Game, seat: int, thinking: Thinking) -> Command:
    """The bot's command for `seat` (blocking): a search bot reads only the seat's view."""
    if isinstance(bot, SearchBot):
        return Command.from_wire(decide_view(bot, game.view(seat), game.content, thinking))
    return bot.choose(game, seat)


async def decide_off_loop(bot: Bot, game: Game, seat: int, thinking: Thinking) -> Command:
    """`decide`, with a search bot's thinking in a worker thread so the loop stays free.
    Cancelled, the thread stops at its next batch and its answer is dropped."""
    if not isinstance(bot, SearchBot):
        return bot.choose(game, seat)
    view, content = game.view(seat), game.content  # built here, on the loop; the thread only reads them
    wire = await view_off_loop(bot, view, content, thinking)
    return Command.from_wire(wire)


async def view_off_loop(bot: Bot, view: dict[str, Any], content: Any, thinking: Thinking) -> dict[str, Any]:
    """`decide_view` in a worker thread for a search bot (at once, on the loop, for any other)."""
    if not isinstance(bot, SearchBot):
        return bot.choose_view(view)
    cancel = threading.Event()
    try:
        wire: dict[str, Any] = await trio.to_thread.run_sync(decide_view, bot, view, content, thinking, cancel, abandon_on_cancel=True)
        return wire
    finally:
        cancel.set()
