"""What a finished game's save proves, once every step of it has been replayed and checked.

The club's records (`server.records`) and the challenge's board (`server.challenge`) take a game
only as its save tells it and the rules agree: the log replayed from the set-up through
`Game.apply` (an illegal command is refused, not obeyed), every step's hash compared, the dice
commitment opened with the seed. What they rank by (the outcome, the turns, the rerolls) is read
from that replay, never from the save's header, which anyone can edit and re-checksum.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cthulhu.core import modes
from cthulhu.savegame import SaveError, SaveFile, check_dice, steps_told
from cthulhu.savegame.replay import check_content

REROLLED = "die_rerolled"  # the event a reroll makes (the main game's; Shamblers has no rerolls)


class NotFinished(SaveError):
    """The save replays, but its game is not over at its last step."""

    problem = "not_finished"


class Uncommitted(SaveError):
    """The save has no dice commitment (format 1): nothing shows its seed was fixed in advance."""

    problem = "dice"


@dataclass(frozen=True, slots=True)
class Verified:
    """A finished game as its replay tells it. `team`: the seats' names as the save has them (text
    from players: cleaned wherever printed); `bots`: a seat was played by a bot (as the save says)."""

    outcome: str
    turns: int
    rerolls: int
    steps: int
    team: tuple[str, ...]
    bots: bool


def verified(save: SaveFile, content: Any = None, *, allow_other_content: bool = False) -> Verified:
    """Replay `save` from its set-up, every hash checked, and open its dice commitment; a
    `SaveError` naming the first thing wrong (`NotFinished` for a game that is not over).
    `allow_other_content`: a save of other content is replayed too (a game from before an upgrade
    that still replays hash for hash is the same game), else refused by its content version."""
    if content is None:
        from cthulhu.content import builtin

        content = builtin()
    if not allow_other_content:
        check_content(save, content)
    if not check_dice(save):  # (`DiceMismatch` when the seed is not the one committed to)
        raise Uncommitted("the save has no dice commitment, so nothing shows its seed was fixed before the first roll")
    rerolls = 0
    game = None
    for game, events in steps_told(save, content, allow_other_content=True):  # (the content was judged above)
        rerolls += sum(1 for event in events if event.get("type") == REROLLED)
    assert game is not None
    outcome = game.outcome
    if outcome is None:
        raise NotFinished(f"the game is not over at its last step ({save.last_step})"
                          + (f", though the save says it was {save.header.outcome}" if save.header.outcome else ""))
    if save.header.outcome not in (None, outcome):
        raise NotFinished(f"the save says the game was {save.header.outcome}, but its replay ends {outcome}")
    mode = modes.get(save.setup.mode)
    turns = mode.turn(game.state)[0] if mode.turn is not None else game.step
    players = sorted(save.header.players, key=lambda p: p.seat)
    return Verified(outcome=outcome, turns=turns, rerolls=rerolls, steps=save.last_step,
                    team=tuple(p.name for p in players), bots=any(p.bot is not None for p in players))
