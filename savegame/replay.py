"""Turning a save back into a game: verify every step, or seek to one quickly.

A save is trusted only as far as the rules agree with it: `replay(verify=True)`
starts from the setup, applies each recorded command through `Game.apply` (so
an illegal command is refused, not obeyed) and compares the state hash after
every step with the recorded one. Seeking starts from the nearest snapshot at
or before the step, checks the snapshot's hash, and replays the few commands
after it, checking those hashes too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from cthulhu.core import Command, Event, Game, Rejected

from .dice import opens
from .file import STAND_IN_LINE, ContentMismatch, DiceMismatch, HashMismatch, ReplayRejected, SaveError, SaveFile


def _short(h: str) -> str:
    return h[:12]


def _brief(wire: Any) -> str:
    """A command for an error message: short, and safe on whatever an edited file holds."""
    try:
        text = repr(wire)
    except RecursionError:
        return "<a deeply nested command>"
    return text if len(text) <= 80 else text[:77] + "..."


def _apply(game: Game, step: int, seat: int, wire: dict[str, Any]) -> list[Event]:
    try:
        command = Command.from_wire(wire)
        return game.apply(seat, command)
    except Rejected as exc:
        raise ReplayRejected(f"step {step}: the recorded command {_brief(wire)} by seat {seat + 1} was refused: {exc.reason}", step=step) from None
    except Exception as exc:
        # The rules trust their own states; an edited save can hand them
        # anything. Whatever breaks, the save fails with a message, not a traceback.
        raise ReplayRejected(f"step {step}: replaying {_brief(wire)} failed inside the rules ({type(exc).__name__}: {exc})", step=step) from None


def _hash(game: Game, step: int) -> str:
    try:
        return game.state_hash()
    except Exception as exc:  # a state rebuilt from an edited snapshot may not even hash
        raise SaveError(f"step {step}: the state cannot be hashed ({type(exc).__name__}: {exc})", step=step) from None


def _check(game: Game, step: int, recorded: str) -> None:
    actual = _hash(game, step)
    if actual != recorded:
        raise HashMismatch(
            f"hash mismatch at step {step}: recorded {_short(recorded)}, replay gives {_short(actual)} "
            "(other rules or content, or an edited save)",
            step=step,
        )


def replay_entries(
    game: Game,
    entries: Iterable[tuple[int, dict[str, Any], str]],
    *,
    on_step: Callable[[int, dict[str, Any], str], None] | None = None,
) -> Game:
    """Apply (seat, command, hash) entries to `game`, checking each hash."""
    for seat, wire, recorded in entries:
        step = game.step + 1
        _apply(game, step, seat, wire)
        _check(game, step, recorded)
        if on_step is not None:
            on_step(seat, wire, recorded)
    return game


def check_content(save: SaveFile, content: Any) -> None:
    if save.header.content_version != content.version:
        raise ContentMismatch(
            f"the save was made with other game content (content version {_short(save.header.content_version)}, "
            f"installed {_short(str(content.version))})"
        )


def _content(content: Any) -> Any:
    if content is None:
        from cthulhu.content import builtin

        content = builtin()
    return content


def _start(save: SaveFile, content: Any) -> Game:
    try:
        game = Game.new(save.setup, content)
    except Exception as exc:  # an edited setup the rules cannot start from (see `_apply`)
        raise SaveError(
            f"the game in this save cannot be set up with the installed content ({type(exc).__name__}: {exc})", step=0
        ) from None
    _check(game, 0, save.initial_hash)
    return game


def check_dice(save: SaveFile) -> bool:
    """Whether the save's seed opens its dice commitment: True, False if it has none (format 1),
    `DiceMismatch` if the seed is not the one committed to."""
    if save.dice is None:
        return False
    try:
        salt = bytes.fromhex(save.dice.salt)
    except ValueError:
        raise DiceMismatch("the dice commitment's salt is not hex") from None
    if not opens(save.dice.commit, save.setup.seed, salt):
        raise DiceMismatch("the seed in this save is not the one committed to when the game began")
    return True


def verify(save: SaveFile, content: Any = None, *, allow_other_content: bool = False) -> Game:
    """Replay the whole log from the setup, checking every hash and every snapshot, then the dice commitment.

    The replay comes first so that a save edited to another seed fails naming the first step that differs.
    """
    content = _content(content)
    if not allow_other_content:
        check_content(save, content)
    game = _replay_to(save, _start(save, content), save.last_step)
    for step, snap in save.snapshots.items():
        _from_snapshot(save, step, snap, content)
    check_dice(save)
    return game


def _from_snapshot(save: SaveFile, step: int, snap: dict[str, Any], content: Any) -> Game:
    try:
        game = Game.from_canonical(snap, content)
    except Exception as exc:  # an edited snapshot the rules cannot read (see `_apply`)
        raise SaveError(f"the snapshot at step {step} cannot be rebuilt ({type(exc).__name__}: {exc})", step=step) from None
    if game.step != step:
        raise HashMismatch(f"the snapshot filed at step {step} is of step {game.step}", step=step)
    actual = _hash(game, step)
    recorded = save.hash_at(step)
    if actual != recorded:
        raise HashMismatch(
            f"hash mismatch in the snapshot at step {step}: recorded {_short(recorded)}, snapshot gives {_short(actual)}",
            step=step,
        )
    return game


def seek(save: SaveFile, step: int, content: Any = None, *, allow_other_content: bool = False) -> Game:
    """The game after `step` commands, from the nearest snapshot (hashes checked on the way)."""
    content = _content(content)
    if not allow_other_content:
        check_content(save, content)
    if not 0 <= step <= save.last_step:
        raise SaveError(f"there is no step {step}: the save has steps 0 to {save.last_step}", step=step)
    # A game rebuilt from a snapshot knows no decision before it, so its take-back line is the
    # snapshot at least; the views it gives are the live game's only if the true line (a reveal,
    # another seat's decision) lies after the snapshot. Otherwise an earlier snapshot is tried.
    for base in sorted((k for k in save.snapshots if 0 < k <= step), reverse=True):
        game = _from_snapshot(save, base, save.snapshots[base], content)
        _replay_to(save, game, step)
        if game.history.floor > base:
            return game
    return _replay_to(save, _start(save, content), step)


def _replay_to(save: SaveFile, game: Game, step: int) -> Game:
    """`game` moved on to `step`, every hash checked, with the lines a host's stand-ins drew."""
    sealed = set(save.header.sealed)
    for n in range(game.step + 1, step + 1):
        _step(game, n, save, sealed)
    return game


