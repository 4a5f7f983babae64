"""What a game is started from: everything needed to rebuild it from the command log."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator


class Setup(BaseModel):
    """A table's choices. `seats[i]` is the seat that controls investigator i."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["main", "shamblers"] = "main"
    elder_one: str | None = None
    episode: str | None = None
    investigators: list[str] = Field(default_factory=list)
    players: int = Field(default=1, ge=1, le=5)
    seats: list[int] | None = None
    seed: int = Field(default=0, ge=0, lt=2**63)
    # A Shamblers difficulty level by id (content/shamblers/difficulty.toml); None: the default level.
    difficulty: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]*$")

    @model_validator(mode="after")
    def _difficulty_is_for_shamblers(self) -> "Setup":
        if self.difficulty is not None and self.mode != "shamblers":
            raise ValueError("difficulty levels are for Shamblers mode (--mode shamblers)")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # No difficulty, no key: every setup made before there were levels keeps its dump, and so
        # its state hashes and saves.
        data = handler(self)
        if data.get("difficulty") is None:
            data.pop("difficulty", None)
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
