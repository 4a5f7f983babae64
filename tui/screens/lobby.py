"""The table of a networked game: where to join, the code, who sits where, how to come back.

The seats come from the host's lobby messages (the `Table` a peer session keeps),
so they are what the host says now, not what this terminal remembers. The
hosting terminal can also deal with an absent player here: hand the seat to a
bot until they are back, or free it for someone new.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cthulhu.net import clean_text

from ..english import and_list
from ..link import TableLobby
from ..safe import safe_text

REFRESH = 0.5  # seconds: the dialog follows the host's seat news while open


def lobby_text(info: dict[str, Any], selected: int | None = None) -> Text:
    """`info`: what `NetLink.lobby_info()` returns (address, code, join, hosting, local_seats, table...).
    Names are a peer's own words: cleaned, and appended as text, never markup."""
    table = table_of(info)
    out = Text()
    if info.get("status"):
        out.append(f"{info['status']}\n\n", style="bold bright_yellow")
    if info.get("hosting"):
        out.append("You host this table. ", style="bold")
        out.append(f"Others join with:\n  {info.get('join') or 'cthulhu join ' + str(info.get('address'))}\n")
        for line in info.get("doors") or ():
            out.append(f"  {line}\n")
    elif info.get("table_id") and info.get("visitor"):
        out.append(f"Table {info['table_id']} of the server you came in through: in its lobby, i {info['table_id']} finds it.\n")
    elif info.get("visitor"):
        out.append("You came in through the host's SSH or web door.\n")
    elif info.get("table_id"):
        out.append(f"Table {info['table_id']} at the server {info.get('address', '?')}. Others join with:\n  {info.get('join')}\n")
    else:
        out.append(f"Joined the table at {info.get('address', '?')}.\n")
    out.append("Table code: ")
    out.append(str(info.get("code")) if info.get("code") else "none (open table)", style="bold")
    step = info.get("step") or 0
    under_way = table.get("started") or step > 0
    out.append(f"\nMode: {table.get('mode', '?')}   " + (f"game under way, step {step}" if under_way else "waiting for every seat to fill"))
    watchers = int(table.get("spectators") or 0)
    if watchers:
        out.append(f"   {watchers} watching")
    if info.get("commit"):
        out.append(f"\nDice: the host is committed to its seed ({str(info['commit'])[:16]}...); every roll is checked at the end.")
    out.append("\n\nSeats\n", style="bold")
    seats = table.get("seats") or []
    mine = set(info.get("local_seats") or ())
    for seat in seats:
        n = int(seat.get("seat", 0))
        kind = seat.get("kind")
        line = Text(f"{'>' if selected == n else ' '} {n + 1}  ", style="bold" if selected == n else "")
        what = playing(info, n)
        if kind == "open":
            line.append("open", style="green")
            line.append(f" for {what} - anyone with the code may take it", style="dim")
        elif kind == "bot":
            line.append(f"{clean_text(seat.get('name') or 'bot')} (bot) plays {what}")
        else:
            line.append(plays(info, n, clean_text(seat.get("name") or "player")))
            if n in mine:
                line.append("  (you)", style="bold")
            if seat.get("stand_in"):  # (on a line of its own: a seat's line has a name and investigators already)
                line.append("\n     away - a bot plays for them until they are back", style="bright_yellow")
            elif not seat.get("connected"):
                line.append("\n     away - their seat waits for them", style="bright_yellow")
        out.append_text(line)
        out.append("\n")
    if not seats:
        out.append("  (the host has not said yet)\n", style="dim")
    open_seats = sum(1 for s in seats if s.get("kind") == "open")
    out.append(f"{open_seats} open seat(s).\n", style="dim")
    if info.get("comeback"):
        out.append("\n" if info.get("hosting") or info.get("visitor") else "\nTo come back: ", style="bold")
        out.append(f"{info['comeback']}\n")
    if info.get("comeback_elsewhere"):
        out.append(f"From another machine:\n  {info['comeback_elsewhere']}\n")
    return safe_text(out)  # the address, the code, the mode and the token came over the wire too


def table_of(info: dict[str, Any]) -> dict[str, Any]:
    """The host's latest seat list in `info` (the `Table` message as plain data), or {} before it has said."""
    table: dict[str, Any] = info.get("table") or {}
    return table


def playing(info: dict[str, Any], seat: int) -> str:
    """What `seat` plays, as `lobby_info` names it ('seat 2' before the first view)."""
    return and_list(clean_text(name) for name in (info.get("characters") or {}).get(seat, [])) or f"seat {seat + 1}"


def plays(info: dict[str, Any], seat: int, name: str) -> str:
    """'Ann plays Ada Whitlock'; a hot-seat player, named after what they play, is not named twice."""
    what = playing(info, seat)
    return what if name == what or name in (info.get("characters") or {}).get(seat, []) else f"{name} plays {what}"


def view_line(info: dict[str, Any]) -> Text:
    """Step and view hash: two players comparing them know they see the same table."""
    if not info.get("view_hash"):
        return Text()
    return Text(clean_text(f"Your view: step {info.get('step') or 0}, hash {str(info['view_hash'])[:12]}") + "\n", style="dim")


