"""A server's records and its challenges, from its lobby (`R` and `d` there).

The records are the club's: per scenario and player count, the games the server verified, the
wins and the fastest win with the teams who did it (bots' games in rows of their own). The
challenges are today's and this week's, each with its set-up, seed and board (a try is a save
the server replayed: `cthulhu challenge HOST --submit FILE` sends one). Every name on them is
another player's text: cleaned, and drawn as plain text, never markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cthulhu.core import modes
from cthulhu.net import BoardMsg, ChallengesMsg, RecordRow, RecordsMsg, Rejected
from cthulhu.net import clean_name, clean_text

from ..english import and_list
from ..safe import safe_text

if TYPE_CHECKING:
    from ..lobbylink import LobbyLink


def _title(mode: str) -> str:
    return modes.get(mode).title if mode in modes.names() else clean_text(mode)


def record_text(row: RecordRow) -> Text:
    """Two lines: the scenario and player count, then games, wins, the fastest win and its teams."""
    who = f"{row.players} player{'s' if row.players != 1 else ''}" + (", with bots" if row.bots else "")
    out = Text(f"{_title(row.mode)}: {clean_text(row.about)} ({who})\n", style="bold")
    rate = f"{round(100 * row.wins / row.games)}%" if row.games else "-"
    out.append(f"    {row.games} game{'s' if row.games != 1 else ''}, {row.wins} won ({rate})")
    if row.fastest is not None:
        teams = "; ".join(and_list(clean_name(name) or "?" for name in team) for team in row.teams)
        out.append(f", fastest win {row.fastest} turn{'s' if row.fastest != 1 else ''}: ")
        out.append(teams, style="green")
    out.append("\n")
    return out


def records_text(answer: RecordsMsg) -> Text:
    out = Text()
    for row in answer.rows:
        out.append_text(record_text(row))
    if not answer.rows:
        out.append("No game has finished here yet.\n", style="dim")
    if answer.refused:
        out.append(f"{answer.refused} finished game{'s' if answer.refused != 1 else ''} left out: the save did not verify.\n", style="dim")
    return safe_text(out)


def challenges_text(listing: ChallengesMsg, shown: int, board: BoardMsg | None) -> Text:
    """Each challenge taking tries (the one shown marked), then the shown one's board."""
    out = Text()
    for n, row in enumerate(listing.rows):
        out.append(f"{'>' if n == shown else ' '} {row.id}", style="bold" if n == shown else "")
        out.append(f"  {_title(row.mode)}: {clean_text(row.about)}, seed {row.seed}\n")
        mine = f"your try: {row.mine.outcome} in {row.mine.turns} turns" if row.mine else "you have not tried it"
        out.append(f"    {row.first} to {row.last}; {row.entries} tr{'ies' if row.entries != 1 else 'y'}; {mine}\n", style="dim")
    if board is not None:
        out.append(f"\nThe board of {board.challenge}\n", style="bold")
        for entry in board.rows:
            rank = f"{entry.rank:>3}." if entry.rank is not None else " bot"
            out.append(f"{rank} ")
            out.append(clean_name(entry.name) or "?", style="bold")
            out.append(f": {entry.outcome} in {entry.turns} turns, {entry.rerolls} reroll{'s' if entry.rerolls != 1 else ''}\n")
        if not board.rows:
            out.append("Nobody has sent a try yet.\n", style="dim")
    return safe_text(out)


class _ClubScreen(ModalScreen[None]):
    """A dialog of what a server answered, asked again with `r`."""

    TITLE_TEXT = ""
    KEYS = "r ask again   escape: back"
    BINDINGS = [Binding("escape,q", "close", "Back"), Binding("r", "ask", "Ask again", show=False)]

    def __init__(self, link: LobbyLink) -> None:
        super().__init__()
        self.link = link
        self.body = Text("Asking the server...", style="dim")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.TITLE_TEXT, classes="title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(id="club-body")
            yield Static(Text(self.KEYS, style="dim"), classes="keys")

    def on_mount(self) -> None:
        self.show(self.body)
        self.action_ask()

    def show(self, body: Text) -> None:
        self.body = body
        self.query_one("#club-body", Static).update(body)

    def action_ask(self) -> None:
        self.ask()

    @work(exclusive=True, group="club", exit_on_error=False)
    async def ask(self) -> None:
        try:
            await self.fill()
        except Exception as exc:  # the server went away: said, and nothing stale is shown
            self.show(Text(clean_text(f"No answer from the server: {exc}"), style="bright_red"))

    async def fill(self) -> None:
        raise NotImplementedError

    def action_close(self) -> None:
        self.dismiss(None)


class RecordsScreen(_ClubScreen):
    """The club's records at this server."""

    TITLE_TEXT = "The club's records"

    async def fill(self) -> None:
        answer = await self.link.records()
        self.show(Text(clean_text(answer.reason), style="bright_red") if isinstance(answer, Rejected) else records_text(answer))


class ChallengesScreen(_ClubScreen):
    """Today's and this week's challenges, and the board of the one picked (up/down)."""

    TITLE_TEXT = "Challenges"
    KEYS = "up/down another challenge   r ask again   escape: back   (cthulhu challenge plays it; --submit sends your try)"
    BINDINGS = [*_ClubScreen.BINDINGS, Binding("up", "pick(-1)", "Previous", show=False), Binding("down", "pick(1)", "Next", show=False)]

    def __init__(self, link: LobbyLink) -> None:
        super().__init__(link)
        self.shown = 0
        self.listing: ChallengesMsg | None = None
        self.board: BoardMsg | None = None

    async def fill(self) -> None:
        listing = await self.link.challenges()
        if isinstance(listing, Rejected):
            self.show(Text(clean_text(listing.reason), style="bright_red"))
            return
        self.listing = listing
        self.shown = min(self.shown, max(0, len(listing.rows) - 1))
        board = await self.link.board(listing.rows[self.shown].id) if listing.rows else None
        self.board = board if isinstance(board, BoardMsg) else None
        self.show(challenges_text(listing, self.shown, self.board))

    def action_pick(self, step: int) -> None:
        if self.listing is not None and self.listing.rows:
            self.shown = (self.shown + step) % len(self.listing.rows)
            self.ask()
