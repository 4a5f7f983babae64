"""What an investigator's skill levels add up to, as one flat set of modifiers."""

from __future__ import annotations

from typing import Any

from .content import MainContent, Modifiers

_ZERO = Modifiers().model_dump()
# Keyed by id(content); the entry keeps the content alive so the id is never reused.
_CACHE: dict[tuple[int, tuple[tuple[str, int], ...]], tuple[MainContent, dict[str, Any]]] = {}


def _combine(total: dict[str, Any], mods: Modifiers) -> None:
    for key, value in mods:
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
