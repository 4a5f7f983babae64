"""Both front doors on one asyncio loop in a thread of their own, beside whatever runs the host.

The host may be a headless trio program or the hosting player's Textual app;
either way it only calls `start()` (binds the ports, returns the lines to
print), `open_table()` once its game port listens, and `stop()`. The doors
never call into the host: their visitors reach it through its port.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cthulhu.net import join_address

from .admission import Admission
from .zygote import Zygote

if TYPE_CHECKING:
    from .ssh import SSHDoor
    from .web import WebDoor


class DoorError(Exception):
    """A door could not open (a port in use, an unusable host key, a broken installation)."""


def incomplete(option: str, exc: ImportError) -> str:
    """asyncssh and textual-serve are ordinary dependencies: missing, the installation is broken."""
    return f"{option} cannot start: this installation of cthulhu is incomplete ({exc}); install it again"


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a visitor's interface: the host's, minus its own terminal's settings."""
    source = dict(os.environ) if base is None else base
    env = {k: v for k, v in source.items() if not k.startswith(("TEXTUAL", "TMUX", "TERM", "COLORTERM", "COLUMNS", "LINES", "SSH_", "CTHULHU_"))}
    if "UTF-8" not in (env.get("LC_ALL") or env.get("LANG") or "").upper().replace("UTF8", "UTF-8"):
        env["LANG"] = "C.UTF-8"
        env.pop("LC_ALL", None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def visitors_folder(data_dir: Path, table: str) -> Path:
    """Where a saved table keeps its visitors' data folders (their seat tokens), by table id."""
    return data_dir / "visitors" / "".join(c for c in table if c.isalnum())[:32]


class FrontDoors:
    """`--ssh PORT` and/or `--web PORT` for one table."""

    def __init__(
        self,
        *,
        bind: str,
        code: str | None,
        ssh_port: int | None = None,
        web_port: int | None = None,
        data_dir: Path | None = None,
        table: str | None = None,
        keep: bool = False,
        admission: Admission | None = None,
        caps: dict[str, Any] | None = None,
    ) -> None:
        """`table`, `keep`: a saved table keeps its visitors' seat tokens in `data_dir` under its
        table id, so they take their seats back after `host --load`; otherwise they go with the host.
        `caps`: the `Admission`'s caps and options other than the defaults (a server's lobby)."""
        if data_dir is None:
            from cthulhu.savegame.folder import user_data_dir

            data_dir = user_data_dir()
        if admission is None:
            if keep and table:
                admission = Admission(code=code, folder=visitors_folder(data_dir, table), kept=True, **(caps or {}))
            else:
                admission = Admission(code=code, **(caps or {}))
        self.bind = bind
        self.ssh_port = ssh_port
        self.web_port = web_port
        self.data_dir = data_dir
        self.admission = admission
        self.ssh: SSHDoor | None = None
        self.web: WebDoor | None = None
        self.zygote: Zygote | None = None
        self.fingerprint: str | None = None
        self.lines: list[str] = []
        self.error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cthulhu-doors", daemon=True)

    @property
    def visitors(self) -> int:
        """How many visitors' interfaces may be connected to the host at once (all from loopback)."""
        return self.admission.max_sessions

    # -- called from the host's side (any thread) -------------------------------

    def start(self, timeout: float = 20) -> list[str]:
        """Open the doors; the lines tell visitors how to come in. Raises `DoorError`."""
        self._thread.start()
        self._ready.wait(timeout)
        if self.error is not None or not self._ready.is_set():
            self.stop()
            raise DoorError(str(self.error) if self.error else "the front doors did not open in time")
        return self.lines

    def open_table(self, host: str, port: int) -> None:
        """Where visitors' interfaces connect: the host's game port (on loopback when it listens on all)."""
        if host in ("0.0.0.0", ""):
            host = "127.0.0.1"
        elif host == "::":
            host = "::1"
        self.admission.table = (host, port)

    def warm(self, timeout: float = 30) -> None:
        """Wait until visitors' interfaces start warm (the zygote has imported everything); the doors
        take visitors before that, who then wait for it."""
        if self.loop is None or self.zygote is None:
            raise DoorError("the front doors are not open")
        asyncio.run_coroutine_threadsafe(self.zygote.warm(), self.loop).result(timeout)

    def stop(self, timeout: float = 15) -> None:
        """Close both doors and end every visitor's process; blocks until done."""
        if self.loop is not None and self._stop is not None and self._thread.is_alive():
            try:
                self.loop.call_soon_threadsafe(self._stop.set)
            except RuntimeError:
                pass
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    # -- the doors' own thread -------------------------------------------------

    def _run(self) -> None:
        loop = self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._main())
            loop.run_until_complete(self._finish())
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()

    @staticmethod
    async def _finish() -> None:
        """Let every session finish its own cleanup (its process reaped) before the loop closes."""
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        try:
            await self._open()
        except BaseException as exc:  # reported by start(), as one line
            self.error = exc
            self._ready.set()
            await self._close()
            return
        self._ready.set()
        await self._stop.wait()
        await self._close()

    def where(self, port: int) -> str:
        """This machine as visitors reach it (its name for a wildcard bind)."""
        return join_address(self.bind, port).rsplit(":", 1)[0]

    async def _open(self) -> None:
        env = child_env()
        code = self.admission.code
        self.zygote = Zygote(env)
        self.zygote.start()  # warming up while the doors open: the first visitor waits less
        if self.ssh_port is not None:
            try:
                from . import hostkey
                from .ssh import SSHDoor
            except ImportError as exc:
                raise DoorError(incomplete("--ssh", exc)) from None
            key = hostkey.load_or_create(self.data_dir)
            self.fingerprint = hostkey.fingerprint(key)
            self.ssh = SSHDoor(self.admission, key, env, self.zygote)
            try:
                port = await self.ssh.start(self.bind, self.ssh_port)
            except OSError as exc:
                raise DoorError(f"cannot listen for SSH on {self.bind}:{self.ssh_port}: {exc.strerror or exc}") from None
            self.ssh.where = self.where(port)
            user = code or "YOURNAME"
            self.lines.append(f"Over SSH:   ssh -p {port} {user}@{self.ssh.where}   (host key {self.fingerprint})")
        if self.web_port is not None:
            try:
                from .web import WebDoor
            except ImportError as exc:
                raise DoorError(incomplete("--web", exc)) from None
            self.web = WebDoor(self.admission, env, self.zygote)
            try:
                port = await self.web.start(self.bind, self.web_port)
            except OSError as exc:
                raise DoorError(f"cannot listen for the web on {self.bind}:{self.web_port}: {exc.strerror or exc}") from None
            self.lines.append(f"In a browser: {self.web.url(self.where(port))}")

    async def _close(self) -> None:
        for door in (self.ssh, self.web):
            if door is not None:
                try:
                    await door.stop()
                except Exception:
                    pass
        if self.zygote is not None:
            await self.zygote.close()
        self.admission.close()
