"""What a game is started from: everything needed to rebuild it from the command log."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, field_validator, model_serializer, model_validator

from . import modes

_FIELDS = ("mode", "players", "seats", "seed", "options")
# Every setup made before modes declared their options dumped these three keys, set or not; dumping
# them still keeps the state hash (the setup is part of it) of every such game and save.
_ALWAYS: dict[str, None | list[str]] = {"elder_one": None, "episode": None, "investigators": []}
_ID = r"^[a-z][a-z0-9_]*$"
# A house rule left as it is (`choices.ADVICE` on) is no choice: the setup, its hashes and saves are
# those of a table made before the rule existed.
_NO_CHOICE = {"advice": "on"}


class Setup(BaseModel):
    """A table's choices. `options` holds the set-up choices the mode declares (`Mode.options`),
    by name: an id, or a list of ids for a list option. `seats[i]` is the seat that controls figure
    i (an investigator, a mat). The set-up choices may also be given, and are dumped, as keys of
    their own (`Setup(episode="hollow_fen")`), as every save has them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: str = "main"  # a registered mode (`cthulhu.core.modes`)
    players: int = Field(default=1, ge=1, le=5)
    seats: list[int] | None = None
    seed: int = Field(default=0, ge=0, lt=2**63)
    options: dict[str, str | list[str]] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _choices_by_name(cls, data: Any) -> Any:
        """Set-up choices given as keys of their own go into `options`; an unset one (None, []) is no choice."""
        if not isinstance(data, dict):
            return data
        out = {k: v for k, v in data.items() if k in _FIELDS}
        options = dict(out.get("options") or {})
        options.update({k: v for k, v in data.items() if k not in _FIELDS})
        out["options"] = {k: v for k, v in options.items() if v not in (None, [], "") and _NO_CHOICE.get(k) != v}
        return out

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, mode: str) -> str:
        modes.get(mode)  # ValueError naming the known modes
        return mode

    @model_validator(mode="after")
    def _choices_the_mode_declares(self) -> "Setup":
        """An episode for Shamblers, or difficulty levels for the main game, would be silently ignored: refused."""
        declared = {o.name: o for o in modes.get(self.mode).options}
        for name, value in self.options.items():
            option = declared.get(name)
            if option is None:
                takers = [(m, o) for m in modes.all_modes() for o in m.options if o.name == name]
                if not takers:
                    raise ValueError(f"{name!r} is not a set-up choice of any mode")
                where = " or ".join(f"{m.title} mode (--mode {m.name})" for m, _ in takers)
                raise ValueError(f"{takers[0][1].plural} are for {where}")
            ids = value if isinstance(value, list) else [value]
            if option.many != isinstance(value, list):
                raise ValueError(f"{option.flag}: {'a list of ids' if option.many else 'one id'} expected")
            for one in ids:
                if not isinstance(one, str) or not _matches_id(one):
                    raise ValueError(f"{option.flag}: {one!r} is not an id (lower-case letters, digits and _)")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # The layout of every save and state hash: the mode, the three keys of `_ALWAYS`, players,
        # seats, seed, then any other choice made (difficulty...); `options` is never a key of its own.
        data: dict[str, Any] = handler(self)
        options = data.pop("options")
        out = {"mode": data["mode"], **{k: options.get(k, empty) for k, empty in _ALWAYS.items()}}
        out.update(players=data["players"], seats=data["seats"], seed=data["seed"])
        out.update({k: v for k, v in options.items() if k not in _ALWAYS})
        return out

    @model_validator(mode="after")
    def _seats_fit(self) -> "Setup":
        if self.seats is not None:
            for option in modes.get(self.mode).options:
                figures = self.many(option.name) if option.many else []
                if figures and len(self.seats) != len(figures):
                    raise ValueError(f"seats must name one seat per {option.noun}")
            if not self.seats or any(not 0 <= s < self.players for s in self.seats):
                raise ValueError(f"every seat must be between 0 and {self.players - 1}")
        return self

    def one(self, name: str) -> str | None:
        """The id chosen for a one-id option, or None (the mode's default)."""
        value = self.options.get(name)
        return value if isinstance(value, str) else None

    def many(self, name: str) -> list[str]:
        """The ids chosen for a list option ([]: the mode's defaults)."""
        value = self.options.get(name)
        return list(value) if isinstance(value, list) else []

    @property
    def advice(self) -> bool:
        """The house rule `advice` (`choices.ADVICE`): False when the table switched the odds panel
        off for everyone. The rules core never reads it."""
        return self.options.get("advice") != "off"

    def seat_of(self, index: int) -> int:
        if self.seats is not None:
            return self.seats[index]
        return index % self.players


def _matches_id(text: str) -> bool:
    import re

    return re.fullmatch(_ID, text) is not None
