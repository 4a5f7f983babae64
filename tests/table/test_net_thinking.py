"""Search bots think off the event loop: a host whose bots are all thinking still answers everyone.

Real sockets on 127.0.0.1; the bots are real search bots (one of them also notes when it
starts thinking, so the test knows the host is busy with it)."""

from __future__ import annotations

import threading

import pytest
import trio

from cthulhu.content import builtin
from cthulhu.core import Game, Setup
from cthulhu.core.search import Search, SearchBot, Thinking
from cthulhu.net.client import PeerSession, TrioPeer, play_bot
from cthulhu.table import Host
from cthulhu.net.messages import Chat, Pong
from cthulhu.table import TableSpec, open_table
from cthulhu.net.thinking import think

pytestmark = pytest.mark.trio


class Watched(SearchBot):
    """A search bot that says when it starts thinking, and keeps its search for the test to look at."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.began = threading.Event()
        self.searches: list[Search] = []

    def begin(self, view, content=None):
        search = super().begin(view, content)
        self.searches.append(search)
        self.began.set()
        return search


async def _until_thinking(peer: TrioPeer, host: Host, bots: list[Watched]) -> Watched:
    """Play the human's seat (first option) until a bot is thinking; return that bot."""
    while True:
        thinking = next((b for b in bots if b.began.is_set()), None)
        if thinking is not None:
            return thinking
        prompt = peer.session.my_prompt
        if prompt is not None and host.game.prompt is not None and host.game.prompt.seat == peer.session.seat:
            peer.session.send_command(prompt["options"][0]["command"])
            await peer.flush()
        with trio.move_on_after(0.05):
            await peer.receive()


async def test_a_host_with_three_search_bots_answers_the_others_while_they_think():
    game = Game.new(Setup(mode="shamblers", seed=4, players=4))
    host = open_table(TableSpec(start=game, bots={1: "search", 2: "search", 3: "search"}, thinking=Thinking(sims=10**9)))
    bots = []
    for seat in (1, 2, 3):
        bot = Watched(seat)
        host.seats[seat].bot = bot
        bots.append(bot)
    async with trio.open_nursery() as nursery:
        await nursery.start(host.serve)
        human = await TrioPeer.connect("127.0.0.1", host.port, PeerSession("ann"))
        while not human.session.welcomed:
            await human.receive()
        busy = await _until_thinking(human, host, bots)
        step = game.step
        # A second person comes to watch, and everyone keeps talking, while the bot thinks.
        watcher = await TrioPeer.connect("127.0.0.1", host.port, PeerSession("bob", watch=True))
        while not watcher.session.welcomed:
            await watcher.receive()
        for n in range(5):
            human.session.ping(n)
            await human.flush()
            pongs: list[int] = []
            while not pongs:
                pongs = [m.n for m in await human.receive() if isinstance(m, Pong)]
            assert pongs == [n]
        human.session.chat("still there?")
        await human.flush()
        heard: list[str] = []
        while not heard:
            heard = [m.text for m in await watcher.receive() if isinstance(m, Chat)]
        assert heard == ["still there?"]
        search = busy.searches[-1]
        assert game.step == step and search.searchable and search.sims > 0  # it was thinking all along
        nursery.cancel_scope.cancel()
    # Cancelled, the bot's thread stops at its next batch (it would otherwise think a billion times).
    for _ in range(200):
        before = search.sims
        await trio.sleep(0.05)
        if search.sims == before:
            break
    assert search.sims == before < 10**9


async def test_search_bots_play_a_table_to_the_end():
    game = Game.new(Setup(mode="shamblers", seed=8, players=3))
    async with trio.open_nursery() as nursery:
        host = open_table(TableSpec(start=game, bots={1: "search", 2: "search"}, thinking=Thinking(sims=4)))
        await nursery.start(host.serve)
        human = await play_bot("127.0.0.1", host.port, bot="search", thinking=Thinking(sims=4), seed=3, name="ann")
        nursery.cancel_scope.cancel()
    assert game.outcome is not None and human.game_over is not None and host.crashes == 0
    assert human.summary()["final_hash"] == game.state_hash()
    assert {s.bot_kind for s in host.seats[1:]} == {"search"}


async def test_a_time_budget_is_kept_and_a_cancelled_one_stops_at_once():
    game = Game.new(Setup(mode="shamblers", seed=2))
    view = game.view(game.prompt.seat)
    content = builtin()
    quick = think(SearchBot(1).begin(view, content), Thinking(seconds=0.001))
    assert quick.searchable and quick.sims >= 0
    stop = threading.Event()
    stop.set()
    assert think(SearchBot(1).begin(view, content), Thinking(sims=500), stop).sims == 0
    exact = think(SearchBot(1).begin(view, content), Thinking(sims=13))
    assert exact.sims == 13
