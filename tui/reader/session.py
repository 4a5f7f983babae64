"""The reader at a table: one trio connection per seat at this terminal, lines out, typed lines in.

Each local seat is a `PeerSession` on its own connection (the protocol's rule: one seat per
connection; hot-seat players each have one). The first connection tells the story; the others
only carry their seat's decisions. A lost connection to a host elsewhere is retried with the
seat token for `RECONNECT_FOR` seconds, as every joiner does; the reader's own host (`play`)
going away ends it.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import trio

from cthulhu.net import RECONNECT_FOR, ConnectionTrouble, PeerSession
from cthulhu.net import FrameError
from cthulhu.net import Chat, Delta, Error, GameOverMsg, Lobby, RecapMsg, Rejected, Table, Welcome
from cthulhu.net import clean_text, clean_tree
from cthulhu.net import TlsFailed

from ..modes import check_view, tui_mode
from ..who import BOT, playing
from . import teller
from .text import wrap
from .wire import Conn, Sitting, Where


@dataclass
class Hooks:
    """What the command around the reader does at a welcome (keep the seat token) and with a stale
    token (forget it); `comeback`: a line said when the reader leaves a game not over."""

    welcomed: Callable[[PeerSession, Welcome], None] = lambda session, welcome: None
    forget: Callable[[str], None] = lambda token: None
    comeback: Callable[[PeerSession], str | None] = lambda session: None
    lobby: bool = False  # a server's lobby answering is no refusal: the command opens it (`Reader.at_lobby`)


class Reader:
    """The table told in lines (`out` gets each, already wrapped to `width()` and cleaned)."""

    def __init__(self, where: Where, sittings: list[Sitting], *, out: Callable[[str], None], width: Callable[[], int],
                 content: Any, watch: bool = False, reconnect: bool = True, chat: bool = True, hooks: Hooks | None = None,
                 greeting: str | None = None) -> None:
        self.where = where
        self.out = out
        self.width = width
        self.content = content
        self.watch = watch
        self.reconnect = reconnect
        self.chat_ok = chat
        self.hooks = hooks or Hooks()
        self.greeting = greeting
        self.conns = [Conn(PeerSession(s.name, code=where.code, seat=s.seat, token=s.token, watch=watch, table_id=where.table,
                                        ident=where.ident), stored=s.stored) for s in sittings]
        self.status = 0
        self.at_lobby = False  # the address was a server's lobby, not a table (with `Hooks.lobby`)
        self._done = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._told_step = -1
        self._shown: int | None = None  # the prompt version whose choices were last said
        self._answered: int | None = None  # the prompt version a choice was sent for (its answer is on its way)
        self._waiting_for: int | None = None  # the seat last said to be deciding elsewhere
        self._started: bool | None = None
        self._greeted = False
        self._away: set[int] = set()  # our seats a stand-in plays, as last told
        self._idle = False  # the table paused for want of people, as last told
        self._opening: list[dict[str, Any]] = []  # the set-up's own events (a welcome at step 0), told at the greeting
        self._earlier: list[dict[str, Any]] = []  # the recap that came before the greeting

    # -- saying -------------------------------------------------------------

    def say(self, *texts: object, indent: str = "") -> None:
        width = self.width()
        for text in texts:
            for line in wrap(text, width, indent):
                self.out(line)

    @property
    def primary(self) -> PeerSession:
        return self.conns[0].session

    def _view(self, session: PeerSession | None = None) -> dict[str, Any] | None:
        """A mirrored view, checked against its mode's declared type (None: none yet, or one this
        version cannot read, which is said once)."""
        view = (session or self.primary).mirror.view
        if view is None:
            return None
        try:
            checked: dict[str, Any] = check_view(view)
        except ValueError as exc:
            self.say(f"The table sent a view this version cannot show: {str(exc).splitlines()[0]}")
            return None
        return checked

    def _names(self) -> dict[int, str]:
        table = self.primary.table
        return {s.seat: BOT if s.kind == "bot" else clean_text(s.name or "a player") for s in (table.seats if table else []) if s.kind != "open"}

    @property
    def local_seats(self) -> set[int]:
        return {c.session.seat for c in self.conns if c.session.seat is not None}

    # -- running --------------------------------------------------------------

    async def run(self, typed: AsyncIterator[str]) -> int:
        """Sit down at every seat, then tell the table and take typed lines until the game is over
        (and its dice checked), the player leaves, or the table goes away. The exit status."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            for n, conn in enumerate(self.conns):
                if not await self._sit(conn, primary=n == 0):
                    nursery.cancel_scope.cancel()
                    return self.status
            self._greet()
            self._prompt()
            nursery.start_soon(self._keys, typed)
            await self._done.wait()
            nursery.cancel_scope.cancel()
        return self.status

    def _finish(self, status: int) -> None:
        self.status = status
        self._done.set()

    async def _sit(self, conn: Conn, primary: bool) -> bool:
        """Connect `conn` and wait for its welcome; a stale stored token is dropped and tried without."""
        for _ in range(2):
            if not await self._connect(conn):
                return False
            assert self._nursery is not None
            self._nursery.start_soon(self._pump, conn, primary)
            await conn.settled.wait()
            closed = conn.session.closed
            if conn.was_up:
                return True
            await conn.drop()  # refused (a server's lobby keeps a connection open: we leave it)
            if closed is not None and closed.code == "bad_token" and conn.stored and conn.session.token:
                self.hooks.forget(conn.session.token)
                conn.session.token, conn.stored = None, False
                conn.session.restart()
                conn.settled = trio.Event()
                continue
            self.status = 1
            if closed is not None and closed.code == "server_lobby" and self.hooks.lobby:
                self.at_lobby = True
            elif closed is not None:
                self.say(f"Refused: {closed.reason}" if closed.code != "host_closed" else f"{closed.reason[:1].upper()}{closed.reason[1:]}.")
            else:
                self.say(f"The host at {self.where.address} closed the connection before seating us.")
            return False
        return False

    async def _connect(self, conn: Conn) -> bool:
        try:
            await conn.connect(self.where)
        except TlsFailed as exc:
            self.say(str(exc))
            self.status = 2
            return False
        except OSError as exc:
            why = "nothing is listening there" if isinstance(exc, ConnectionRefusedError) else exc.strerror or exc
            self.say(f"Cannot reach {self.where.address}: {why}.")
            self.status = 1
            return False
        return True

    async def _pump(self, conn: Conn, primary: bool) -> None:
        """Read `conn` until it ends, telling what it brings; then come back or stop."""
        while True:
            data = await conn.receive()
            if data:
                try:
                    messages = conn.session.receive_data(data)
                except FrameError as exc:  # the host's framing is broken: this connection is done
                    self.say(f"Bad data from the host ({exc}).")
                else:
                    await conn.flush()
                    self._heard(conn, messages, primary)
                    continue
            await conn.drop()
            if not await self._after_drop(conn, primary):
                conn.settled.set()
                return

    async def _after_drop(self, conn: Conn, primary: bool) -> bool:
        """The connection ended: True once a new one is up, False to stop reading it."""
        session = conn.session
        if not conn.was_up or session.game_over is not None or self._done.is_set():
            return False
        closed = session.closed
        if closed is not None and closed.code == "host_closed":
            if primary:
                self.say(f"{closed.reason[:1].upper()}{closed.reason[1:]}.")
                self._finish(1)
            return False
        if closed is not None and closed.code == "bad_token" and session.token:
            self.hooks.forget(session.token)
            session.token = None
            if primary:
                self.say("The host gave your seat up while you were away; joining again as a new player.")
        elif closed is not None:
            if primary:
                self.say(f"The host closed the connection: {closed.reason}")
                self._finish(1)
            return False
        if not self.reconnect:
            if primary:
                self.say("The table stopped: nothing more can be played here.")
                self._finish(1)
            return False
        if primary:
            self.say(f"Lost the connection to the host at {self.where.address}; reconnecting (your seat is kept).")

        def tried(attempt: int) -> None:
            if primary and attempt % 30 == 0:
                self.say(f"Still reconnecting to {self.where.address} (attempt {attempt})...")

        if await conn.come_back(self.where, tried):
            return True
        if primary:
            self.say(f"Gave up after {math.floor(RECONNECT_FOR / 60)} minutes: the host at {self.where.address} did not come back.")
            self._finish(1)
        return False

    # -- what the host says --------------------------------------------------------

    def _heard(self, conn: Conn, messages: list[Any], primary: bool) -> None:
        session = conn.session
        for msg in messages:
            if isinstance(msg, Welcome):
                back = conn.was_up
                conn.was_up = True
                conn.settled.set()
                self.hooks.welcomed(session, msg)
                self._table(msg.table, primary)
                if primary:
                    if back:
                        seat = "watching" if msg.seat is None else f"you play {self._playing([msg.seat])}"
                        self.say(f"Back at the table ({seat}).")
                        self._shown = None
                    elif msg.events:
                        self._told_step = max(self._told_step, 0)
                        self._opening = clean_tree(list(msg.events))
            elif isinstance(msg, Lobby):
                self._table(msg.table, primary)
            elif session.closed is not None and not conn.was_up:
                conn.settled.set()  # refused before sitting down: `_sit` says why
            elif isinstance(msg, Rejected):
                self.say(f"Refused: {msg.reason}")
                self._shown = self._answered = None  # the choices again
            elif isinstance(msg, Error) and msg.code == "rate_limited":
                self.say(f"The host says: {msg.reason}")
            elif not primary:
                continue
            elif isinstance(msg, Delta):
                self._told_step = msg.step
                self._tell(msg.events)
                if msg.stand_in and msg.cmd is not None:
                    self.say(f"(A stand-in bot decided that for {self._playing([int(msg.cmd[0])])}; it cannot be taken back.)")
            elif isinstance(msg, RecapMsg):
                self._recap(msg)
            elif isinstance(msg, Chat):
                self.say(f"<{clean_text(msg.name or '?')}> {clean_text(msg.text)}")
            elif isinstance(msg, GameOverMsg):
                self._over(session)
            elif isinstance(msg, ConnectionTrouble):
                self.say(f"A garbled message from the host: {msg.error}")
        if self._greeted:
            self._prompt()

    def _tell(self, events: list[dict[str, Any]], heading: str | None = None) -> None:
        view = self._view()
        if view is None or not events:
            return
        if heading:
            self.say(heading)
        self.say(*teller.told(clean_tree(list(events)), view))

    def _recap(self, msg: RecapMsg) -> None:
        """The story so far: the steps not told yet (all of them at a first welcome, those missed
        while the connection was down after)."""
        told = self._told_step
        events = [event for entry in msg.entries if len(entry) == 2 and isinstance(entry[0], int) and entry[0] > told
                  and isinstance(entry[1], list) for event in entry[1] if isinstance(event, dict)]
        self._told_step = max(told, msg.step)
        if not events:
            return
        if not self._greeted:
            self._earlier = events
        else:
            self._tell(events, "While you were away:")

    def _table(self, table: Table, primary: bool) -> None:
        """The seats: until every seat is taken nobody may act, which is said once the reader has
        greeted (hot-seat: every connection of this terminal is seated by then), and when it changes.
        (Another local connection's news only ever says the game has started.)"""
        if not primary and not table.started:
            return
        if primary:
            self._stood_in(table)
        before, self._started = self._started, table.started
        if not self._greeted or before == table.started:
            return
        self.say("Every seat is taken: the game begins." if table.started else self._waiting_line(table))

    def _stood_in(self, table: Table) -> None:
        """A turn clock gave a seat of ours to a stand-in, or paused the table for want of people:
        said when it starts, with the word that ends it."""
        away = {s.seat for s in table.seats if s.stand_in} & self.local_seats
        idle = bool(table.clock and table.clock.idle)
        if away - self._away:
            self.say(f"A stand-in bot plays {self._playing(away - self._away)} for now (the turn clock ran out); type back to play again.")
        if self._away - away:
            self.say(f"You play {self._playing(self._away - away)} again.")
            self._shown = None  # the choices again, if the decision is ours
        if idle and not self._idle:
            self.say("The table is paused until someone plays; type back to say you are here.")
        self._away, self._idle = away, idle

    def _waiting_line(self, table: Table) -> str:
        open_seats = [s.seat for s in table.seats if s.kind == "open"]
        who = f": nobody plays {self._playing(open_seats)} yet" if open_seats else ""
        return f"Waiting for players before the game starts{who}."

    def _greet(self) -> None:
        """Once every seat is taken: who plays what, the story so far, then the choices."""
        view = self._view()
        self._greeted = True
        if self.greeting:
            self.say(self.greeting)
        if view is not None:
            mode = tui_mode(view["mode"])
            if self.local_seats:
                self.say(f"{mode.title(view)}: you play {self._playing(sorted(self.local_seats))}. "
                         "Type a choice's number and press Enter; ? for help.")
            else:
                self.say(f"{mode.title(view)}: you are watching{'' if self.watch else ' (every seat is taken)'}. ? for help.")
        if self._started is False and self.primary.table is not None:
            self.say(self._waiting_line(self.primary.table))
        opening, self._opening = self._opening, []
        earlier, self._earlier = self._earlier, []
        self._tell(opening)
        step = view.get("step") if view is not None else None
        self._tell(earlier, f"The story so far (up to step {step}):" if step else None)
        if self.primary.game_over is not None:
            self._over(self.primary)

    def _playing(self, seats: list[int] | set[int]) -> str:
        view = self.primary.mirror.view or {}
        return " and ".join(playing(view, s) for s in sorted(seats)) or "nobody"

    def _deciding(self) -> tuple[Conn | None, dict[str, Any] | None]:
        """The local connection whose seat decides now and its prompt (its mirror in step with the
        first's), else (None, the prompt being decided elsewhere)."""
        view = self.primary.mirror.view
        prompt = view.get("prompt") if view is not None and not view.get("outcome") else None
        if prompt is None:
            return None, None
        for conn in self.conns:
            if conn.session.seat == prompt.get("seat"):
                mine = conn.session.my_prompt
                if mine is None or conn.session.mirror.seq != self.primary.mirror.seq:
                    return conn, None  # its own view has not caught up yet
                return conn, mine
        return None, prompt

    def _prompt(self, again: bool = False) -> None:
        """Say the choices when a new decision is this terminal's, or once who is deciding elsewhere."""
        if self.primary.game_over is not None or self._started is False:
            return
        conn, prompt = self._deciding()
        if prompt is None:
            return
        if conn is None:
            seat = int(prompt["seat"])
            table = self.primary.table
            person = table is not None and any(s.seat == seat and s.kind == "human" for s in table.seats)
            view = self._view()
            if view is not None and (again or (person and seat != self._waiting_for)):
                self.say(teller.waiting(prompt, view, self._names()))
            self._waiting_for = seat
            return
        if prompt["version"] == self._shown and not again or conn.session.seat in self._away:
            return  # said already, or a stand-in decides for that seat now (`back` takes it again)
        view = self._view(conn.session)
        if view is None:
            return
        self._shown, self._waiting_for = prompt["version"], None
        whose = playing(view, int(prompt["seat"])) if len(self.conns) > 1 else None
        question, *options, last = teller.choices(prompt, view, self.width(), whose)
        self.say(question)
        self.say(*options, indent="  ")
        self.say(last)

    def _over(self, session: PeerSession) -> None:
        """The end: how it went, then every roll checked against the revealed seed."""
        view = self._view()
        if view is not None:
            self.say(*teller.ending(view))
        over = session.game_over
        assert over is not None and self._nursery is not None
        self.say(f"The game's seed was {over.seed}: checking every roll against it...")
        self._nursery.start_soon(self._check_dice, session)

    async def _check_dice(self, session: PeerSession) -> None:
        verdict = await trio.to_thread.run_sync(session.verify_dice)
        if verdict is not None:
            self.say(f"Dice: {verdict.message}." if verdict.verified else f"Dice NOT verified: {verdict.message}")
        if verdict is not None and verdict.luck is not None:  # from the same replay: how the dice fell, as the game-over dialog says
            self.say("How the dice fell:")
            self.say(*verdict.luck.lines(), indent="  ")
        self._finish(0)

    # -- what the player types --------------------------------------------------------

    async def _keys(self, typed: AsyncIterator[str]) -> None:
        async for line in typed:
            if not await self.typed(line.strip()):
                break
        else:
            self.say("(The input ended: leaving the table.)")
        self._leave()

    def _leave(self) -> None:
        comeback = self.hooks.comeback(self.primary) if self.primary.game_over is None else None
        if comeback:
            self.say(comeback)
        self._finish(self.status)

    async def typed(self, line: str) -> bool:
        """Do what one typed line asks; False to leave the table."""
        if not line:
            return True
        word, _, rest = line.partition(" ")
        key = word.lower()
        if line.isdigit():
            await self._choose(int(line))
        elif key in ("q", "quit"):
            return False
        elif key in ("p", "choices"):
            self._shown = None
            if self._deciding()[1] is None:
                self.say("Nothing is being decided just now.")
            self._prompt(again=True)
        elif key in ("b", "board"):
            view = self._view(self._seeing())
            if view is not None:
                self.say(*teller.board(view, self.width()))
        elif key in ("m", "map"):
            view = self._view(self._seeing())
            if view is not None:
                self.say(*teller.drawn_map(view, self.width()))
        elif key in ("a", "odds"):
            view = self._view(self._seeing())
            if view is not None:
                self.say(*teller.odds(view, self.content, self._advice()))
        elif key in ("?", "h", "help"):
            self.say(*teller.help_lines(self._view(), self.content))
        elif key in ("u", "undo"):
            await self._undo()
        elif key == "back":
            await self._back()
        elif key in ("c", "say"):
            await self._chat(rest)
        else:
            self.say(f"Unknown key {clean_text(word)!r}: type a choice's number, or ? for help.")
        return True

    def _seeing(self) -> PeerSession:
        """The session whose view the board and odds are told from: the deciding local seat's."""
        conn, prompt = self._deciding()
        return conn.session if conn is not None and prompt is not None else self.primary

    def _advice(self) -> bool:
        setup = self.primary.record.setup
        return not (isinstance(setup, dict) and setup.get("advice") == "off")

    async def _choose(self, number: int) -> None:
        conn, prompt = self._deciding()
        if conn is None or prompt is None or prompt["version"] != self._shown or prompt["version"] == self._answered:
            self.say("Nothing for you to choose just now." if conn is None else "Wait a moment: the choices are on their way.")
            return
        options = prompt["options"]
        if not 1 <= number <= len(options):
            self.say(f"There is no choice {number}: type 1 to {len(options)} (p says them again).")
            return
        conn.session.send_command(options[number - 1]["command"], prompt["version"])
        self._answered = prompt["version"]  # sent: the next decision's choices follow (a refusal says these again)
        await conn.flush()

    async def _undo(self) -> None:
        conn, prompt = self._deciding()
        if conn is None or prompt is None or prompt["version"] == self._answered or not int(prompt.get("undo") or 0):
            self.say("Nothing of yours can be taken back just now.")
            return
        conn.session.send_undo(prompt["version"])
        self._answered = prompt["version"]
        await conn.flush()

    async def _back(self) -> None:
        """Take our seats back from their stand-ins, or wake a paused table (`Back`, as `b` does in the app)."""
        if not (self._away or self._idle):
            self.say("Nothing to come back to: your seats are yours.")
            return
        for conn in self.conns:
            if conn.session.seat is not None and (conn.session.seat in self._away or self._idle):
                conn.session.send_back()
                await conn.flush()

    async def _chat(self, text: str) -> None:
        if not self.chat_ok:
            self.say("Nobody else is at this table to hear it.")
        elif not text.strip():
            self.say("Type c, a space, then what to say.")
        else:
            self.conns[0].session.chat(text)
            await self.conns[0].flush()
