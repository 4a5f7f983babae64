"""Shamblers mode content: `content/shamblers/rules.toml` and `towns.toml`, validated.

Every number of the mode is data (RULES.md Part B), so a tuning change is a
TOML edit that this loader checks; a problem is reported as
'file: entry.field: message' and nothing half-loaded is ever returned.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..content import describe_validation
from ..errors import ContentError

RULES_FILE = "shamblers/rules.toml"
TOWNS_FILE = "shamblers/towns.toml"
CHAOS = "chaos"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ColorSpec(_Frozen):
    """One Madness color: its tentacle, its Player Mat track and its counts."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    tentacle: str = Field(min_length=1)
    track: str = Field(min_length=1)
    track_capacity: int = Field(ge=1, le=20)
    in_bag: int = Field(ge=1, le=200)
    shamblers: int = Field(ge=1, le=50)


class DieSpec(_Frozen):
    name: str = Field(min_length=1)
    faces: list[Annotated[int, Field(ge=0, le=10)]] = Field(min_length=1, max_length=20)


class RulesFile(_Frozen):
    actions_per_turn: int = Field(ge=1, le=10)
    wheel_draw: int = Field(ge=0, le=10)
    shambler_offset: int = Field(ge=0, le=50)
    start_town: int = Field(ge=0)
    chaos_in_bag: int = Field(ge=0, le=100)
    chaos_capacity: int = Field(ge=0, le=20)
    chaos_wild_max: int = Field(ge=0, le=20)
    delirium_capacity: int = Field(ge=1, le=50)
    win_per_color: int = Field(ge=1, le=50)
    loss_mat_tentacles: int = Field(ge=1, le=200)
    bonus_color: str
    banish_bonus: list[Annotated[int, Field(ge=0, le=50)]] = Field(min_length=1, max_length=20)
    die: DieSpec
    colors: list[Any] = Field(min_length=1, max_length=8)


class TownSpec(_Frozen):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(min_length=1)


class MatsSpec(_Frozen):
    names: list[str] = Field(default_factory=list)


class TownsFile(_Frozen):
    towns: list[Any] = Field(min_length=3, max_length=20)
    mats: MatsSpec = MatsSpec()


class ShamblersContent(_Frozen):
    """The validated mode: what `ShamblerRules` reads, never the raw TOML."""

    actions_per_turn: int
    wheel_draw: int
    shambler_offset: int
    start_town: int
    chaos_in_bag: int
    chaos_capacity: int
    chaos_wild_max: int
    delirium_capacity: int
    win_per_color: int
    loss_mat_tentacles: int
    bonus_color: str
    banish_bonus: tuple[int, ...]
    die: DieSpec
    colors: tuple[ColorSpec, ...]
    towns: tuple[TownSpec, ...]
    mat_names: tuple[str, ...]

    def color(self, cid: str) -> ColorSpec:
        for c in self.colors:
            if c.id == cid:
                return c
        raise KeyError(cid)

    @property
    def color_ids(self) -> list[str]:
        return [c.id for c in self.colors]

    def mat_name(self, index: int) -> str:
        return self.mat_names[index] if index < len(self.mat_names) else f"Player {index + 1}"


def _items(path: str, key: str, raw: list[Any], model: type[_Frozen], problems: list[str]) -> list[Any]:
    """Validate each entry of an array of tables on its own, so errors name the entry."""
    out = []
    for i, item in enumerate(raw):
        label = item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str) else str(i)
        try:
            out.append(model.model_validate(item))
        except ValidationError as err:
            problems.extend(describe_validation(path, f"{key}[{label}]", err))
    return out


def load_shamblers(docs: dict[str, dict[str, Any]]) -> ShamblersContent:
    """Build the mode's content from the parsed files under `shamblers/`."""
    problems: list[str] = []
    for path in sorted(docs):
        if path not in (RULES_FILE, TOWNS_FILE):
            problems.append(f"{path}: unknown file: Shamblers mode reads only {RULES_FILE} and {TOWNS_FILE}")
    for path in (RULES_FILE, TOWNS_FILE):
        if path not in docs:
            problems.append(f"{path}: missing: Shamblers mode needs this file")
    if problems:
        raise ContentError(problems)

    rules = towns_file = None
    try:
        rules = RulesFile.model_validate(docs[RULES_FILE])
    except ValidationError as err:
        problems.extend(describe_validation(RULES_FILE, "", err))
    try:
        towns_file = TownsFile.model_validate(docs[TOWNS_FILE])
    except ValidationError as err:
        problems.extend(describe_validation(TOWNS_FILE, "", err))
    if rules is None or towns_file is None:
        raise ContentError(problems)

    colors = _items(RULES_FILE, "colors", rules.colors, ColorSpec, problems)
    towns = _items(TOWNS_FILE, "towns", towns_file.towns, TownSpec, problems)
    if problems:
        raise ContentError(problems)

    ids = [c.id for c in colors]
    for cid in sorted({c for c in ids if ids.count(c) > 1}):
        problems.append(f"{RULES_FILE}: colors[{cid}].id: appears more than once")
    if CHAOS in ids:
        problems.append(f"{RULES_FILE}: colors[{CHAOS}].id: '{CHAOS}' is reserved for Chaos Tentacles")
    town_ids = [t.id for t in towns]
    for tid in sorted({t for t in town_ids if town_ids.count(t) > 1}):
        problems.append(f"{TOWNS_FILE}: towns[{tid}].id: appears more than once")
    if rules.bonus_color not in ids:
        problems.append(f"{RULES_FILE}: bonus_color: {rules.bonus_color!r} is not one of the colors {ids}")
    else:
        cap = next(c.track_capacity for c in colors if c.id == rules.bonus_color)
        if len(rules.banish_bonus) != cap + 1:
            problems.append(
                f"{RULES_FILE}: banish_bonus: needs one entry per possible count on the "
                f"{rules.bonus_color} track (0..{cap}), i.e. {cap + 1}, not {len(rules.banish_bonus)}"
            )
    if rules.start_town >= len(towns):
        problems.append(f"{RULES_FILE}: start_town: {rules.start_town} but there are only {len(towns)} towns")
    for c in colors:
        if c.shamblers < rules.win_per_color:
            problems.append(
                f"{RULES_FILE}: colors[{c.id}].shamblers: {c.shamblers} is fewer than win_per_color "
                f"({rules.win_per_color}), so the game could never be won"
            )
    if problems:
        raise ContentError(problems)

    return ShamblersContent(
        actions_per_turn=rules.actions_per_turn,
        wheel_draw=rules.wheel_draw,
        shambler_offset=rules.shambler_offset,
        start_town=rules.start_town,
        chaos_in_bag=rules.chaos_in_bag,
        chaos_capacity=rules.chaos_capacity,
        chaos_wild_max=rules.chaos_wild_max,
        delirium_capacity=rules.delirium_capacity,
        win_per_color=rules.win_per_color,
        loss_mat_tentacles=rules.loss_mat_tentacles,
        bonus_color=rules.bonus_color,
        banish_bonus=tuple(rules.banish_bonus),
        die=rules.die,
        colors=tuple(colors),
        towns=tuple(towns),
        mat_names=tuple(towns_file.mats.names),
    )
