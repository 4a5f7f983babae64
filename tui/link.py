"""How the app reaches a table: one small async interface, two ways to implement it.

The app never touches a `Game` itself. It asks a `TableLink` to send a command
and reads `Update`s (a full view plus the events that led to it) from
`updates()`. `LocalLink` wraps a `Game` in this process (tests, and play before
the network lands); a network link speaks the protocol to a host. Both deliver
the same updates, so the screens cannot tell them apart.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Protocol

from cthulhu.core import Command, Game, Rejected, Setup

from .english import plural
from .who import BOT, playing


@dataclass(frozen=True, slots=True)
class Update:
    """What the table looks like now, and why it changed.

    `view` is a full per-seat view (a plain dict). `events` are wire dicts.
    `rejected` is the engine's reason when our own command was refused (then the
    view is unchanged). `chat` is (name, text) for a chat line. `notice` is a
    line about the link itself for the Log (saved, reconnected...), also shown as a
    notification when it is a `headline` (something not to miss). `status`
    is the link's state while it cannot play (reconnecting...): shown in place
    of the choices until an update without it arrives. `warning` is something
    the player must not miss (the game is not being saved where they think).
    `earlier` are events from before this link reached the table (a loaded game, a
    joiner or a player back from a dropped connection): the story so far, for the Log only.
    """

    view: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    earlier: list[dict[str, Any]] = field(default_factory=list)
    rejected: str | None = None
    chat: tuple[str, str] | None = None
    notice: str | None = None
    status: str | None = None
    warning: str | None = None
    headline: bool = False


class SaveUnavailable(Exception):
    """`save()` cannot save this game here; the message tells the player why (and who can)."""


NOTHING_YET = "Nothing to save yet: the game is saved from its first move on."


class TableLink(Protocol):
    """The app's only way to the game."""

    local_seats: frozenset[int]
    """Seats this terminal may decide for (hot-seat: several)."""

    seed: int | None
    """Shown on screen so a game can be replayed; None when the host keeps it secret."""

    def seat_names(self) -> dict[int, str]:
        """Who sits at each seat as this terminal knows it: a person's name, or `who.BOT`; a seat
        not listed has nobody named (this terminal's own, an open one). See `who.player`."""

    async def open(self) -> Update: ...
    async def send(self, seat: int, command: dict[str, Any], version: int | None) -> None: ...
    async def undo(self, seat: int, version: int | None) -> None:
        """Take back `seat`'s last decision; the table answers with an update (or a refusal)."""
    def updates(self) -> AsyncIterator[Update]: ...
    async def chat(self, text: str) -> None: ...
    async def save(self) -> str | None: ...  # the file written; raises SaveUnavailable
    async def close(self) -> None: ...
    def play_again(self) -> str | None:
        """The `cthulhu play` line that starts this table again (`net.playagain`); None until the seed is known."""


class QueuedUpdates:
    """The `updates()` stream of a link that posts its Updates on a queue (None ends it)."""

    _queue: asyncio.Queue[Update | None]

    async def updates(self) -> AsyncIterator[Update]:
        while True:
            update = await self._queue.get()
            if update is None:
                return
            yield update


class _Autosave:
    """The save file written after every command, if the saves module is installed."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer

    @classmethod
    def start(cls, game: Game, folder: Path, stem: str) -> "_Autosave":
        from cthulhu.net.savedir import new_save_path
        from cthulhu.net.savewriter import SaveWriter

        path = new_save_path(folder, stem)
        return cls(SaveWriter(path, game, fsync=False))

    @classmethod
    def resume(cls, path: Path, save: Any, game: Game) -> "_Autosave":
        from cthulhu.net.savewriter import SaveWriter

        return cls(SaveWriter.resume(path, save, game, fsync=False))

    @property
    def path(self) -> Path:
        return Path(self.writer.path)

    @property
    def started(self) -> bool:
        """Anything on disk to carry on: nothing before a new game's first command."""
        return bool(self.writer.started)

    def record_bots(self, kinds: dict[int, str]) -> None:
        """Which seats bots play, in the save's header (written with the next step), so a load seats them again."""
        self.writer.set_players([{"seat": seat, "name": f"{kind} bot", "bot": kind} for seat, kind in sorted(kinds.items())])

    def record(self, seat: int, command: Command, state_hash: str) -> None:
        self.writer.append(seat, command.wire(), state_hash)

    def truncate(self, step: int) -> None:
        self.writer.truncate(step)

    def flush(self) -> None:
        self.writer.fsync = True
        self.writer.write()

    def close(self) -> None:
        self.writer.close()


