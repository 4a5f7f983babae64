"""Who may come in through a front door, as whom, and with which command.

Both doors (SSH and web) ask the same `Admission` before starting anything:
the table code is checked here (so a wrong code costs no process), wrong codes
are throttled per real client address, visitors are capped in all and per
real client address, and every visitor identity (an SSH public key, a return
ticket, a browser cookie) has a data folder of its own. The visitor's
interface runs with that folder as its XDG_DATA_HOME, so the seat store of
`cthulhu join` (`cthulhu.net.seatstore`) keeps that visitor's seat token
there, and the same visitor takes the same seat back; nothing else is needed.

One identity plays at most one session at a time; a second session of it
watches, so two tabs of one browser never fight over a seat.

A server's doors open on its lobby, which is no table: there the caps are the
server's (`--max-visitors`, `--max-per-address`), its refusals say "the server",
and a visitor idle in the lobby is let go (`lobby_idle`), so sessions held open
from a few addresses cannot keep everyone else out. Each table still bounds its
own watchers (the host's `max_spectators`).

The host sees every visitor connect from loopback: its own per-address cap
leaves room for `MAX_SESSIONS` more there (`net.limits.Limits.door_visitors`),
while the caps that matter per person are applied here, per real address.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cthulhu.net import Quiet
from cthulhu.net import SeatStore
from cthulhu.net import clean_name

MAX_SESSIONS = 16  # visitors' interfaces running at once, through both doors of one table
MAX_PER_ADDRESS = 8  # ... from one client address
VISITOR_MB = 48  # a visitor's interface costs ~24 MB (PSS, forked warm); twice that leaves room for the rest
LOBBY_IDLE = 600.0  # seconds without a key in a server's lobby before its door lets the visitor go
FREE_WRONG_CODES = 10  # per address; after these, each refusal waits THROTTLE seconds
THROTTLE = 1.0
TICKET_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: read off a screen and typed
TICKET_LENGTH = 12  # 60 bits, and wrong guesses are throttled like wrong codes
_TICKET = re.compile(f"[{TICKET_ALPHABET}]{{{TICKET_LENGTH}}}")


class Refused(Exception):
    """One line for the visitor (never a traceback)."""


def visitors_for_memory(meminfo: str = "/proc/meminfo") -> int:
    """A server's default `--max-visitors`: as many interfaces as half the machine's memory holds
    (`VISITOR_MB` each), never fewer than one table's `MAX_SESSIONS`, at most 4,096."""
    try:
        with open(meminfo, encoding="ascii") as f:
            total_kb = next(int(line.split()[1]) for line in f if line.startswith("MemTotal:"))
    except (OSError, StopIteration, ValueError, IndexError):
        return MAX_SESSIONS * 4
    return max(MAX_SESSIONS, min(4096, total_kb // 1024 // 2 // VISITOR_MB))


def new_ticket() -> str:
    """A return ticket: what a visitor with no SSH key types (as the SSH user) to come back."""
    return "".join(secrets.choice(TICKET_ALPHABET) for _ in range(TICKET_LENGTH))


@dataclass(eq=False)
class Visit:
    """One admitted session: the command to run for it, its environment, and what to release after."""

    argv: list[str]
    """`PYTHON -m cthulhu.cli join ... --kiosk [--reader]`: the visitor's interface (the zygote runs it in a child)."""
    address: str
    identity: str | None
    watch: bool
    home: Path
    """The visitor process's own XDG_DATA_HOME (its seat store lives there): this visitor's only."""
    code: str | None
    comeback: str = ""
    """How this visitor comes back to the seat, in the door's words (shown in the interface)."""
    ticket: str | None = None
    """An SSH visitor without a key: the return ticket they were given (or came back with)."""

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """The interface's environment. The code and the way back go here, not on the command line,
        where any user of the machine could read them (`ps`); the environment is the owner's only."""
        env = dict(base, XDG_DATA_HOME=str(self.home))
        env.pop("CTHULHU_CODE", None)
        if self.code is not None:
            env["CTHULHU_CODE"] = self.code
        if self.comeback:
            env["CTHULHU_COMEBACK"] = self.comeback
        return env


@dataclass
class Admission:
    code: str | None
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cthulhu-visitors-")))
    """The visitors' data folders. A temporary folder unless `kept`: a saved table's folder
    (named by its table id) outlives the host, so visitors take their seats back after `host --load`."""
    kept: bool = False
    max_sessions: int = MAX_SESSIONS
    max_per_address: int = MAX_PER_ADDRESS
    free_wrong_codes: int = FREE_WRONG_CODES
    throttle: float = THROTTLE
    table: tuple[str, int] | None = None
    """Where the visitors' interfaces connect (the host's game port on loopback); None until it listens."""
    python: str = sys.executable
    server: bool = False
    """The doors of a server's lobby (not of one table): the caps and the refusals are the server's."""
    lobby_idle: float | None = None
    """A server's lobby: seconds without a key before a visitor's interface lets them go (None: never)."""
    reader: bool = False
    """Every visitor gets the reader mode (`--reader-door`) unless they ask otherwise."""

    def __post_init__(self) -> None:
        # Only the host's user may look in (the seat tokens of every visitor are in there).
        for folder in ([self.folder.parent] if self.kept else []) + [self.folder, self.folder / "homes"]:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            folder.chmod(0o700)
        self.sessions: list[Visit] = []
        self.wrong_codes: dict[str, int] = {}
        self.guests = 0
        self.quiet = Quiet()

    def warn(self, kind: str, message: str, *args: object) -> None:
        """A refusal in the host's log: one line per kind now and then, with a count (a flood is a few lines)."""
        self.quiet.warn(kind, time.monotonic(), message, *args)

    # -- secrets -----------------------------------------------------------------------

    def code_ok(self, offered: str | None) -> bool:
        if self.code is None:
            return True
        return offered is not None and hmac.compare_digest(offered.encode(), self.code.encode())

    async def check_code(self, address: str, code: str | None) -> None:
        """`Refused` for a wrong code; past a few from one address, each refusal is slowed down."""
        if self.code_ok(code):
            return
        tries = self.wrong_codes[address] = self.wrong_codes.get(address, 0) + 1
        if len(self.wrong_codes) > 4096:  # bounded memory: the oldest address is forgotten
            self.wrong_codes.pop(next(iter(self.wrong_codes)))
        if tries > self.free_wrong_codes:
            await asyncio.sleep(self.throttle)
        raise Refused("wrong table code")

    def returning(self, ticket: str | None) -> str | None:
        """The identity a return ticket stands for, if this table gave it out (its folder exists)."""
        if ticket is None or not _TICKET.fullmatch(ticket):
            return None
        identity = f"ticket:{ticket}"
        return identity if self.home(identity).is_dir() else None

    # -- sessions ----------------------------------------------------------------------

    async def admit(self, *, address: str, code: str | None, name: str | None, identity: str, watch: bool = False,
                    reader: bool | None = None) -> Visit:
        """A visit for this visitor, or `Refused` with one line saying why. `reader`: the visitor asked
        for the reader mode (True) or the interface (False); None: the door's default."""
        reader = self.reader if reader is None else reader
        await self.check_code(address, code)
        full = self.no_room(address)
        if full is not None:
            raise Refused(full)
        home = self.home(identity)
        home.mkdir(exist_ok=True, mode=0o700)
        name = clean_name(name or "") or self._stored_name(home) or self._guest()
        busy = any(v.identity == identity and not v.watch for v in self.sessions)
        watch = watch or busy
        assert self.table is not None  # (`no_room` says so otherwise)
        host, port = self.table
        argv = [self.python, "-m", "cthulhu.cli", "join", f"[{host}]:{port}" if ":" in host else f"{host}:{port}", "--kiosk", f"--name={name}"]
        if watch:
            argv.append("--watch")
        if reader:
            argv.append("--reader")
        if self.lobby_idle is not None:
            argv.append(f"--lobby-idle={self.lobby_idle:g}")
        visit = Visit(argv, address, identity, watch, home, self.code)
        self.sessions.append(visit)
        return visit

    def no_room(self, address: str) -> str | None:
        """Why one more visitor from `address` cannot come in now, in words that fit (None: they can).
        Asked before anything is started or handed out (the web door's pass too)."""
        if len(self.sessions) >= self.max_sessions:
            return self.full()
        if sum(1 for v in self.sessions if v.address == address) >= self.max_per_address:
            return f"too many sessions from your address ({self.max_per_address}); close one and try again"
        if self.table is None:
            return f"the {'server' if self.server else 'table'} is not open yet; try again in a moment"
        return None

    def full(self) -> str:
        """What a visitor is told when every visitor's place is taken: the server's or the table's."""
        if self.server:
            return f"the server has no room for more visitors ({self.max_sessions} are here); try again later"
        return "too many visitors at this table; try again later"

    def seated_name(self, identity: str) -> str | None:
        """The name this visitor sat down with at this table, if they ever did (a seat token of
        theirs is kept): a page can greet them and offer their seat back."""
        home = self.home(identity)
        return self._stored_name(home) if home.is_dir() else None

    def _guest(self) -> str:
        self.guests += 1
        return f"guest {self.guests}"

    @staticmethod
    def _stored_name(home: Path) -> str | None:
        """A returning visitor who gives no name keeps the one they sat down with."""
        try:
            entries = SeatStore(home / "cthulhu" / "seats.json").entries()
        except OSError:
            return None
        return clean_name(entries[0].name) or None if entries else None

    def leaving(self, visit: Visit) -> None:
        """The visitor went away (its process is being stopped): the same visitor coming back at once
        takes the seat, not a spectator's place. The visit still counts until `release`."""
        visit.identity = None

    def release(self, visit: Visit) -> None:
        if visit in self.sessions:
            self.sessions.remove(visit)

    def close(self) -> None:
        """The table is closing. Unkept, the visitors' folders go with it; kept, only the folders of
        visitors who never held a seat (nothing to come back to) are removed."""
        if not self.kept:
            shutil.rmtree(self.folder, ignore_errors=True)
            return
        homes = self.folder / "homes"
        for home in homes.iterdir() if homes.is_dir() else ():
            if not (home / "cthulhu" / "seats.json").exists():
                shutil.rmtree(home, ignore_errors=True)

    def home(self, identity: str) -> Path:
        return self.folder / "homes" / hashlib.sha256(identity.encode()).hexdigest()[:32]
