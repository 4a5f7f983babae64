"""A table's `Host` run by trio in a thread of its own, beside a front end on another loop.

Textual runs on asyncio, the host on trio. They never share a loop or call each other: the
thread runs `trio.run` and the front end reaches the table only through a loopback socket,
exactly as a LAN peer would. Starting and stopping wait in a worker thread (`asyncio.to_thread`)
and cancelling is a thread-safe `run_sync_soon`, so nothing can deadlock (see DESIGN "Pitfalls").
Nothing here knows the interface: it raises its own errors and the front end words them.
"""

from __future__ import annotations

import asyncio
import shlex
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import trio

if TYPE_CHECKING:
    from .host import Host

T = TypeVar("T")
SURVIVAL_CHECK = 1.0  # seconds a dropped link waits to see whether the host's thread is ending
START_TIMEOUT = 10.0  # seconds `start` waits for the host to listen


class ThreadError(Exception):
    """The host's thread cannot do what was asked; the message says why in one line."""


class DidNotStart(ThreadError):
    """The host never listened (its port taken, its address wrong, its loop raised first)."""


class NotRunning(ThreadError):
    """The host's thread is not running (not started yet, or ended): it cannot be asked anything."""


class NotSaving(ThreadError):
    """This table keeps its game in memory only (`--no-save`)."""


def first_line(exc: BaseException) -> str:
    """An error's first line for a person: the one error inside trio's groups, its message's first
    line, else its type's name."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class ThreadedHost:
    """A table's `Host` (built by `open_table`) in a thread of its own, listening on `bind`:`port`.

    `hosting`: others join this table from elsewhere (`cthulhu host`); `doors` are the lines saying
    how they come in by `ssh` or a browser. `on_crash` is called from the host's thread with the
    error's first line when its loop raises after it started listening.
    """

    def __init__(self, host: Host, *, bind: str = "127.0.0.1", port: int = 0, hosting: bool = False, doors: tuple[str, ...] = ()) -> None:
        self.host = host
        self.bind = bind
        self.wanted_port = port
        self.hosting = hosting
        self.doors = doors
        self.port: int | None = None
        self.error: BaseException | None = None
        self.on_crash: Callable[[str], None] | None = None
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._thread = threading.Thread(target=self._run, name="cthulhu-host", daemon=True)

    # -- what a front end reads of its own table -----------------------------------------

    @property
    def seed(self) -> int:
        return self.host.game.setup.seed

    @property
    def table_id(self) -> str:
        return self.host.table_id

    @property
    def saving(self) -> bool:
        """The game is written to a save file (not `--no-save`)."""
        return self.host.saves.enabled

    @property
    def save_started(self) -> bool:
        """The save file exists: a new game's from its first move on."""
        return self.host.saves.started

    @property
    def save_trouble(self) -> str | None:
        """Why autosaving fails now (None: it works, or nothing is saved on purpose)."""
        return self.host.saves.trouble

    def on_save_trouble(self, call: Callable[[str | None], None]) -> None:
        """`call(reason)` from the host's thread when autosave fails, `call(None)` when it works again."""
        self.host.saves.on_trouble = call

    @property
    def save_path(self) -> Path | None:
        return self.host.saves.path

    @property
    def save_hint(self) -> str | None:
        """How to carry the game on later, when it is being saved."""
        path = self.save_path
        if path is None:
            return None
        from cthulhu.savegame.folder import save_name

        command = "host" if self.hosting else "play"
        return f"Carry the game on later with: cthulhu {command} --load {shlex.quote(save_name(path))}"

    def bot_kinds(self) -> dict[int, str | None]:
        """The kind of every seat a bot plays (as the host seated it)."""
        return {s.index: s.bot_kind for s in self.host.seats if s.kind == "bot"}

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    # -- the thread ------------------------------------------------------------------------

    def _run(self) -> None:
        async def main() -> None:
            self._token = trio.lowlevel.current_trio_token()
            with trio.CancelScope() as scope:
                self._scope = scope
                async with trio.open_nursery() as nursery:
                    self.port = await nursery.start(self.host.serve, self.wanted_port, self.bind)
                    self._ready.set()

        try:
            trio.run(main)
        except BaseException as exc:  # before it listens: start() reports it; after: `on_crash`
            self.error = exc
            if self.port is not None and self.on_crash is not None:
                self.on_crash(first_line(exc))
        finally:
            self._ready.set()

    async def start(self) -> int:
        """Start the thread; the port it listens on once it does (`DidNotStart` if it never does)."""
        self._thread.start()
        await asyncio.to_thread(self._ready.wait, START_TIMEOUT)
        if self.port is None:
            error = self.error
            while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
                error = error.exceptions[0]
            if isinstance(error, OSError):
                raise DidNotStart(f"cannot listen on {self.bind}:{self.wanted_port}: {error.strerror or error}")
            raise DidNotStart(f"the embedded host did not start: {error!r}")
        return self.port

    async def survives(self) -> bool:
        """Whether the host's thread is still running once it has had a moment to end (a connection
        of ours that dropped may be the first sign of its loop raising)."""
        if self._thread.is_alive():
            await asyncio.to_thread(self._thread.join, SURVIVAL_CHECK)
        return self._thread.is_alive() or self.error is None

    async def _in_host(self, call: Callable[..., T], *args: Any) -> T:
        """Run one of the host's own methods inside its trio thread (seat changes from the dialog)."""
        token = self._token
        if token is None or not self._thread.is_alive():
            raise NotRunning("the host is not running")
        return await asyncio.to_thread(lambda: trio.from_thread.run_sync(call, *args, trio_token=token))

    async def hand_to_bot(self, seat: int) -> None:
        await self._in_host(self.host.hand_to_bot, seat)

    async def start_with_bots(self) -> None:
        await self._in_host(self.host.start_with_bots)

    async def free_seat(self, seat: int) -> None:
        await self._in_host(self.host.free_seat, seat)

    async def stop(self) -> None:
        """Tell the joiners the table is closing, cancel the host, wait for the thread, write the
        final save (fsynced) and let the file go."""
        token, scope = self._token, self._scope
        if token is not None and self._thread.is_alive():

            def in_trio() -> None:
                trio.from_thread.run(self.host.close_table, trio_token=token)

            try:
                await asyncio.to_thread(in_trio)
            except (RuntimeError, trio.RunFinishedError):
                pass  # trio already finished
        if token is not None and scope is not None and self._thread.is_alive():
            try:
                token.run_sync_soon(scope.cancel)
            except RuntimeError:
                pass  # trio already finished
        if self._thread.is_alive():
            await asyncio.to_thread(self._thread.join, 5)
        await asyncio.to_thread(self.host.flush_log)
        self.host.saves.release()  # other processes may load the save now

    async def save(self) -> Path:
        """Write the save now, inside the host's own thread (it is the log's only user)."""
        path = self.save_path
        if path is None:
            raise NotSaving("This game is not being saved (--no-save).")
        try:
            await self._in_host(self.host.flush_log)
        except (NotRunning, RuntimeError, trio.RunFinishedError):
            await asyncio.to_thread(self.host.flush_log)  # the host has stopped: nobody else writes
        return path

    def abandon(self) -> None:
        """A table whose thread never started listening: let its save go (a new game's never-started
        file is removed, a loaded game's kept)."""
        self.host.saves.release()
        path = self.host.saves.path
        if path is not None and not isinstance(self.host.spec.start, Path):
            path.unlink(missing_ok=True)
