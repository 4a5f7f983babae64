"""The table of a networked game: where to join, the code, who sits where, which seats are open.

The seats come from the host's lobby messages (the `Table` a peer session keeps),
so they are what the host says now, not what this terminal remembers.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


def lobby_text(info: dict[str, Any]) -> Text:
    """`info`: address, code, hosting, local_seats and table (a `Table` or its dict); for a host, the
    `doors` lines (`--ssh`/`--web`); `visitor` for an interface served through one of them."""
    table = info.get("table")
    if table is not None and hasattr(table, "model_dump"):
        table = table.model_dump()
    table = table or {}
    out = Text()
    where = info.get("address", "?")
    if info.get("hosting"):
        out.append("You host this table. ", style="bold")
        out.append(f"Others join with:\n  cthulhu join {where}" + (f" --code {info['code']}" if info.get("code") else "") + "\n")
        for line in info.get("doors") or ():
            out.append(f"  {line}\n")
    elif info.get("visitor"):
        out.append("You came in through the host's SSH or web door.\n")
    else:
        out.append(f"Joined the table at {where}.\n")
    out.append("Table code: ")
    out.append(str(info.get("code")) if info.get("code") else "none (open table)", style="bold")
    out.append(f"\nMode: {table.get('mode', '?')}   " + ("game under way" if table.get("started") else "waiting to start"))
    watchers = int(table.get("spectators") or 0)
    if watchers:
        out.append(f"   {watchers} watching")
    out.append("\n\nSeats\n", style="bold")
    seats = table.get("seats") or []
    mine = set(info.get("local_seats") or ())
    for seat in seats:
        n = int(seat.get("seat", 0))
        kind = seat.get("kind")
        line = Text(f"  {n + 1}  ")
        if kind == "open":
            line.append("open", style="green")
            line.append(" - anyone with the code may take it", style="dim")
        elif kind == "bot":
            line.append(f"{seat.get('name') or 'bot'} (bot)")
        else:
            line.append(str(seat.get("name") or "player"))
            if n in mine:
                line.append("  (you)", style="bold")
            if not seat.get("connected"):
                line.append("  away - may come back with the seat token", style="yellow")
        out.append_text(line)
        out.append("\n")
    if not seats:
        out.append("  (the host has not said yet)\n", style="dim")
    open_seats = sum(1 for s in seats if s.get("kind") == "open")
    out.append(f"\n{open_seats} open seat(s).", style="dim")
    return out


class LobbyScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,L,q", "close", "Close")]

    def __init__(self, info: dict[str, Any]) -> None:
        super().__init__()
        self.info = info

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("The table", classes="title")
            yield Static(lobby_text(self.info), id="lobby-body")
            yield Static(Text("escape: close", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
