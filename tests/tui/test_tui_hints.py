"""First-game hints belong to a decision this terminal makes, and go with it (issue 22, item 11):
nobody is hinted at about someone else's decision (a joiner waiting for the table or for their
turn), and a hint explains the decision at hand, not an earlier event of the same update."""

from __future__ import annotations

import asyncio

from support.tui_drive import SEED, started, table_of, wait_for

from cthulhu.core import Command, Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.hints import Hints
from cthulhu.tui.modes.main.help import HINTS
from cthulhu.table import TableSpec, open_table
from cthulhu.table import ThreadedHost
from cthulhu.tui.netlink import JoinAs, NetLink
from cthulhu.tui.options import PlayOptions

MYTHOS = HINTS["event:mythos_drawn"]
CHOOSE = HINTS["choose"]
DISCOVERY = HINTS["event:discovery_drawn"]


def _before_mythos_then_discovery() -> tuple[Game, Command]:
    """Seed 7, the heuristic bot's game: its 11th command ends the actions, the Mythos card is
    drawn, then a Discovery card whose choice is the next decision (all in one update)."""
    game = Game.new(Setup(seed=7))
    bot = make_bot("heuristic", "main", 7)
    for _ in range(10):
        seat = game.prompt.seat
        game.apply(seat, bot.choose(game, seat))
    return game, bot.choose(game, game.prompt.seat)


def test_the_hint_with_a_discovery_choice_is_about_that_choice_not_the_mythos_card_before_it():
    game, command = _before_mythos_then_discovery()
    option = next(n for n, o in enumerate(game.prompt.options) if o.command == command)

    async def main():
        app = CthulhuApp(PlayOptions(skip_title=True), link_factory=table_of(game))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await started(pilot)
            bar = screen.query_one("#prompt")
            seen = screen.updates_seen
            await pilot.press(bar.keys[option])
            await wait_for(pilot, lambda: screen.updates_seen > seen)
            assert screen.view["prompt"]["kind"] == "choose"
            shown = bar.text
            await pilot.press("ctrl+q")
            return shown

    shown = asyncio.run(main())
    assert f"Hint: {CHOOSE}" in shown and MYTHOS not in shown, shown


def test_once_choices_are_known_the_discovery_gets_the_hint_never_the_earlier_mythos_card():
    game, command = _before_mythos_then_discovery()
    seat = game.prompt.seat
    events = [e.type for e in game.apply(seat, command)]
    assert events.index("mythos_drawn") < events.index("discovery_drawn") and game.prompt.kind == "choose"
    hints = Hints()
    hints.seen.add((seat, "choose"))  # this seat has had the choice's own hint
    view = game.view(seat)
    assert hints.update(view, events, deciding=True) is not None and hints.text == f"Hint: {DISCOVERY}"
    assert Hints().update(view, events, deciding=False) is None  # someone else's choice: no hint at all


async def _play_seat_0_until_seat_1_acts(ann: NetLink) -> None:
    """Ann ends her actions and takes the first option of every other decision of hers."""
    sent = None
    for _ in range(400):
        prompt = ann._view().get("prompt")
        if prompt is not None and prompt["seat"] == 1 and prompt["kind"] == "action":
            return
        if prompt is not None and prompt["seat"] == 0 and prompt["version"] != sent:
            sent = prompt["version"]
            pick = next((o for o in prompt["options"] if o["command"]["kind"] == "end_actions"), prompt["options"][0])
            await ann.send(0, pick["command"], prompt["version"])
        await asyncio.sleep(0.01)
    raise AssertionError("Ann's turn never ended")


def test_a_joiner_gets_no_hint_while_waiting_for_the_table_or_for_another_players_decision():
    """Bob joins seat 2 of an empty table: no hint while the table fills, none while Ann takes her
    turn, and "Your turn" comes with his own first action (it was used up on Ann's turn before)."""

    async def main():
        host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=SEED, players=2)), code="owl")))
        port = await host.start()
        ann = NetLink(JoinAs(host="127.0.0.1", port=port, name="Ann", code="owl", seats=(0,)))
        try:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", port), join_seat=1, code="owl", name="Bob"))
            async with app.run_test(size=(80, 24)) as pilot:
                screen = await started(pilot)
                bar = screen.query_one("#prompt")
                await wait_for(pilot, lambda: bool(screen.link_status))  # waiting for Ann
                assert "Hint:" not in bar.text
                await ann.open()
                await wait_for(pilot, lambda: not screen.link_status and screen.view["prompt"]["seat"] == 0)
                await pilot.pause(0.1)
                assert "Hint:" not in bar.text, bar.text  # Ann decides, not Bob
                assert screen.hints.seen == set()
                await _play_seat_0_until_seat_1_acts(ann)
                await wait_for(pilot, lambda: screen.view["prompt"]["seat"] == 1 and bar.options)
                assert "Hint: Your turn: 3 actions" in bar.text, bar.text
                await pilot.press("ctrl+q")
        finally:
            await ann.close()
            await host.stop()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_watcher_gets_no_hint_at_anyones_turn():
    """Someone watching (by choice, or finding every seat taken) decides nothing, so is hinted at about
    nothing: not at Ann's first action, nor at Bob's, nor at the Mythos card or Discovery between."""

    async def main(watch: bool):
        host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=SEED, players=2)), code="owl")))
        port = await host.start()
        ann = NetLink(JoinAs(host="127.0.0.1", port=port, name="Ann", code="owl", seats=(0,)))
        bob = NetLink(JoinAs(host="127.0.0.1", port=port, name="Bob", code="owl", seats=(1,)))
        await ann.open()
        await bob.open()
        try:
            app = CthulhuApp(PlayOptions(join=("127.0.0.1", port), code="owl", name="Cy", watch=watch))
            async with app.run_test(size=(80, 24)) as pilot:
                screen = await started(pilot)
                bar = screen.query_one("#prompt")
                assert screen.link.local_seats == frozenset() and bar.text.startswith("Waiting for Ann"), bar.text
                shown = []
                step = -1
                for _ in range(400):  # Ann plays her turn (end actions, first option otherwise) until Bob acts
                    prompt = ann._view()["prompt"]
                    if prompt["seat"] == 1 and prompt["kind"] == "action":
                        break
                    if ann._view()["step"] != step:
                        step = ann._view()["step"]
                        await wait_for(pilot, lambda: screen.view.get("step") == step)
                        shown.append(bar.text)
                        pick = next((o for o in prompt["options"] if o["command"]["kind"] == "end_actions"), prompt["options"][0])
                        await ann.send(prompt["seat"], pick["command"], prompt["version"])
                    await asyncio.sleep(0.01)
                await wait_for(pilot, lambda: screen.view["prompt"]["seat"] == 1)
                shown.append(bar.text)
                await pilot.press("ctrl+q")
                return shown
        finally:
            await ann.close()
            await bob.close()
            await host.stop()

    for watch in (True, False):
        shown = asyncio.run(asyncio.wait_for(main(watch), 60))
        assert len(shown) > 2 and shown[-1].startswith("Waiting for Bob"), shown
        assert not any("Hint:" in text or "Your turn" in text for text in shown), shown
