"""What every wire message is built on: the strict, closed base and the field kinds both sets of
messages share (`net.messages`: a table's; `net.lobbymessages`: a server's lobby).

Strict and closed (``extra="forbid"``): a peer cannot smuggle fields, and a bool never passes for
an int. Wire types are msgpack-native (``list`` not ``tuple``, ``Literal`` not ``Enum``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Name = Annotated[str, Field(min_length=1, max_length=40)]
Secret = Annotated[str, Field(min_length=1, max_length=64)]
TableId = Annotated[str, Field(min_length=1, max_length=32)]
Query = Annotated[str, Field(max_length=80)]

OnTimeout = Literal["stand-in", "skip", "pause"]
NotifyFormat = Literal["json", "discord", "slack", "matrix"]  # a table's webhook body (`server.notices`)


class Msg(BaseModel):
    """A message, as sent: its fields, `t` first."""

    model_config = ConfigDict(extra="forbid", strict=True)

    def wire(self) -> dict[str, Any]:
        return self.model_dump()
