"""What one (content, episode, Elder One) gives every game of it, worked out once, as plain values.

Content is pydantic models, and reading a field of one costs several plain
attribute reads (a compiled core cannot read it natively either). The engine
reads the same few at nearly every step: names, dice faces, enemies' numbers,
the cards. They are copied here once per episode and Elder One, and every game
of them shares this object (`rules._prepared`). Nothing in it is handed out in
a view, and nothing in it changes once built, except `memo`: derived values
(options' labels, modifier sums) the engine fills in as it meets them.
"""

from __future__ import annotations

from typing import Any

from .content import ElderOne, Episode, Half, MainContent, Mythos, Rules
from .state import ELDER


def face_symbols(face: str) -> tuple[int, int, int]:
    """A die face's (successes, tentacles, elder signs): a face is its symbols joined by '+'."""
    symbols = face.split("+")
    return symbols.count("success"), symbols.count("tentacle"), symbols.count("elder")


class Prepared:
    """Plain copies of the content one episode and Elder One use, and a memo for what depends on them alone."""

    __slots__ = (
        "content", "episode", "elder", "rules", "adj", "memo", "space_names", "standard", "bonus", "standard_symbols",
        "bonus_symbols", "investigator_names",
        "enemy_names", "enemy_health", "mythos", "halves",
    )

    def __init__(self, c: MainContent, episode: str, elder_one: str) -> None:
        self.content = c
        self.episode: Episode = c.episodes[episode]
        self.elder: ElderOne = c.elder_ones[elder_one]
        self.rules: Rules = c.rules
        self.adj: dict[str, list[str]] = c.adjacency(episode)
        self.memo: dict[Any, Any] = {}
        self.space_names: dict[str, str] = {sp.id: sp.name for t in self.episode.map.tiles for sp in t.spaces}
        # The two dice: a die that is not "standard" is a bonus die (`Engine.faces`).
        self.standard: list[str] = list(c.dice.standard)
        self.bonus: list[str] = list(c.dice.bonus)
        self.standard_symbols = [face_symbols(f) for f in self.standard]
        self.bonus_symbols = [face_symbols(f) for f in self.bonus]
        self.investigator_names: dict[str, str] = {iid: ref.name for iid, ref in c.investigators.items()}
        # Enemy kinds, the Elder One's figure included (its health is its Stage's: see `Engine.enemy_health`).
        self.enemy_names: dict[str, str] = {kind: ref.name for kind, ref in c.enemies.items()}
        self.enemy_names[ELDER] = self.elder.name
        self.enemy_health: dict[str, int] = {kind: ref.health for kind, ref in c.enemies.items()}
        self.mythos: dict[str, Mythos] = {f"eo:{n}": m for n, m in enumerate(self.elder.mythos)}
        self.mythos.update({f"ep:{n}": m for n, m in enumerate(self.episode.mythos)})
        # (card id, side) -> the half held; a side a card lacks is absent.
        self.halves: dict[tuple[str, str], Half] = {}
        for n, card in enumerate(self.episode.discovery):
            for side, half in (("left", card.left), ("right", card.right)):
                if half is not None:
                    self.halves[(str(n), side)] = half
