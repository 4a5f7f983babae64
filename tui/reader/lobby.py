"""The reader's lobby at a server of many tables (`join --reader` without `--table`, and the doors
of `cthulhu server` in reader mode): what the app's lobby screen offers, as plain lines.

The tables are a numbered list (the words of `cthulhu tables`); a number sits at one, `j ID CODE`
at any by its id (a private table's code with it), `n` makes one (the game, its seats and its bots
asked for as numbered questions, the rest the mode's defaults), `r` says the club's records, `d`
the challenges and their boards (a challenge is played alone, with `cthulhu challenge`). The
lobby only chooses: the table itself is the `Reader`'s, and the command comes back here when the
player leaves it or its game ends. Every question is answered by one typed line, so a pipe, a
screen reader and a browser tab's text box drive it alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

import trio

from cthulhu.core import modes
from cthulhu.net import BoardMsg, Created, Rejected, TrioLobby, board_words, challenge_words, clean_text, record_line, table_lines

SEATS_MAX = 5
BOARD_SHOWN = 10  # the best tries said of each challenge's board
ID_MAX, CODE_MAX = 32, 64  # what a hello takes (net.messages' TableId and Secret)
KEYS_HELP = [
    "A table's number, then Enter: sit at it (or watch it, when every seat is taken).",
    "j, a space, a table's id: sit at that table (a private table's code after its id).",
    "n: make a new table (you choose the game, the seats and the bots).",
    "l: list the tables again.",
    "r: the club's records.",
    "d: the challenges taking tries now, and their boards.",
    "?: this help.",
    "q: leave the server.",
]


@dataclass(frozen=True)
class Chosen:
    """The table to sit at: its id, and a private table's code."""

    table: str
    code: str | None = None


def title_of(mode: str) -> str:
    return modes.get(mode).title if mode in modes.names() else mode


