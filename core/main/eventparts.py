"""What the main game's events share: why something happened (`Cause`, named by every harm
and change that has one) and a Discovery card's half as it is told (`HalfInfo`, prompts show it too).
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

CauseKind = Literal[
    "mythos", "discovery", "stage", "episode", "action", "insanity",  # an effect, by where its text is printed
    "enemy", "fire", "reroll", "tentacles", "summoning",  # the rules themselves
]


class Cause(TypedDict):
    """Why something happened, for people: the kind of source and its name.

    `tentacles` names the roll's purpose ("attack", "defend", "check", "fire");
    `summoning` names the gate color of a Mythos card's summon line; `fire` and
    `reroll` have an empty name.
    """

    kind: CauseKind
    name: str


class HalfInfo(TypedDict):
    name: str
    kind: Literal["item", "companion", "condition"]
    text: str
