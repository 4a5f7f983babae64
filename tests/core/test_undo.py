"""Take-backs: the deciding seat may undo its own decisions back to the last reveal, never further.

Every mode goes through the same façade (`Game.undo_horizon` / `Game.undo`):
the main game, Shamblers and the tests' toy mode.
"""

from __future__ import annotations

from collections import Counter

import pytest

from cthulhu.core import CannotUndo, Command, Game, Rejected, Setup, StalePrompt, script_dice
from cthulhu.core.bots import RandomBot, make_bot
from cthulhu.core.rng import Rng
from cthulhu.core.undo import REBASE

from support.helpers import do, new_game, rearrange
from support.net_toy import toy_game


def main_game(seed: int) -> Game:
    return Game.new(Setup(seed=seed))


def shamblers_game(seed: int) -> Game:
    return Game.new(Setup(mode="shamblers", seed=seed, players=2))


def solo_toy(seed: int) -> Game:
    return toy_game(seed, players=1)


MODES = {"main": main_game, "shamblers": shamblers_game, "toy": solo_toy}


def bot_for(game: Game, seed: int):
    if game.setup.mode == "toy":
        return RandomBot(seed)
    return make_bot("heuristic", game.setup.mode, seed)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_undo_as_far_as_allowed_at_random_moments_then_replay_gives_identical_hashes(mode):
    undone = 0
    for seed in range(6):
        game = MODES[mode](seed)
        bot = bot_for(game, seed)
        dice = Rng(seed + 1000)  # when to undo: our own stream, not the game's
        hashes = [game.state_hash()]
        log: list[tuple[int, Command]] = []
        while game.outcome is None and game.step < 250:
            seat = game.prompt.seat
            far = game.undo_horizon(seat)
            if far and dice.below("when", 3) == 0:
                at = game.step
                view_before = game.view(seat)
                game.undo(seat, far)
                undone += far
                assert game.step == at - far
                assert game.state_hash() == hashes[at - far]
                assert game.undo_horizon(seat) == 0
                with pytest.raises(CannotUndo):
                    game.undo(seat)
                for s, cmd in log[at - far : at]:
                    game.apply(s, cmd)
                assert game.state_hash() == hashes[at]
                assert game.view(seat) == view_before
                assert game.undo_horizon(seat) == far
            cmd = bot.choose(game, seat)
            game.apply(seat, cmd)
            log.append((seat, cmd))
            hashes.append(game.state_hash())
    assert undone > 10, "the games offered almost nothing to take back"


def _reveal_kinds(before: tuple, after: tuple) -> set[str]:
    (counters0, secret0), (counters1, secret1) = before, after
    kinds = {f"chance:{k}" for k, v in counters1.items() if v != counters0.get(k, 0)}
    for n, (a, b) in enumerate(zip(secret0, secret1)):
        if a != b:
            kinds.add(f"zone{n}:" + ("drawn" if len(b) < len(a) else "refilled" if len(b) > len(a) else "reordered"))
    return kinds


def _look(game: Game) -> tuple:
    secret = game.rules.secret(game.state)
    if game.setup.mode == "toy":
        secret = (secret,)
    return dict(game.state.rng.counters), secret


# What each mode can reveal: dice, hidden shuffles (main: the Mythos reshuffle), the Wheel,
# cards drawn from the Mythos (zone0) and Discovery (zone1) decks, the bag (zone0) and the
# Shambler Track (zone1), the toy's deck.
EXPECTED = {
    "main": {"chance:dice", "chance:hidden", "zone0:drawn", "zone0:refilled", "zone1:drawn"},
    "shamblers": {"chance:dice", "chance:wheel", "zone0:drawn", "zone1:drawn"},
    "toy": {"chance:dice", "zone0:drawn"},
}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_no_undo_reaches_back_across_any_kind_of_reveal(mode):
    """After every revealing step, nothing can be taken back, by anyone, however far asked."""
    seen: Counter[str] = Counter()
    for seed in range(8):
        game = MODES[mode](seed)
        bot = bot_for(game, seed)
        while game.outcome is None and game.step < 400:
            seat = game.prompt.seat
            before = _look(game)
            game.apply(seat, bot.choose(game, seat))
            kinds = _reveal_kinds(before, _look(game))
            if not kinds or game.outcome is not None:
                continue
            seen.update(kinds)
            state = game.state_hash()
            for s in range(game.setup.players):
                assert game.undo_horizon(s) == 0
                for count in (1, 2, 5):
                    with pytest.raises(CannotUndo):
                        game.undo(s, count)
            assert game.state_hash() == state
            # Whatever the seat does next without a reveal can be undone, but only back to here.
            prompt = game.prompt
            follow = next((o.command for o in prompt.options), None)
            game.apply(prompt.seat, follow)
            if not _reveal_kinds(_look(game), _look(game)) and game.outcome is None and game.prompt.seat == prompt.seat:
                far = game.undo_horizon(prompt.seat)
                if far:
                    with pytest.raises(CannotUndo):
                        game.undo(prompt.seat, far + 1)
                    game.undo(prompt.seat, far)
                    assert game.state_hash() == state
                    game.apply(prompt.seat, follow)
    assert EXPECTED[mode] <= set(seen), f"never saw {EXPECTED[mode] - set(seen)}"