def play_hint(path: Path) -> str:
    import shlex

    from cthulhu.net.savedir import save_name

    return f"Carry the game on later with: cthulhu play --load {shlex.quote(save_name(path))}"


def save_trouble_notice(reason: str | None) -> str:
    """What the player reads when autosaving fails (`reason`) or works again (None)."""
    if reason is None:
        return "Autosave works again: the save holds every step."
    return f"Autosave failed ({reason}); the game goes on and every move tries again."


def load_game(path: str | Path) -> tuple[Game, Any]:
    """A saved game replayed and verified to its last step (raises the saves module's errors)."""
    from cthulhu.net.savefile import load
    from cthulhu.net.savereplay import resume

    save = load(path)
    return resume(save), save


class LocalLink(QueuedUpdates):
    """A table in this process: the `Game` itself, bots, hot-seat players and autosave.

    Bots sit at `bot_seats`; after every human command they play until a human
    seat must decide, each of their commands producing its own update so the
    log tells what they did.
    """

    def __init__(
        self,
        game: Game,
        *,
        local_seats: frozenset[int] | None = None,
        bot_seats: dict[int, str] | None = None,
        autosave: _Autosave | None = None,
        bot_delay: float = 0.0,
        recap: Any = None,
    ) -> None:
        from cthulhu.core.bots import make_bot

        self.game = game
        self.recap = recap  # a loaded game's story so far (`net.recap.Recap`), told when the link opens
        self.bot_delay = bot_delay
        seats = set(range(game.setup.players))
        self.bot_kinds = dict(bot_seats or {})  # seat -> the kind of bot that plays it
        self.bots = {seat: make_bot(kind, game.setup.mode, game.setup.seed + seat) for seat, kind in self.bot_kinds.items()}
        self.local_seats = frozenset(local_seats if local_seats is not None else seats - set(self.bots))
        self.seed: int | None = game.setup.seed
        self.autosave = autosave
        self._save_trouble = False
        self.warning: str | None = None  # told with the first update (an unwritable saves folder)
        self._queue: asyncio.Queue[Update | None] = asyncio.Queue()
        self._closed = False

    @classmethod
    def new(
        cls,
        setup: Setup,
        *,
        bots: int = 0,
        bot_kind: str = "heuristic",
        saves_dir: Path | None = None,
        bot_delay: float = 0.0,
    ) -> "LocalLink":
        """A fresh game; the last `bots` seats are played by bots (a move every `bot_delay` seconds);
        autosaved into `saves_dir` if given."""
        from cthulhu.net.savedir import autosave_folder

        game = Game.new(setup)
        kinds = last_seats(game, bots, bot_kind)
        folder, warning = autosave_folder(saves_dir) if saves_dir else (None, None)
        autosave = _Autosave.start(game, folder, f"{setup.mode}-{setup.seed}") if folder else None
        if autosave is not None:
            autosave.record_bots(kinds)
        link = cls(game, bot_seats=kinds, autosave=autosave, bot_delay=bot_delay)
        link.warning = warning
        return link

    @classmethod
    def load(cls, path: str | Path, *, bot_delay: float = 0.0) -> "LocalLink":
        """A saved game carried on: the seats its bots played are theirs again (the save's header says which),
        and its story so far is replayed from its commands for the Log."""
        from cthulhu.net.recap import Recap

        game, save = load_game(path)
        autosave = _Autosave.resume(Path(path), save, game)
        kinds = {seat: usable_bot(kind, game.setup.mode) for seat, kind in save.header.bot_seats().items()}
        autosave.record_bots(kinds)
        recap = Recap.replayed(game, [(entry.seat, entry.command) for entry in save.steps])
        return cls(game, bot_seats=kinds, autosave=autosave, bot_delay=bot_delay, recap=recap)

    def play_again(self) -> str | None:
        from cthulhu.net.playagain import play_again_command

        return play_again_command(self.game.setup, self.bot_kinds)

    @property
    def label(self) -> str:
        """What the title bar calls this table: 'solo', or '2 here, 1 bot'."""
        return table_label(len(self.local_seats), len(self.bots))

    @property
    def viewer(self) -> int:
        """The seat whose view we show: the deciding seat if it is ours, else our first seat."""
        prompt = self.game.prompt
        if prompt is not None and prompt.seat in self.local_seats:
            return prompt.seat
        return min(self.local_seats) if self.local_seats else 0

    def _view(self) -> dict[str, Any]:
        return self.game.view(self.viewer)

    async def open(self) -> Update:
        events = [e.wire() for e in self.game.start_events] if self.game.step == 0 else []
        earlier = self.recap.events() if self.recap is not None and self.game.step > 0 else []
        first = Update(self._view(), events, earlier=earlier, warning=self.warning)
        await self._run_bots()
        return first

    def seat_names(self) -> dict[int, str]:
        return {seat: BOT for seat in self.bots}

    def _not_here(self, seat: int) -> Update:
        view = self._view()
        return Update(view, rejected=f"{playing(view, seat)} is not played at this terminal")

    async def send(self, seat: int, command: dict[str, Any], version: int | None) -> None:
        if seat not in self.local_seats:
            await self._queue.put(self._not_here(seat))
            return
        try:
            cmd = Command.from_wire(command)
            events = self.game.apply(seat, cmd, version)
        except Rejected as exc:
            await self._queue.put(Update(self._view(), rejected=str(exc)))
            return
        self._record(seat, cmd)
        await self._queue.put(Update(self._view(), [e.wire() for e in events]))
        await self._run_bots()

    async def undo(self, seat: int, version: int | None) -> None:
        """Take back `seat`'s last decision (the game refuses across a reveal); the save follows."""
        if seat not in self.local_seats:
            await self._queue.put(self._not_here(seat))
            return
        try:
            events = self.game.undo(seat, 1, version)
        except Rejected as exc:
            await self._queue.put(Update(self._view(), rejected=str(exc)))
            return
        self._record(seat, None)
        await self._queue.put(Update(self._view(), [e.wire() for e in events]))

    def _record(self, seat: int, cmd: Command | None) -> None:
        """Autosave one step (`cmd`), or a take-back (None: the save is cut back to the game as it stands)."""
        if self.autosave is None:
            return
        try:
            if cmd is None:
                self.autosave.truncate(self.game.step)
            else:
                self.autosave.record(seat, cmd, self.game.state_hash())
        except Exception as exc:  # a full disk must not end the game: say so once, retry every step
            if not self._save_trouble:
                self._save_trouble = True
                self._queue.put_nowait(Update(self._view(), notice=save_trouble_notice(str(exc))))
            return
        if self._save_trouble:
            self._save_trouble = False
            self._queue.put_nowait(Update(self._view(), notice=save_trouble_notice(None)))

    async def _run_bots(self) -> None:
        while self.game.outcome is None:
            prompt = self.game.prompt
            if prompt is None or prompt.seat not in self.bots:
                return
            await self.pace()
            if self._closed:
                return
            cmd = self.bots[prompt.seat].choose(self.game, prompt.seat)
            events = self.game.apply(prompt.seat, cmd)
            self._record(prompt.seat, cmd)
            await self._queue.put(Update(self._view(), [e.wire() for e in events]))

    async def pace(self) -> None:
        """The wait before a bot's move: a pace people can follow (each move is its own update, told in the Log)."""
        await asyncio.sleep(self.bot_delay)

    async def chat(self, text: str) -> None:
        await self._queue.put(Update(self._view(), chat=("you", text)))

    @property
    def comeback(self) -> str | None:
        """One line for after the game closes: how to carry on."""
        saved = self.autosave
        return play_hint(saved.path) if saved is not None and saved.started and self.game.outcome is None else None

    async def save(self) -> str | None:
        """Write the save now and return its file name."""
        if self.autosave is None:
            raise SaveUnavailable("This game is not being saved.")
        if not self.autosave.started:
            raise SaveUnavailable(NOTHING_YET)
        self.autosave.flush()
        return str(self.autosave.path)

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self.autosave is not None:
                try:
                    self.autosave.flush()
                except Exception:
                    pass
                self.autosave.close()
            await self._queue.put(None)


def last_seats(game: Game, bots: int, kind: str) -> dict[int, str]:
    """The last `bots` seats, each with the kind of bot that plays it (one the mode has)."""
    if bots <= 0:
        return {}
    seats = list(range(game.setup.players))
    if bots >= len(seats):
        raise ValueError(f"{plural(bots, 'bot')} would leave no seat for a person ({plural(len(seats), 'seat')} at this table)")
    kind = usable_bot(kind, game.setup.mode)
    return {seat: kind for seat in seats[-bots:]}


def table_label(here: int, bots: int) -> str:
    """'solo' for one seat at this terminal and no bots, else '2 here, 1 bot'."""
    return "solo" if here <= 1 and not bots else f"{here} here, {plural(bots, 'bot')}"


def usable_bot(kind: str, mode: str) -> str:
    """`kind` if `mode` has such a bot, else the random bot (every mode has that)."""
    from cthulhu.core import modes

    return kind if kind in modes.get(mode).bot_kinds else "random"
