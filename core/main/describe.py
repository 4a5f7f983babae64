"""Effects in plain English, for choices that must say what they do before they are made.

A card's own text says it in the card's voice; a choice's label is often short
("Take the axe"). `describe` says what the chosen effect will do, from the
effect itself (the closed vocabulary of `content`), so a choice shows its
consequences whatever its label says. Pure functions of the content.
"""

from __future__ import annotations

from collections.abc import Sequence

from .content import MainContent
from .ops import (
    AnyOp,
    BurnOp,
    ChooseOp,
    ClaimOp,
    DiscardCardOp,
    DouseOp,
    FireSpaceOp,
    HealOp,
    IfHoldsOp,
    IfSpaceTokenOp,
    IfTokensOp,
    KeepMythosOp,
    MoveEnemiesOp,
    PlaceElderOp,
    RitualOp,
    RollOp,
    SanityOp,
    SpaceTokenOp,
    StressOp,
    SummonOp,
    TokenOp,
    WoundOp,
)

WHO = {"you": "", "all": "every investigator: ", "here": "everyone in your space: ", "others_here": "everyone else in your space: "}


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 wound', '2 wounds'; uncountable words ('stress', 'sanity') stay as they are."""
    if word in ("stress", "sanity"):
        return f"{n} {word}"
    return f"{n} {word if n == 1 else (many or word + 's')}"


class Describer:
    """Sentences for the effects of one game's content (names of places, enemies, tokens, halves)."""

    def __init__(self, c: MainContent, episode: str, elder_one: str) -> None:
        self.c = c
        self.ep = c.episodes[episode]
        self.eo = c.elder_ones[elder_one]
        self.spaces = {sp.id: sp.name for t in self.ep.map.tiles for sp in t.spaces}

    def place(self, at: str) -> str:
        if at == "here":
            return "your space"
        if at == "start":
            return "the starting space"
        if at in self.ep.map.gates:
            return f"the {at} gate"
        return self.spaces.get(at, at)

    def enemy(self, kind: str) -> str:
        kind = self.eo.minion if kind == "minion" else kind
        ref = self.c.enemies.get(kind)
        return ref.name if ref is not None else kind

    def token(self, token: str, n: int) -> str:
        name = self.c.tokens[token].name if token in self.c.tokens else token
        return plural(n, name)

    def ops(self, ops: Sequence[AnyOp], halves: dict[str, str]) -> list[str]:
        """One phrase per op; `halves` names the card's halves by side (for claims)."""
        return [phrase for op in ops for phrase in [self.op(op, halves)] if phrase]

    def op(self, op: AnyOp, halves: dict[str, str]) -> str:
        if isinstance(op, StressOp):
            return WHO[op.who] + f"take {plural(op.n, 'stress')}"
        if isinstance(op, WoundOp):
            return WHO[op.who] + f"take {plural(op.n, 'wound')}"
        if isinstance(op, SanityOp):
            return WHO[op.who] + f"lose {plural(op.n, 'sanity')}"
        if isinstance(op, HealOp):
            parts = ([plural(op.wounds, "wound")] if op.wounds else []) + ([plural(op.stress, "stress")] if op.stress else [])
            return WHO[op.who] + "heal " + " and ".join(parts) if parts else ""
        if isinstance(op, BurnOp):
            return WHO[op.who] + f"catch fire ({plural(op.n, 'Fire token')})"
        if isinstance(op, FireSpaceOp):
            return f"{plural(op.n, 'Fire token')} onto {self.place(op.at)}"
        if isinstance(op, DouseOp):
            return f"put out {plural(op.n, 'Fire token')} in your space" + (" or next to it" if op.near else "")
        if isinstance(op, SummonOp):
            return f"a {self.enemy(op.enemy)} arrives at {self.place(op.at)}"
        if isinstance(op, MoveEnemiesOp):
            who = {"any": "enemy", "cultist": "Cultist", "monster": "monster"}.get(op.kind) or self.enemy(op.kind)
            which = f"the closest {who}" if op.which == "closest" else f"every {who}"
            return f"{which} moves {plural(op.steps, 'space')} toward you"
        if isinstance(op, TokenOp):
            verb = "gain" if op.n > 0 else "lose"
            return WHO[op.who] + f"{verb} {self.token(op.token, abs(op.n))}"
        if isinstance(op, SpaceTokenOp):
            if op.n > 0:
                return f"{self.token(op.token, op.n)} onto {self.place(op.at)}"
            return f"{self.token(op.token, -op.n)} off {self.place(op.at)}"
        if isinstance(op, RitualOp):
            return f"the ritual is {plural(op.n, 'step')} closer to being disrupted"
        if isinstance(op, PlaceElderOp):
            return f"{self.eo.name} goes to {self.place(op.at)}"
        if isinstance(op, KeepMythosOp):
            return "keep the last Mythos card: it strikes you again each turn"
        if isinstance(op, ClaimOp):
            name = halves.get(op.side)
            return f"take {name}" if name else ""
        if isinstance(op, DiscardCardOp):
            what = "a card" if op.kind == "any" else f"a {op.kind.title()}"
            return f"lose {what} of your choice"
        if isinstance(op, RollOp):
            win = "; ".join(self.ops(op.success, halves)) or "nothing more"
            lose = "; ".join(self.ops(op.fail, halves)) or "nothing more"
            return f"roll: {plural(op.need, 'success', 'successes')} or more, {win}; fewer, {lose}"
        if isinstance(op, ChooseOp):
            return "then choose: " + " or ".join(c.label for c in op.options)
        if isinstance(op, IfHoldsOp):
            what = op.card or (f"a {op.kind.title()}" if op.kind else "a card")
            then = "; ".join(self.ops(op.then, halves)) or "nothing"
            other = "; ".join(self.ops(op.otherwise, halves))
            return f"if you hold {what}, {then}" + (f"; if not, {other}" if other else "")
        if isinstance(op, IfTokensOp):
            then = "; ".join(self.ops(op.then, halves)) or "nothing"
            return WHO[op.who] + f"with {self.token(op.token, op.at_least)} or more, {then}"
        assert isinstance(op, IfSpaceTokenOp)  # the last of the vocabulary
        then = "; ".join(self.ops(op.then, halves)) or "nothing"
        other = "; ".join(self.ops(op.otherwise, halves))
        return f"if {self.place(op.at)} holds {self.token(op.token, op.at_least)} or more, {then}" + (f"; if not, {other}" if other else "")