def test_a_scripted_roll_is_a_reveal_and_the_same_faces_come_back_after_an_undo():
    game = new_game("ada_whitlock", "osric_vane")
    rearrange(game, at={0: "yard_gate", 1: "yard_gate"}, figures=[("cultist", "yard_gate")])
    attack = next(c for c in game.legal(0) if c.kind == "attack")
    script_dice(game, "success", "elder", "tentacle")
    do(game, "run")  # taken back below: nothing was revealed yet
    assert game.undo_horizon(0) == 1
    game.undo(0)
    assert game.state.rng.scripted == ["success", "elder", "tentacle"]  # the queue is untouched
    events = do(game, attack.kind, **dict(attack.args))
    assert any(e.type == "dice_rolled" for e in events) and game.state.rng.scripted == []
    assert game.undo_horizon(0) == 0
    with pytest.raises(CannotUndo, match="revealed"):
        game.undo(0)


def test_run_before_the_first_step_and_trade_before_the_first_card_can_be_taken_back():
    game = new_game("ada_whitlock", "osric_vane")
    s = game.state
    jory = "0"
    s.investigators[0].cards[:] = [{"card": jory, "side": "left", "wounds": 0}]
    rearrange(game, at={0: "yard_gate", 1: "yard_gate"}, figures=[])
    start = game.state_hash()
    actions = [o.label for o in game.prompt.options]
    do(game, "run")
    assert game.prompt.kind == "run"
    (event,) = game.undo(0)
    assert event.type == "undone" and event["taken"] == ["Run"] and event["step"] == 0
    assert game.state_hash() == start and [o.label for o in game.prompt.options] == actions
    do(game, "trade")
    do(game, "give", card=jory, to=1)
    assert game.state.investigators[1].cards and game.undo_horizon(0) == 2  # undo made a new state
    game.undo(0, 2)
    assert game.state_hash() == start
    assert game.state.investigators[0].cards == [{"card": jory, "side": "left", "wounds": 0}]


def test_a_rejected_undo_names_why_and_changes_nothing():
    game = main_game(3)
    seat = game.prompt.seat
    state = game.state_hash()
    with pytest.raises(CannotUndo, match="nothing has been decided"):
        game.undo(seat)
    run = Command.of("run")
    game.apply(seat, run)
    with pytest.raises(StalePrompt):
        game.undo(seat, version=0)
    with pytest.raises(CannotUndo, match="at least one"):
        game.undo(seat, 0)
    with pytest.raises(CannotUndo, match="only 1"):
        game.undo(seat, 2)
    with pytest.raises(Rejected):
        game.undo(seat + 1)
    game.undo(seat, version=1)
    assert game.state_hash() == state


def test_another_seats_decision_is_a_line_nobody_crosses():
    game = toy_game(5, players=2)  # seats take turns; playing a card reveals nothing
    while not game.state.hands[game.prompt.seat]:
        game.apply(game.prompt.seat, Command.of("draw"))
    first = game.prompt.seat
    card = game.state.hands[first][0]
    game.apply(first, Command.of("play", card=card))
    other = game.prompt.seat
    assert other != first
    assert game.undo_horizon(first) == 0  # it is not that seat's decision any more
    with pytest.raises(CannotUndo, match="another seat"):
        game.undo(first)
    assert game.undo_horizon(other) == 0  # and not that seat's decision to take back
    with pytest.raises(CannotUndo, match=f"seat {first + 1}"):
        game.undo(other)


def test_the_view_tells_the_deciding_seat_how_far_it_may_go():
    game = main_game(3)
    seat = game.prompt.seat
    assert game.view(seat)["prompt"]["undo"] == 0
    game.apply(seat, Command.of("run"))
    assert game.view(seat)["prompt"]["undo"] == 1
    assert game.view(None)["prompt"]["undo"] == 1  # public: nothing secret in how far


def test_an_undo_after_the_history_moved_its_snapshot_past_the_setup_is_exact():
    """Long games keep only the decisions since the history's latest snapshot, and replay from it."""
    game = main_game(1)
    bot = bot_for(game, 1)
    hashes = [game.state_hash()]
    while game.outcome is None:
        seat = game.prompt.seat
        if game.history.base_step >= REBASE and game.undo_horizon(seat):
            break
        game.apply(seat, bot.choose(game, seat))
        hashes.append(game.state_hash())
    assert game.outcome is None, "the game ended before the history took a second snapshot"
    assert len(game.history.entries) < game.step  # the setup's decisions are no longer kept
    far = game.undo_horizon(seat)
    game.undo(seat, far)
    assert game.state_hash() == hashes[game.step]


def test_a_game_restored_from_a_snapshot_can_undo_what_it_decides_after():
    game = main_game(4)
    data = game.canonical()
    restored = Game.from_canonical(data, game.content)
    seat = restored.prompt.seat
    assert restored.undo_horizon(seat) == 0
    restored.apply(seat, Command.of("run"))
    restored.undo(seat)
    assert restored.state_hash() == game.state_hash()