def away(info: dict[str, Any], index: int | None) -> dict[str, Any] | None:
    """The seat at `index` if a person sits there and is away (what the host may act on)."""
    seat: dict[str, Any]
    for seat in table_of(info).get("seats") or []:
        if seat.get("seat") == index and seat.get("kind") == "human" and not seat.get("connected"):
            return seat
    return None


class LobbyScreen(ModalScreen[None]):
    """The table dialog. Hosting: digits pick a seat, `b` lets a bot play it, `f` frees it."""

    DEFAULT_CSS = "LobbyScreen .dialog { max-height: 100%; }"

    BINDINGS = [
        Binding("escape,L,q", "close", "Close"),
        Binding("b", "bot", "Bot plays the away seat", show=False),
        Binding("f", "free", "Free the away seat", show=False),
        Binding("S", "start", "Start now with bots", show=False),
    ]

    def __init__(self, link: TableLobby) -> None:
        super().__init__()
        self.link = link
        self.info: dict[str, Any] = link.lobby_info()
        self.selected: int | None = None
        self.message: Text | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("The table", classes="title")
            with VerticalScroll(id="lobby-scroll", classes="dialog-body"):  # a small terminal scrolls the table, never the keys
                yield Static(id="lobby-body")
            yield Static(id="lobby-keys", classes="keys")

    def on_mount(self) -> None:
        if self.info.get("hosting"):  # start on the first away seat, the one most likely to need a decision
            seats = [s.get("seat") for s in self._seats() if away(self.info, s.get("seat"))]
            self.selected = seats[0] if seats else None
        self.redraw()
        self.set_interval(REFRESH, self.refresh_info)

    def _seats(self) -> list[dict[str, Any]]:
        return list(table_of(self.info).get("seats") or [])

    def refresh_info(self) -> None:
        info = self.link.lobby_info()
        if info != self.info:
            self.info = info
            self.redraw()

    def redraw(self) -> None:
        self.query_one("#lobby-body", Static).update(lobby_text(self.info, self.selected if self.info.get("hosting") else None))
        keys = view_line(self.info)
        if self.message is not None:
            keys.append_text(self.message)
            keys.append("\n")
        seat = away(self.info, self.selected) if self.info.get("hosting") else None
        if seat is not None:
            who = clean_text(seat.get("name") or "the player")
            what = playing(self.info, int(seat["seat"]))
            if not seat.get("stand_in"):
                keys.append(f"b  let a bot play {what} until {who} is back\n")
            keys.append(f"f  free {what}'s seat for a new player ({who}'s token stops working)\n")
        if self.can_start:
            open_seats = [playing(self.info, int(s["seat"])) for s in self._seats() if s.get("kind") == "open"]
            keys.append(f"S  start now: {'bots play' if len(open_seats) > 1 else 'a bot plays'} {and_list(open_seats)} for the whole game\n")
        if self.info.get("hosting") and len(self._seats()) > 1:
            keys.append("1-5 pick a seat   ", style="dim")
        keys.append("escape: close", style="dim")
        self.query_one("#lobby-keys", Static).update(keys)

    def on_key(self, event: events.Key) -> None:
        key = event.character or ""
        if self.info.get("hosting") and key.isdigit() and 1 <= int(key) <= len(self._seats()):
            event.stop()
            self.selected = int(key) - 1
            self.message = None
            self.redraw()

    async def _act(self, act: Callable[[int], Awaitable[None]], done: str) -> None:
        """Ask the host to act on the picked seat; the host decides (its lobby news may lag here)."""
        if not self.info.get("hosting") or self.selected is None:
            self.message = Text("Pick a seat whose player is away first.", style="bright_yellow")
            self.redraw()
            return
        seat = away(self.info, self.selected) or {}
        who = clean_text(seat.get("name") or "the player")
        what = playing(self.info, self.selected)
        try:
            await act(self.selected)
        except Exception as exc:  # nobody away there, the player came back meanwhile, or the host stopped
            self.message = Text(clean_text(f"Not done: {exc}"), style="bright_red")
        else:
            self.message = Text(done.format(what=what, who=who), style="green")
        self.refresh_info()
        self.redraw()

    @property
    def can_start(self) -> bool:
        """Hosting a table that still waits for open seats."""
        table = table_of(self.info)
        return bool(self.info.get("hosting") and table and not table.get("started")
                    and any(s.get("kind") == "open" for s in table.get("seats") or []))

    async def action_start(self) -> None:
        if not self.can_start:
            self.message = Text("The game is under way already.", style="bright_yellow")
        else:
            try:
                await self.link.start_with_bots()
            except Exception as exc:  # someone took the last seat meanwhile, or the host stopped
                self.message = Text(clean_text(f"Not done: {exc}"), style="bright_red")
            else:
                self.message = Text("Started: bots play the open seats.", style="green")
        self.refresh_info()
        self.redraw()

    async def action_bot(self) -> None:
        await self._act(self.link.hand_to_bot, "A bot plays {what} until {who} is back.")

    async def action_free(self) -> None:
        await self._act(self.link.free_seat, "{what}'s seat is open for a new player.")

    def action_close(self) -> None:
        self.dismiss(None)
