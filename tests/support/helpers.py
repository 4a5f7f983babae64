"""Main games built for a test: a chosen first investigator, the table rearranged between decisions,
the cards and figures a rule needs found by name."""

from __future__ import annotations

from cthulhu.core import Command, Game, Setup, script_dice
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


def setup_table(game, **kw):
    """An empty, quiet table with both investigators at the start; tokens and decks as given."""
    s = game.state
    rearrange(game, at={i: "yard_gate" for i in range(len(s.investigators))}, figures=kw.pop("figures", []), fire=kw.pop("fire", {}), **kw)
    for inv in s.investigators:
        inv.insanity = None



def mythos_id(game, name: str) -> str:
    s = game.state
    c = game.content.main
    for n, card in enumerate(c.elder_ones[s.elder_one].mythos):
        if card.name == name:
            return f"eo:{n}"
    for n, card in enumerate(c.episodes[s.episode].mythos):
        if card.name == name:
            return f"ep:{n}"
    raise KeyError(name)



def discovery_id(game, half_name: str) -> str:
    for n, card in enumerate(game.content.main.episodes[game.state.episode].discovery):
        if any(h is not None and h.name == half_name for h in (card.left, card.right)):
            return str(n)
    raise KeyError(half_name)



def hastur_summoned(game, stage: int = 1, space: str = "yard_gate", disrupted: bool = True) -> Figure:
    s = game.state
    s.summoned = True
    s.stage = stage
    s.disrupted = disrupted
    s.track = 5
    f = Figure(id="elder_one", kind="elder_one", space=space)
    s.figures.append(f)
    return f



def filler(game) -> str:
    """A Mythos card with no symbol and no summons that only spreads Fire or stress: a quiet draw."""
    s = game.state
    for n, card in enumerate(game.content.main.episodes[s.episode].mythos):
        if not card.summoning and not card.summons and all(op.op in ("fire_space", "stress") for op in card.effect):
            return f"ep:{n}"
    raise LookupError("no quiet Mythos card")



def symbols(game, n: int) -> list[str]:
    c = game.content.main
    eo = c.elder_ones[game.state.elder_one]
    with_symbol = [f"eo:{k}" for k, card in enumerate(eo.mythos) if card.summoning]
    without = [f"eo:{k}" for k, card in enumerate(eo.mythos) if not card.summoning]
    return with_symbol[:n] + without[:1]



def burning(who: str, *faces: str, levels: dict[str, int] | None = None) -> tuple[Game, int]:
    """A game whose active investigator `who` burns with one Fire token per face, at a reroll prompt
    of the Fire roll at the end of the actions, the dice showing `faces`."""
    game = new_game(who, "osric_vane")
    s = game.state
    a = s.active
    rearrange(game, at={a: "yard_gate"}, figures=[], fire={}, levels={a: levels or {}})
    s.investigators[a].fire = len(faces)
    s.fire_reserve -= len(faces)
    script_dice(game, *faces)
    do(game, "end_actions")
    assert game.prompt.kind == "reroll" and s.last_roll["purpose"] == "fire"
    return game, a
