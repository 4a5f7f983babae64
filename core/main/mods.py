"""What an investigator's skill levels are, and what they and the held cards add up to.

One computation for the rules and for every view: the level a Companion grants is the
level the engine uses and the level the board shows (RULES.md, Turn)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .content import Half, MainContent, Modifiers

if TYPE_CHECKING:
    from .state import Investigator
    from .tasks import HeldCard

_ZERO = Modifiers().model_dump()
# Keyed by id(content); the entry keeps the content alive so the id is never reused.
_CACHE: dict[tuple[int, tuple[tuple[str, int], ...]], tuple[MainContent, dict[str, Any]]] = {}
# id(modifiers) -> (the modifiers, the ones that are not zero): content lives for the process, and
# reading a pydantic model field by field is much dearer than a tuple of pairs.
_PLAIN: dict[int, tuple[Modifiers, tuple[tuple[str, Any], ...]]] = {}


def plain(mods: Modifiers) -> tuple[tuple[str, Any], ...]:
    """The modifiers that are not zero (or False), as (name, value) pairs."""
    hit = _PLAIN.get(id(mods))
    if hit is None or hit[0] is not mods:
        if len(_PLAIN) > 4096:
            _PLAIN.clear()
        hit = _PLAIN[id(mods)] = (mods, tuple((k, v) for k, v in mods.model_dump().items() if v))
    return hit[1]


def _combine(total: dict[str, Any], mods: Modifiers) -> None:
    """Add `mods` to `total`: numbers add up, flags are or-ed (a zero or False changes nothing)."""
    for key, value in plain(mods):
        if isinstance(value, bool):
            total[key] = total[key] or value
        else:
            total[key] += value


def skill_mods(content: MainContent, skill: str, level: int) -> dict[str, Any]:
    """One skill's levels 1..L summed; a level that `replaces` drops the ones below it."""
    own = dict(_ZERO)
    for lv in content.skills[skill].levels[:level]:
        if lv.replaces:
            own = dict(_ZERO)
        _combine(own, lv.mods)
    return own


def mods_of(content: MainContent, levels: dict[str, int]) -> dict[str, Any]:
    """Every skill's modifiers (`skill_mods`) added up."""
    key = (id(content), tuple(sorted(levels.items())))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is content:
        return hit[1]
    total = dict(_ZERO)
    for skill, level in levels.items():
        own = skill_mods(content, skill, level)
        for k, v in own.items():
            total[k] = (total[k] or v) if isinstance(v, bool) else total[k] + v
    if len(_CACHE) > 4096:
        _CACHE.clear()
    _CACHE[key] = (content, total)
    return total


def held_half(content: MainContent, episode: str, held: HeldCard) -> Half:
    """The side of a Discovery card an investigator holds."""
    key = (id(content), episode, held["card"], held["side"])
    hit = _HALVES.get(key)
    if hit is not None and hit[0] is content:
        return hit[1]
    card = content.episodes[episode].discovery[int(held["card"])]
    half = card.left if held["side"] == "left" else card.right
    if half is None:
        raise ValueError(f"Discovery card {held['card']} has no {held['side']} half to hold")
    if len(_HALVES) > 4096:
        _HALVES.clear()
    _HALVES[key] = (content, half)
    return half


# (id(content), episode, card, side) -> (the content, the half): kept alive by the entry, like `_CACHE`.
_HALVES: dict[tuple[int, str, str, str], tuple[MainContent, Half]] = {}


def grants(content: MainContent, episode: str, inv: Investigator) -> dict[str, list[str]]:
    """Skill -> the names of the held cards that grant it a level, in the order they were claimed."""
    out: dict[str, list[str]] = {}
    for held in inv.cards:
        half = held_half(content, episode, held)
        if half.skill:
            out.setdefault(half.skill, []).append(half.name)
    return out


def skill_levels(content: MainContent, episode: str, inv: Investigator, own: dict[str, int] | None = None) -> dict[str, int]:
    """The investigator's levels while they hold their cards: their own (or `own`), one more per card
    granting the skill (level 1 of a skill they lack), never above the cap."""
    out = dict(inv.levels if own is None else own)
    for skill, names in grants(content, episode, inv).items():
        out[skill] = min(content.rules.skill_cap, out.get(skill, 0) + len(names))
    return out


def investigator_mods(content: MainContent, episode: str, inv: Investigator) -> dict[str, Any]:
    """Every modifier an investigator has now: their skills at their held levels, plus the held cards' own."""
    if not inv.cards:
        return mods_of(content, inv.levels)
    total = dict(mods_of(content, skill_levels(content, episode, inv)))
    for held in inv.cards:
        _combine(total, held_half(content, episode, held).mods)
    return total
