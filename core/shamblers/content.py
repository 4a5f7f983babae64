"""Shamblers mode content: `content/shamblers/rules.toml`, `difficulty.toml` and `towns.toml`, validated.

Every number of the mode is data (RULES.md Part B), so a tuning change is a
TOML edit that this loader checks; a problem is reported as
'file: entry.field: message' and nothing half-loaded is ever returned.
`rules.toml` holds the numbers every game shares; `difficulty.toml` the ones
that make Easy, Normal and Hard (each level names all of them, so a level
reads whole in one place).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..content import describe_validation
from ..errors import ContentError

RULES_FILE = "shamblers/rules.toml"
DIFFICULTY_FILE = "shamblers/difficulty.toml"
TOWNS_FILE = "shamblers/towns.toml"
FILES = (RULES_FILE, DIFFICULTY_FILE, TOWNS_FILE)
CHAOS = "chaos"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ColorFile(_Frozen):
    """One Madness color as `rules.toml` gives it: its tentacle, its Player Mat track and its counts."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    tentacle: str = Field(min_length=1)
    track: str = Field(min_length=1)
    in_bag: int = Field(ge=1, le=200)
    shamblers: int = Field(ge=1, le=50)


class ColorSpec(ColorFile):
    """A color at one difficulty level: with the size of its Player Mat track."""

    track_capacity: int


class DieSpec(_Frozen):
    name: str = Field(min_length=1)
    faces: list[Annotated[int, Field(ge=0, le=10)]] = Field(min_length=1, max_length=20)


class RulesFile(_Frozen):
    shambler_offset: int = Field(ge=0, le=50)
    start_town: int = Field(ge=0)
    chaos_in_bag: int = Field(ge=0, le=100)
    chaos_wild_max: int = Field(ge=0, le=20)
    bonus_color: str
    banish_bonus: list[Annotated[int, Field(ge=0, le=50)]] = Field(min_length=1, max_length=20)
    die: DieSpec
    colors: list[Any] = Field(min_length=1, max_length=8)


