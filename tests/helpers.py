"""Test helpers: build main games and rearrange the table between decisions."""

from __future__ import annotations

from cthulhu.core import Command, Game, Setup
from cthulhu.core.main.state import Figure


def new_game(*investigators: str, seed: int = 1, players: int = 1, **choices: str) -> Game:
    """A game whose first turn is the first investigator's (the first such seed from `seed` on)."""
    while True:
        game = Game.new(Setup(seed=seed, investigators=list(investigators), players=players, **choices))
        if game.state.active == 0:
            return game
        seed += 1


def rearrange(game: Game, *, at: dict[int, str] | None = None, figures: list[tuple[str, str]] | None = None,
              fire: dict[str, int] | None = None, levels: dict[int, dict[str, int]] | None = None,
              decks: bool = False) -> None:
    """Set positions, figures and tokens, then ask the pending question again for the new table.

    Unless `decks` is true the Mythos and Discovery decks are emptied, so a test of one rule
    is not disturbed by whatever card would come up next.
    """
    s = game.state
    if not decks:
        s.mythos_deck.clear()
        s.mythos_discard.clear()
        s.discovery_deck.clear()
    for i, space in (at or {}).items():
        s.investigators[i].space = space
    if figures is not None:
        for f in s.figures:
            if f.kind in s.reserve:
                s.reserve[f.kind] += 1
        s.figures.clear()
        for n, (kind, space) in enumerate(figures, 1):
            s.reserve[kind] -= 1
            s.figures.append(Figure(id=f"{kind}-t{n}", kind=kind, space=space))
    if fire is not None:
        total = game.content.main.rules.fire_tokens
        s.fire = {k: v for k, v in sorted(fire.items()) if v}
        s.fire_reserve = total - sum(s.fire.values())
    for i, lv in (levels or {}).items():
        s.investigators[i].levels.update(lv)
    if s.pending is not None:
        s.pending = None
        game.rules.engine(s).run()
    game.rearranged()  # a fresh prompt; a take-back must not rebuild the table as it was before this


def do(game: Game, kind: str, **args) -> list:
    """Apply a command as whoever is deciding; fails loudly if it is not legal."""
    cmd = Command.of(kind, **args)
    prompt = game.prompt
    assert prompt is not None, "nobody is deciding"
    assert cmd in game.legal(prompt.seat), f"{cmd} not in {[str(c) for c in game.legal(prompt.seat)]}"
    return game.apply(prompt.seat, cmd)


def types(events) -> list[str]:
    return [e.type for e in events]