def _step(game: Game, n: int, save: SaveFile, sealed: set[int]) -> list[Event]:
    entry = save.steps[n - 1]
    events = _apply(game, n, entry.seat, entry.command)
    _check(game, n, entry.hash)
    if n in sealed:
        game.seal_undo(STAND_IN_LINE)
    return events


def replay(
    save: SaveFile,
    content: Any = None,
    *,
    verify: bool = True,
    seek: int | None = None,
    allow_other_content: bool = False,
) -> Game:
    """The game at `seek` (default: the last step), after verifying the whole log if asked."""
    content = _content(content)
    target = save.last_step if seek is None else seek
    if verify:
        game = _verify(save, content, allow_other_content=allow_other_content)
        if target == save.last_step:
            return game
    return _seek(save, target, content, allow_other_content=allow_other_content)


_verify = verify
_seek = seek


def steps_told(save: SaveFile, content: Any = None, *, upto: int | None = None,
               allow_other_content: bool = False) -> Iterator[tuple[Game, list[Event]]]:
    """The game from its setup to step `upto` (default: the last), one step at a time, with the events
    each step made (the setup's own first, at step 0); every hash checked on the way. What a story of
    the game is told from (`cthulhu replay`); the game object is the same one, moved on each time."""
    content = _content(content)
    if not allow_other_content:
        check_content(save, content)
    game = _start(save, content)
    yield game, list(game.start_events)
    sealed = set(save.header.sealed)
    for step in range(1, save.last_step + 1 if upto is None else min(upto, save.last_step) + 1):
        yield game, _step(game, step, save, sealed)


def resume(save: SaveFile, content: Any = None) -> Game:
    """The game at the save's last step, fully verified: what `--load` starts from."""
    return replay(save, content, verify=True)