class LevelSpec(_Frozen):
    """One difficulty level: every number RULES.md Part B lets a level set."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(min_length=1)
    actions_per_turn: int = Field(ge=1, le=10)
    wheel_draw: int = Field(ge=0, le=10)
    win_per_color: int = Field(ge=1, le=50)
    loss_mat_tentacles: int = Field(ge=1, le=200)
    delirium_capacity: int = Field(ge=1, le=50)
    chaos_capacity: int = Field(ge=0, le=20)
    track_capacity: dict[str, Annotated[int, Field(ge=1, le=20)]]


class DifficultyFile(_Frozen):
    default: str
    levels: list[Any] = Field(min_length=1, max_length=10)


class TownSpec(_Frozen):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(min_length=1)


class MatsSpec(_Frozen):
    names: list[str] = Field(default_factory=list)


class TownsFile(_Frozen):
    towns: list[Any] = Field(min_length=3, max_length=20)
    mats: MatsSpec = MatsSpec()


class ShamblersContent(_Frozen):
    """The validated mode at one difficulty level (the default one as loaded; see `at`):
    what `ShamblerRules` reads, never the raw TOML."""

    difficulty: str  # the id of the level these numbers are
    default_difficulty: str
    levels: tuple[LevelSpec, ...]
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

    @property
    def level(self) -> LevelSpec:
        return next(lv for lv in self.levels if lv.id == self.difficulty)

    def at(self, difficulty: str | None) -> "ShamblersContent":
        """The same mode at another difficulty level (None: the default level)."""
        difficulty = difficulty or self.default_difficulty
        if difficulty == self.difficulty:
            return self
        for level in self.levels:
            if level.id == difficulty:
                return _at_level(self, level)
        raise ValueError(f"unknown difficulty {difficulty!r}; choose from {', '.join(lv.id for lv in self.levels)}")


def _at_level(base: ShamblersContent, level: LevelSpec) -> ShamblersContent:
    return base.model_copy(update=_level_numbers(base.colors, level))


def _level_numbers(colors: tuple[ColorFile, ...], level: LevelSpec) -> dict[str, Any]:
    """The fields of `ShamblersContent` a difficulty level sets."""
    return {
        "difficulty": level.id,
        "actions_per_turn": level.actions_per_turn,
        "wheel_draw": level.wheel_draw,
        "win_per_color": level.win_per_color,
        "loss_mat_tentacles": level.loss_mat_tentacles,
        "delirium_capacity": level.delirium_capacity,
        "chaos_capacity": level.chaos_capacity,
        "colors": tuple(
            ColorSpec(**{k: getattr(c, k) for k in ColorFile.model_fields}, track_capacity=level.track_capacity[c.id])
            for c in colors
        ),
    }


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
    """Build the mode's content (at its default difficulty) from the parsed files under `shamblers/`."""
    problems: list[str] = []
    for path in sorted(docs):
        if path not in FILES:
            problems.append(f"{path}: unknown file: Shamblers mode reads only {', '.join(FILES)}")
    for path in FILES:
        if path not in docs:
            problems.append(f"{path}: missing: Shamblers mode needs this file")
    if problems:
        raise ContentError(problems)

    def whole(path: str, model: type[_Frozen]) -> Any:
        try:
            return model.model_validate(docs[path])
        except ValidationError as err:
            problems.extend(describe_validation(path, "", err))
            return None

    rules, difficulty, towns_file = whole(RULES_FILE, RulesFile), whole(DIFFICULTY_FILE, DifficultyFile), whole(TOWNS_FILE, TownsFile)
    if rules is None or difficulty is None or towns_file is None:
        raise ContentError(problems)

    colors = _items(RULES_FILE, "colors", rules.colors, ColorFile, problems)
    levels = _items(DIFFICULTY_FILE, "levels", difficulty.levels, LevelSpec, problems)
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
    if rules.start_town >= len(towns):
        problems.append(f"{RULES_FILE}: start_town: {rules.start_town} but there are only {len(towns)} towns")
    level_ids = [lv.id for lv in levels]
    for lid in sorted({x for x in level_ids if level_ids.count(x) > 1}):
        problems.append(f"{DIFFICULTY_FILE}: levels[{lid}].id: appears more than once")
    if difficulty.default not in level_ids:
        problems.append(f"{DIFFICULTY_FILE}: default: {difficulty.default!r} is not one of the levels {level_ids}")
    for lv in levels:
        where = f"{DIFFICULTY_FILE}: levels[{lv.id}]"
        if sorted(lv.track_capacity) != sorted(ids):
            problems.append(f"{where}.track_capacity: needs exactly one size per color {ids}, not {sorted(lv.track_capacity)}")
        elif rules.bonus_color in ids and len(rules.banish_bonus) != lv.track_capacity[rules.bonus_color] + 1:
            cap = lv.track_capacity[rules.bonus_color]
            problems.append(
                f"{where}.track_capacity.{rules.bonus_color}: the banish bonus ({RULES_FILE}: banish_bonus) knows "
                f"{len(rules.banish_bonus)} counts on the {rules.bonus_color} track (0..{len(rules.banish_bonus) - 1}), "
                f"so its size must be {len(rules.banish_bonus) - 1}, not {cap}"
            )
        for c in colors:
            if c.shamblers < lv.win_per_color:
                problems.append(
                    f"{where}.win_per_color: {lv.win_per_color} is more than the {c.shamblers} {c.id} Shamblers "
                    f"({RULES_FILE}: colors[{c.id}].shamblers), so the game could never be won"
                )
    if problems:
        raise ContentError(problems)

    default = next(lv for lv in levels if lv.id == difficulty.default)
    return ShamblersContent(
        default_difficulty=default.id,
        levels=tuple(levels),
        shambler_offset=rules.shambler_offset,
        start_town=rules.start_town,
        chaos_in_bag=rules.chaos_in_bag,
        chaos_wild_max=rules.chaos_wild_max,
        bonus_color=rules.bonus_color,
        banish_bonus=tuple(rules.banish_bonus),
        die=rules.die,
        towns=tuple(towns),
        mat_names=tuple(towns_file.mats.names),
        **_level_numbers(tuple(colors), default),
    )