class ReaderLobby:
    """One visit to the lobby: `choose()` talks until a table is chosen or the player leaves."""

    def __init__(self, lobby: TrioLobby, say: Callable[[str], None], typed: trio.MemoryReceiveChannel[str], *,
                 address: str, idle: float | None = None) -> None:
        self.lobby = lobby
        self.say = say
        self.typed = typed
        self.address = address
        self.idle = idle
        self.rows: list[Chosen] = []  # the tables listed, in their numbers' order

    async def choose(self, first: bool = True) -> Chosen | None:
        """The table the player chose or made; None once they leave (q, the input's end, or no key
        for `idle` seconds)."""
        welcome = self.lobby.client.welcome
        if first and welcome is not None:
            self.say(f"The lobby of {clean_text(welcome.server)} at {self.address}: you are {clean_text(welcome.name)} here. ? for help.")
        await self.list_tables()
        while True:
            line = await self._line()
            if line is None:
                return None
            word, _, rest = line.partition(" ")
            key = word.lower()
            if line.isdigit():
                n = int(line)
                if 1 <= n <= len(self.rows):
                    return self.rows[n - 1]
                self.say(f"There is no table {n}: " + (f"type 1 to {len(self.rows)}, or l to list them again." if self.rows else "n makes one."))
            elif key in ("q", "quit"):
                return None
            elif key in ("j", "join"):
                table, _, code = rest.strip().partition(" ")
                code = code.strip()
                if table and len(table) <= ID_MAX and len(code) <= CODE_MAX:
                    return Chosen(table, code or None)
                self.say("Type j, a space, then the table's id (and a private table's code after it)."
                         if not table else "That is no table's id and code: ids are at most 32 characters, codes 64.")
            elif key in ("n", "new"):
                made = await self._new_table()
                if made is not None:
                    return made
            elif key in ("l", "list"):
                await self.list_tables()
            elif key in ("r", "records"):
                await self._records()
            elif key in ("d", "challenges"):
                await self._challenges()
            elif key in ("?", "h", "help"):
                self.say("Lobby keys:")
                for text in KEYS_HELP:
                    self.say(text)
            else:
                self.say(f"Unknown key {clean_text(word)!r}: type a table's number, or ? for help.")

    async def _line(self) -> str | None:
        """The next typed line, stripped (blank ones skipped); None at the input's end or after `idle`."""
        with trio.move_on_after(self.idle if self.idle is not None else float("inf")):
            while True:
                try:
                    line = (await self.typed.receive()).strip()
                except trio.EndOfChannel:
                    self.say("(The input ended: leaving the server.)")
                    return None
                if line:
                    return line
        minutes = round((self.idle or 0) / 60)
        self.say(f"No key for {minutes} minute{'s' if minutes != 1 else ''}: leaving the lobby.")
        return None

    async def list_tables(self) -> None:
        """The tables still in play, numbered; the finished ones only counted."""
        rows = await self.lobby.everything()
        live = [row for row in rows if not row.finished]
        self.rows = [Chosen(row.id, row.code) for row in live]  # (a private table's code is told to its creator)
        done = len(rows) - len(live)
        ended = f" ({done} finished table{'s' if done != 1 else ''} not listed)" if done else ""
        if not live:
            self.say(f"No tables in play here{ended}. Type n to make one.")
            return
        self.say(f"{len(live)} table{'s' if len(live) != 1 else ''} in play{ended}:")
        now = datetime.now(timezone.utc)
        for n, row in enumerate(live, 1):
            first, seats = table_lines(row, title_of(row.mode), now)
            self.say(f"{n}. {first}")
            self.say(f"   {seats}")
        self.say(f"Type {'1' if len(live) == 1 else f'1 to {len(live)}'} to sit at one, n for a new table, ? for help.")

    async def _records(self) -> None:
        answer = await self.lobby.records()
        if isinstance(answer, Rejected):
            self.say(f"The server refused: {clean_text(answer.reason)}")
            return
        if not answer.rows:
            self.say("The club's records: no games finished here yet.")
        else:
            self.say("The club's records:")
        for row in answer.rows:
            self.say(record_line(row, title_of(row.mode)))
        if answer.refused:
            self.say(f"{answer.refused} finished game{'s' if answer.refused != 1 else ''} left out: the save did not verify.")

    async def _challenges(self) -> None:
        answer = await self.lobby.challenges()
        if isinstance(answer, Rejected):
            self.say(f"The server refused: {clean_text(answer.reason)}")
            return
        self.say(f"The challenges taking tries on {answer.today} (play one alone with cthulhu challenge, then send its save):")
        for row in answer.rows:
            self.say(challenge_words(row, title_of(row.mode)))
            board = await self.lobby.board(row.id)
            if isinstance(board, BoardMsg):
                for entry in board.rows[:BOARD_SHOWN]:
                    self.say(board_words(entry))
                if board.total > BOARD_SHOWN:
                    self.say(f"  and {board.total - BOARD_SHOWN} more")

    async def _ask(self, question: str, options: list[str]) -> int | None:
        """A numbered question: the option chosen (0-based); None if the player typed q or nothing came."""
        self.say(question)
        for n, option in enumerate(options, 1):
            self.say(f"  {n}. {option}")
        while True:
            self.say(f"Choose 1 to {len(options)} (q: back to the lobby)." if len(options) > 1 else "Choose 1 (q: back to the lobby).")
            line = await self._line()
            if line is None or line.lower() in ("q", "quit"):
                return None
            if line.isdigit() and 1 <= int(line) <= len(options):
                return int(line) - 1
            self.say(f"There is no choice {clean_text(line)!r}.")

    async def _new_table(self) -> Chosen | None:
        """Ask the game, the seats and the bots; make the table; the table made (None: given up)."""
        names = list(modes.names())
        mode = await self._ask("A new table: which game?", [title_of(name) for name in names])
        if mode is None:
            return self._back()
        seats = await self._ask("How many seats?", [f"{n} seat{'s' if n != 1 else ''}" for n in range(1, SEATS_MAX + 1)])
        if seats is None:
            return self._back()
        bots = 0
        if seats > 0:  # (one seat is yours)
            asked = await self._ask("How many of the other seats do bots play?", ["none", *(f"{n} bot{'s' if n != 1 else ''}" for n in range(1, seats + 1))])
            if asked is None:
                return self._back()
            bots = asked
        answer = await self.lobby.create(mode=names[mode], options={}, seats=seats + 1, bots=bots)
        if isinstance(answer, Rejected):
            self.say(f"The server refused: {clean_text(answer.reason)}")
            return None
        assert isinstance(answer, Created)
        self.say(f"Table {answer.id} made" + (f" (private, code {answer.code})" if answer.code else "") + ": sitting down.")
        return Chosen(answer.id, answer.code)

    def _back(self) -> Chosen | None:
        """A question given up: no table, and the lobby again."""
        self.say("No table made.")
        return None

