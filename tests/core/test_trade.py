"""Trade: backing out before anything changes hands costs no action, and keys stay put while cards change hands."""

from __future__ import annotations

import asyncio

from support.helpers import do, new_game, rearrange, types
from support.helpers import discovery_id
from support.tui_drive import started, table_of, wait_for

from cthulhu.core import Command
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.options import PlayOptions


def trading_table():
    """Ada and Mina at the Yard Gate, Ada holding two Items (the Fire Axe and the Iron Pry Bar), Ada to act."""
    game = new_game("ada_whitlock", "mina_castellane")
    rearrange(game, at={0: "yard_gate", 1: "yard_gate"}, figures=[], fire={})
    s = game.state
    s.investigators[0].cards.append({"card": discovery_id(game, "Fire Axe"), "side": "left", "wounds": 0})
    s.investigators[0].cards.append({"card": discovery_id(game, "Iron Pry Bar"), "side": "left", "wounds": 0})
    s.pending = None
    game.rules.engine(s).run()
    assert game.prompt.kind == "action" and any(o.command.kind == "trade" for o in game.prompt.options)
    return game


def test_backing_out_of_a_trade_before_a_gift_costs_no_action():
    game = trading_table()
    left = game.state.actions_left
    do(game, "trade")
    assert game.prompt.kind == "trade"
    back = [o for o in game.prompt.options if o.command.kind == "done"]
    assert back and "not spent" in back[0].label and game.view(0)["prompt"]["options"][-1]["data"] == {"give": False, "refund": True}
    events = do(game, "done")
    assert game.state.actions_left == left
    assert [e.data for e in events if e.type == "trade_ended"] == [{"inv": 0, "given": 0, "refunded": True}]
    assert game.prompt.kind == "action"


def test_a_trade_with_a_gift_costs_its_action():
    game = trading_table()
    left = game.state.actions_left
    do(game, "trade")
    axe = discovery_id(game, "Fire Axe")
    events = do(game, "give", card=axe, to=1)
    assert types(events) == ["traded"] and events[0]["giver"] == "Ada Whitlock" and events[0]["name"] == "Mina Castellane"
    done = [o for o in game.prompt.options if o.command.kind == "done"]
    assert done[0].label == "Done trading"
    events = do(game, "done")
    assert game.state.actions_left == left - 1
    assert [e.data for e in events if e.type == "trade_ended"] == [{"inv": 0, "given": 1, "refunded": False}]
    assert [h["card"] for h in game.state.investigators[1].cards] == [axe]


def test_trade_keys_do_not_move_after_a_gift():
    """Pressing the same key twice cannot give away two cards: a gift's key is not handed to another option."""
    game = trading_table()
    do(game, "trade")

    async def main():
        app = CthulhuApp(PlayOptions(skip_title=True), link_factory=table_of(game))
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await started(pilot)
            bar = screen.query_one("#prompt")
            before = dict(zip([str(o["command"]) for o in bar.options], bar.keys))
            give = next(n for n, o in enumerate(bar.options) if o["command"]["kind"] == "give")
            key = bar.keys[give]
            seen = screen.updates_seen
            await pilot.press(key)
            await wait_for(pilot, lambda: screen.updates_seen > seen)
            assert len(game.state.investigators[1].cards) == 1
            after = dict(zip([str(o["command"]) for o in bar.options], bar.keys))
            assert key not in after.values()  # the gift's key now stands for nothing
            for command, k in after.items():
                if command in before:
                    assert before[command] == k  # the options still there keep their keys
            seen = screen.updates_seen
            await pilot.press(key)  # a second press does nothing
            await pilot.pause(0.1)
            assert screen.updates_seen == seen and len(game.state.investigators[1].cards) == 1
            assert "Ada Whitlock gives Fire Axe to Mina Castellane" in "\n".join(screen.query_one("#log").lines_plain) \
                or "Ada Whitlock gives Iron Pry Bar to Mina Castellane" in "\n".join(screen.query_one("#log").lines_plain)
            await pilot.press("ctrl+q")

    asyncio.run(main())
    assert Command.of("done") in game.legal(game.prompt.seat)
