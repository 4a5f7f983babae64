"""One conformance run for every registered mode (main, Shamblers, and the tests' toy mode).

Like OpenSpiel's `random_sim_test`: seeded bot playouts, and at every step the
façade's promises are checked the same way for every mode. A mode added by
files only (as the toy is) is checked here without a line of this file changing.
"""

from __future__ import annotations

import pytest

from support import net_toy  # noqa: F401  (registers the toy mode)
from cthulhu.content import builtin
from cthulhu.core import Command, Game, Rejected, Setup, modes
from cthulhu.core.bots import make_bot
from cthulhu.core.canon import canonical_bytes

GAMES = {"main": 20, "shamblers": 30, "toy": 20}  # x 3 table sizes each: a few hundred playouts in all
PROBE_EVERY = 7  # the costlier checks (every seat's view, clone, secrets, rejections) run on every 7th step


def playouts(mode: str):
    for n in range(GAMES.get(mode, 10)):
        for players in (1, 2, 3):
            yield Setup(mode=mode, seed=1000 * players + n, players=players), ("random", "heuristic")[n % 2]


def check_step(mode: modes.Mode, game: Game, seats: list[int | None]) -> None:
    """Views of every seat have the declared shape; the prompt is declared and non-empty until the end."""
    for seat in seats:
        view = game.view(seat)
        assert mode.check_view(view) == view
        assert view["step"] == game.step and view["outcome"] == game.outcome
    prompt = game.prompt
    if game.outcome is None:
        assert prompt is not None and prompt.options, f"step {game.step}: a running game must wait for someone"
        assert game.legal(prompt.seat) == [o.command for o in prompt.options]
        mode.check_prompt(prompt.wire())
    else:
        assert game.view(None)["prompt"] is None
        assert all(not game.legal(s) for s in seats if s is not None)


def check_clone(game: Game, content, nxt: Command | None, seat: int | None) -> None:
    """The canonical form round-trips, and a clone made from it plays on exactly like the original."""
    data = game.canonical()
    clone = Game.from_canonical(data, content)
    assert canonical_bytes(clone.canonical()) == canonical_bytes(data)
    assert clone.state_hash() == game.state_hash()
    for s in (None, 0):
        assert without_undo(clone.view(s)) == without_undo(game.view(s))
    # How far a seat may take back comes from the history, which a snapshot does not carry:
    # a restored game starts a fresh one.
    assert all(clone.undo_horizon(s) == 0 for s in range(game.setup.players))
    if nxt is not None and seat is not None:
        probe = Game.from_canonical(data, content)
        a = probe.apply(seat, nxt)
        b = Game.from_canonical(data, content).apply(seat, nxt)
        assert [e.wire() for e in a] == [e.wire() for e in b]


def without_undo(view: dict) -> dict:
    if view.get("prompt"):
        view["prompt"].pop("undo")
    return view


def check_undo(game: Game, log: list[tuple[int, Command, str]]) -> None:
    """The deciding seat takes back as far as it may (never past a reveal), and the same commands
    replayed bring back exactly the same state, view and horizon."""
    prompt = game.prompt
    if prompt is None:
        return
    far = game.undo_horizon(prompt.seat)
    assert game.view(None)["prompt"]["undo"] == far
    if not far:
        return
    before, view = game.state_hash(), game.view(prompt.seat)
    game.undo(prompt.seat, far)
    assert game.undo_horizon(prompt.seat) == 0
    for seat, command, _ in log[len(log) - far :]:
        game.apply(seat, command)
    assert game.state_hash() == before and game.view(prompt.seat) == view


def check_secrets(mode: modes.Mode, game: Game, content, seats: list[int | None]) -> None:
    """No view changes when everything secret (deck orders, the bag, the RNG) is scrambled."""
    assert mode.scramble is not None, f"mode {mode.name!r} must declare what is secret (Mode.scramble)"
    other = Game.from_canonical(game.canonical(), content)
    mode.scramble(other.state)
    assert other.state_hash() != game.state_hash(), "scramble must change the secret part of the state"
    for seat in seats:
        assert without_undo(other.view(seat)) == without_undo(game.view(seat)), f"seat {seat}'s view shows a secret"


def check_rejections(game: Game) -> None:
    """Every kind of bad command is refused with a typed error and changes nothing."""
    before, view = game.state_hash(), game.view(None)
    prompt = game.prompt
    bad: list[tuple[int, Command, int | None]] = [(0, Command.of("no_such_command"), None)]
    if prompt is not None:
        legal = prompt.options[0].command
        bad.append((prompt.seat, legal, prompt.version + 1))  # a stale answer
        bad.append((prompt.seat, Command.of(legal.kind, no_such_argument=1), None))
        if game.setup.players > 1:
            bad.append(((prompt.seat + 1) % game.setup.players, legal, None))  # not your decision
    for seat, command, version in bad:
        with pytest.raises(Rejected):
            game.apply(seat, command, version)
        assert game.state_hash() == before
        assert game.view(None) == view


@pytest.mark.parametrize("name", modes.names())
def test_every_mode_conforms(name):
    mode = modes.get(name)
    content = builtin()
    played = 0
    for setup, bot_kind in playouts(name):
        game = Game.new(setup, content)
        seats: list[int | None] = [None, *range(setup.players)]
        for event in game.start_events:
            mode.check_event(event.wire())
        bots = {}
        log: list[tuple[int, Command, str]] = []
        while True:
            probe = game.step % PROBE_EVERY == 0
            prompt = game.prompt
            check_step(mode, game, seats if probe or prompt is None else [None, prompt.seat])
            if prompt is None:
                break
            bot = bots.get(prompt.seat) or bots.setdefault(prompt.seat, make_bot(bot_kind, name, setup.seed + prompt.seat))
            command = bot.choose(game, prompt.seat)
            if probe:
                check_clone(game, content, command, prompt.seat)
                check_secrets(mode, game, content, seats)
                check_rejections(game)
                check_undo(game, log)
            for event in game.apply(prompt.seat, command):
                mode.check_event(event.wire())
            log.append((prompt.seat, command, game.state_hash() if probe else ""))
            assert game.step < 5000, "a game must end"
        check_clone(game, content, None, None)
        check_rejections(game)
        # Replay: the setup and the command log rebuild every state exactly.
        replay = Game.new(setup, content)
        for seat, command, state_hash in log:
            replay.apply(seat, command)
            assert not state_hash or replay.state_hash() == state_hash
        assert replay.state_hash() == game.state_hash()
        played += 1
    assert played == 3 * GAMES.get(name, 10)


def test_the_toy_mode_is_a_third_mode_added_by_files_only():
    """The registry knows it, and the same façade, bots and simulator play it."""
    from cthulhu.core.sim import play

    assert modes.names()[:2] == ["main", "shamblers"] and "toy" in modes.names()
    assert make_bot("heuristic", "toy", 1).__class__ is net_toy.ToyHeuristic
    played = play(Setup(mode="toy", seed=5, players=2), bot="heuristic")
    assert played.outcome in ("won", "lost") and played.commands > 0


def test_an_unknown_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown mode 'chess'"):
        Setup(mode="chess")
    with pytest.raises(ValueError, match="no 'genius' bot"):
        make_bot("genius", "main", 1)
