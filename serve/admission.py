"""Who may come in through a front door, as whom, and with which command.

Both doors (SSH and web) ask the same `Admission` before starting anything:
the table code is checked here (so a wrong code costs no process), wrong codes
are throttled per address, sessions are capped in total and per address, and a
visitor identity (an SSH public key, a browser cookie) maps to one token file so
the same visitor takes the same seat back. One identity plays at most one
session at a time; a second session of it watches, so two tabs of one browser
never fight over a seat.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

MAX_SESSIONS = 16
MAX_PER_ADDRESS = 8
FREE_WRONG_CODES = 10  # per address; after these, each refusal waits THROTTLE seconds
THROTTLE = 1.0
NAME_MAX = 24


class Refused(Exception):
    """One line for the visitor (never a traceback)."""


def clean_name(text: str | None, fallback: str) -> str:
    """Printable characters only, trimmed: a name is data, never terminal control."""
    kept = "".join(ch for ch in (text or "") if ch.isprintable() and ch not in "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    return kept.strip()[:NAME_MAX] or fallback


@dataclass(eq=False)
class Ticket:
    """One admitted session: the join command to run for it, and what to release at its end."""

    argv: list[str]
    address: str
    identity: str | None
    watch: bool
    data_home: Path | None = None
    """The visitor process's own XDG_DATA_HOME: whatever a joiner keeps in the user data folder
    (seat tokens...) stays this visitor's, never shared with other visitors or the host's user."""


@dataclass
class Admission:
    code: str | None
    token_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cthulhu-visitors-")))
    """Visitors' token files and data folders. A temporary folder by default; a saved game's own
    folder (`kept`) outlives the host, so visitors take their seats back after `host --load`."""
    kept: bool = False
    max_sessions: int = MAX_SESSIONS
    max_per_address: int = MAX_PER_ADDRESS
    free_wrong_codes: int = FREE_WRONG_CODES
    throttle: float = THROTTLE
    table: tuple[str, int] | None = None
    """Where the join processes connect (the host's game port on loopback); None until it listens."""
    python: str = sys.executable
    cli_module: str = "cthulhu.tui.cli"

    def __post_init__(self) -> None:
        self.token_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.token_dir.chmod(0o700)
        self.sessions: list[Ticket] = []
        self.wrong_codes: dict[str, int] = {}
        self.guests = 0

    def code_ok(self, offered: str | None) -> bool:
        if self.code is None:
            return True
        return offered is not None and hmac.compare_digest(offered.encode(), self.code.encode())

    async def check_code(self, address: str, code: str | None) -> None:
        """`Refused` for a wrong code; past a few from one address, each refusal is slowed down."""
        if self.code_ok(code):
            return
        tries = self.wrong_codes[address] = self.wrong_codes.get(address, 0) + 1
        if tries > self.free_wrong_codes:
            await asyncio.sleep(self.throttle)
        raise Refused("wrong table code")

    async def admit(self, *, address: str, code: str | None, name: str | None, identity: str | None, watch: bool = False) -> Ticket:
        """A ticket for this visitor, or `Refused` with one line saying why."""
        await self.check_code(address, code)
        if len(self.sessions) >= self.max_sessions:
            raise Refused("too many visitors at this table; try again later")
        if sum(1 for t in self.sessions if t.address == address) >= self.max_per_address:
            raise Refused("too many sessions from your address")
        if self.table is None:
            raise Refused("the table is not open yet; try again in a moment")
        self.guests += 1
        name = clean_name(name, f"guest {self.guests}")
        busy = identity is not None and any(t.identity == identity and not t.watch for t in self.sessions)
        watch = watch or busy
        host, port = self.table
        argv = [self.python, "-m", self.cli_module, "join", f"[{host}]:{port}" if ":" in host else f"{host}:{port}", "--kiosk", f"--name={name}"]
        if self.code is not None:
            argv.append(f"--code={self.code}")  # `=`: a code may begin with '-'
        if watch:
            argv.append("--watch")
        elif identity is not None:
            argv.append(f"--token-file={self.token_file(identity)}")
        key = self._key(identity) if identity is not None else f"anonymous-{self.guests}"
        data_home = self.token_dir / "homes" / key
        data_home.mkdir(parents=True, exist_ok=True, mode=0o700)
        ticket = Ticket(argv, address, identity, watch, data_home)
        self.sessions.append(ticket)
        return ticket

    def leaving(self, ticket: Ticket) -> None:
        """The visitor went away (its process is being stopped): the same visitor coming back at once
        takes the seat, not a spectator's place. The ticket still counts until `release`."""
        ticket.identity = None

    def forget_all(self) -> None:
        """The table is closing: the visitors' tokens and folders go with it (unless they are `kept`)."""
        if not self.kept:
            shutil.rmtree(self.token_dir, ignore_errors=True)

    def release(self, ticket: Ticket) -> None:
        if ticket in self.sessions:
            self.sessions.remove(ticket)

    def token_file(self, identity: str) -> Path:
        return self.token_dir / (self._key(identity) + ".token")

    @staticmethod
    def _key(identity: str) -> str:
        return hashlib.sha256(identity.encode()).hexdigest()[:32]

    @staticmethod
    def env_for(ticket: Ticket, base: dict[str, str]) -> dict[str, str]:
        return dict(base, XDG_DATA_HOME=str(ticket.data_home)) if ticket.data_home is not None else dict(base)
