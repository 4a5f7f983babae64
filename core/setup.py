"""What a game is started from: everything needed to rebuild it from the command log."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, field_validator, model_serializer, model_validator


CHOICES = {  # the optional choices a mode may read (`Mode.choices`), as the refusal names them
    "episode": "episodes are",
    "elder_one": "Elder Ones are",
    "investigators": "investigators are",
    "difficulty": "difficulty levels are",
}


class Setup(BaseModel):
    """A table's choices. `seats[i]` is the seat that controls investigator i."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: str = "main"  # a registered mode (`cthulhu.core.modes`)
    elder_one: str | None = None
    episode: str | None = None
    investigators: list[str] = Field(default_factory=list)
    players: int = Field(default=1, ge=1, le=5)
    seats: list[int] | None = None
    seed: int = Field(default=0, ge=0, lt=2**63)
    # A Shamblers difficulty level by id (content/shamblers/difficulty.toml); None: the default level.
    difficulty: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]*$")
    # A house rule, not a rule of the game: False switches the advice (the odds panel: roll odds and the
    # search bot's win chances) off for every player at the table. The rules core never reads it.
    advice: bool = True

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, mode: str) -> str:
        from . import modes

        modes.get(mode)  # ValueError naming the known modes
        return mode

    @model_validator(mode="after")
    def _choices_only_where_the_mode_reads_them(self) -> "Setup":
        """An episode for Shamblers, or difficulty levels for the main game, would be silently ignored: refused."""
        from . import modes

        read = modes.get(self.mode).choices
        for name, what in CHOICES.items():
            if getattr(self, name) not in (None, []) and name not in read:
                takers = [m for m in modes.all_modes() if name in m.choices]
                where = " or ".join(f"{m.title} mode (--mode {m.name})" for m in takers) or "no mode"
                raise ValueError(f"{what} for {where}")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # No difficulty, no key (and advice on, no key): every setup made before there were levels
        # (or house rules) keeps its dump, and so its state hashes and saves.
        data: dict[str, Any] = handler(self)
        if data.get("difficulty") is None:
            data.pop("difficulty", None)
        if data.get("advice") is True:
            data.pop("advice", None)
        return data

    @model_validator(mode="after")
    def _seats_fit(self) -> "Setup":
        if self.seats is not None:
            if self.investigators and len(self.seats) != len(self.investigators):
                raise ValueError("seats must name one seat per investigator")
            if not self.seats or any(not 0 <= s < self.players for s in self.seats):
                raise ValueError(f"every seat must be between 0 and {self.players - 1}")
        return self

    def seat_of(self, index: int) -> int:
        if self.seats is not None:
            return self.seats[index]
        return index % self.players
