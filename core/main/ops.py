"""Effects as data: the closed vocabulary of what a card, a Stage, an episode's action or an
insanity may do, one strict model per operation, discriminated on `op`; no content file can run
code. Also the strict base every content model of the main game shares (`core.main.content`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Who = Literal["you", "all", "here", "others_here"]
# A place: your space, a gate by color, the starting space, or a space id (episodes only).
Where = str


class Op(Strict):
    """Base of every effect operation; `op` is the discriminator."""


class StressOp(Op):
    op: Literal["stress"]
    n: int = Field(ge=1, le=10)
    who: Who = "you"


class WoundOp(Op):
    op: Literal["wound"]
    n: int = Field(ge=1, le=10)
    who: Who = "you"


class SanityOp(Op):
    op: Literal["sanity"]
    n: int = Field(ge=1, le=10)
    who: Who = "you"


class HealOp(Op):
    op: Literal["heal"]
    wounds: int = Field(default=0, ge=0, le=10)
    stress: int = Field(default=0, ge=0, le=10)
    who: Who = "you"


class BurnOp(Op):
    op: Literal["burn"]  # Fire tokens onto investigator boards
    n: int = Field(ge=1, le=8)
    who: Who = "you"


class FireSpaceOp(Op):
    op: Literal["fire_space"]  # Fire tokens onto a space
    n: int = Field(ge=1, le=8)
    at: Where = "here"


class DouseOp(Op):
    op: Literal["douse"]  # remove Fire tokens from your space or a neighbouring one (you choose)
    n: int = Field(ge=1, le=8)
    near: bool = False


class SummonOp(Op):
    op: Literal["summon"]
    enemy: str  # an enemy id, or "minion" for the Elder One's minion
    at: Where


class MoveEnemiesOp(Op):
    op: Literal["move_enemies"]  # towards the active investigator, by a shortest path
    which: Literal["closest", "all"] = "closest"
    kind: str = "any"  # "any", "cultist", "monster", or an enemy id
    steps: int = Field(default=1, ge=1, le=6)


class TokenOp(Op):
    op: Literal["token"]  # gain (or lose, when negative) tokens of a kind
    token: str
    n: int = Field(ge=-10, le=10)
    who: Who = "you"


class SpaceTokenOp(Op):
    op: Literal["space_token"]
    token: str
    n: int = Field(ge=-10, le=10)
    at: Where = "here"


class RitualOp(Op):
    op: Literal["ritual"]  # progress towards disrupting the ritual
    n: int = Field(default=1, ge=1, le=10)


class PlaceElderOp(Op):
    op: Literal["place_elder"]  # put (or move) the Elder One figure
    at: Where


class KeepMythosOp(Op):
    op: Literal["keep_mythos"]  # keep the latest discarded Mythos card; its effect returns each of your turns


class ClaimOp(Op):
    op: Literal["claim"]
    side: Literal["left", "right"]


class DiscardCardOp(Op):
    op: Literal["discard_card"]  # lose a held card of this kind (you choose which)
    kind: Literal["item", "companion", "condition", "any"] = "any"


class RollOp(Op):
    op: Literal["roll"]  # make a roll; `need` successes or more succeeds
    need: int = Field(ge=1, le=10)
    success: list["AnyOp"] = Field(default_factory=list)
    fail: list["AnyOp"] = Field(default_factory=list)


class Choice(Strict):
    label: str = Field(min_length=1, max_length=90)
    ops: list["AnyOp"] = Field(default_factory=list)


class ChooseOp(Op):
    op: Literal["choose"]
    options: list[Choice] = Field(min_length=2, max_length=6)


class IfHoldsOp(Op):
    op: Literal["if_holds"]  # a card by name, or any card of a kind
    card: str | None = None
    kind: Literal["item", "companion", "condition"] | None = None
    then: list["AnyOp"] = Field(default_factory=list)
    otherwise: list["AnyOp"] = Field(default_factory=list)


class IfSpaceTokenOp(Op):
    op: Literal["if_space_token"]  # a token of this kind (at least `at_least`) on a place
    token: str
    at_least: int = Field(default=1, ge=1, le=10)
    at: Where = "here"
    then: list["AnyOp"] = Field(default_factory=list)
    otherwise: list["AnyOp"] = Field(default_factory=list)


class IfTokensOp(Op):
    op: Literal["if_tokens"]  # every investigator in `who` holding at least `at_least` tokens
    token: str
    at_least: int = Field(ge=1, le=10)
    who: Who = "you"
    then: list["AnyOp"] = Field(default_factory=list)


AnyOp = Annotated[
    StressOp | WoundOp | SanityOp | HealOp | BurnOp | FireSpaceOp | DouseOp | SummonOp | MoveEnemiesOp
    | TokenOp | SpaceTokenOp | RitualOp | PlaceElderOp | KeepMythosOp | ClaimOp | DiscardCardOp
    | RollOp | ChooseOp | IfHoldsOp | IfTokensOp | IfSpaceTokenOp,
    Field(discriminator="op"),
]
for _m in (RollOp, Choice, ChooseOp, IfHoldsOp, IfTokensOp, IfSpaceTokenOp):
    _m.model_rebuild()


def walk_ops(ops: Sequence[Op], path: str) -> Iterator[tuple[str, Op]]:
    """Yield (path, op) for every op, nested ones included."""
    for n, op in enumerate(ops):
        here = f"{path}.{n}"
        yield here, op
        for attr in ("success", "fail", "then", "otherwise"):
            if hasattr(op, attr):
                yield from walk_ops(getattr(op, attr), f"{here}.{attr}")
        if isinstance(op, ChooseOp):
            for m, choice in enumerate(op.options):
                yield from walk_ops(choice.ops, f"{here}.options.{m}.ops")
