"""The SSH door: `ssh -p PORT CODE@HOST` gives the game interface and nothing else.

Each SSH session that asks for a shell with a terminal gets one `cthulhu join
--kiosk` process (forked by the visitors' zygote, `zygote`) on a pseudo-terminal
of its own, its controlling terminal (its size, resize events and TERM are the client's). One
command is taken: `reader` (`ssh -t -p PORT CODE@HOST reader`) gives the reader mode (`join
--reader`: plain lines, for a screen reader or a narrow screen) instead of the interface, as
`--reader-door` gives it to every visitor. Nothing else is granted: any other command (`ssh host ls`), a
subsystem (sftp), port forwarding, agent or X11 forwarding are refused, each
with one line. The user name carries the table code (`CODE`, or `NAME+CODE` to
choose a name); a wrong one is refused before any process starts.

Clients that offer a public key are identified by it, so a dropped player who
comes back with the same key takes the same seat. Clients without a key are
let in by keyboard-interactive with no prompt, and given a return ticket: a
short secret shown before the game, in the table dialog and after it, that
they type instead of the code next time (`ssh -p PORT TICKET@HOST`) to be the
same visitor again. Either way the seat token itself stays in that visitor's
own seat store on the host (see `admission`).

Why a process per session rather than a Textual driver per session inside the
host: each visitor's interface then has its own interpreter, so one busy or
crashing session cannot stall the others or the host, the host process never
loads Textual, and a PTY is exactly what `cthulhu join` already runs on.
The cost is memory: forked from the warm zygote, about 24 MB (PSS) per visitor after the
first (51 MB each when every visitor was an interpreter of its own), against about 5 MB for a
Textual app per visitor inside one process (`bench/serve_figures.py`, README "Front doors").
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import pty
import struct
import termios
from typing import Any

import asyncssh

from cthulhu.net import Crowd
from cthulhu.net import clean_text

from .admission import Admission, Refused, Visit, new_ticket
from .visitor import Child
from .zygote import Zygote

log = logging.getLogger(__name__)

# Leave the alternate screen, wrap lines again, show the cursor, stop mouse reports and bracketed paste, plain colours:
# sent after every interface ends, so a visitor's terminal is usable again even if it was killed.
RESTORE = b"\x1b[?1049l\x1b[?7h\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?2004l\x1b[0m\r\n"
LOGIN_TIMEOUT = 20  # seconds from TCP connect to logged in (a first visit reads the host key and types "yes")
KEEPALIVE = 30  # seconds between keepalives; 3 unanswered ones close a vanished client
# Connections still logging in (version lines, key exchange, authentication) have their own, smaller
# budget, as the game port's connections before a hello do: beyond it the oldest of that address, or
# of the address with the most logging in, is told why and closed. A crowd of sockets that never
# speak therefore cannot keep anyone else out: a visitor from another address always gets a turn.
MAX_LOGGING_IN = 32
MAX_LOGGING_IN_PER_ADDRESS = 8
MAX_CONNECTIONS = 64  # logged-in SSH connections in all (at least; a server's doors admit more visitors)
MAX_CONNECTIONS_PER_ADDRESS = 16  # ... from one address (at least: as many as its visitors may be)
SESSIONS_PER_CONNECTION = 4  # open session channels on one connection
READER_COMMAND = "reader"  # `ssh -t ... reader`: the reader mode instead of the interface
REFUSAL_GRACE = 5.0  # seconds a refused connection has to ask to log in (and read why not)


def split_user(username: str) -> tuple[str | None, str | None]:
    """`SECRET` or `NAME+SECRET` -> (name, secret): the secret is the table code or a return ticket."""
    name, plus, secret = username.rpartition("+")
    return (name or None, secret or None) if plus else (None, username or None)


class _Connection(asyncssh.SSHServer):
    """One SSH connection: who it is (its key, if it proved one) and how it may log in."""

    def __init__(self, door: "SSHDoor") -> None:
        self.door = door
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.last_key: str | None = None
        self.keyless = False
        self.refused = ""  # why this connection is being turned away
        self.since = asyncio.get_running_loop().time()
        self.sessions: list[_Session] = []

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername") or ("?",)
        self.address = str(peer[0])
        self.door.arrived(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.door.gone(self)

    def refuse(self, reason: str) -> None:
        """Turn this connection away with `reason`, which OpenSSH shows as "Received disconnect
        from ...: reason". The disconnect waits for the client's first request to log in, where it
        is waiting for our answer: sent earlier (before our version line, or while the client is
        still writing its key exchange) it reads as "banner line contains invalid characters" or a
        broken pipe. A client that has said nothing at all is not one: it is closed at once."""
        if self.conn is None or self.refused:
            return
        self.refused = reason
        self.door.admission.warn(f"ssh {reason}", "ssh door: refused %s: %s", self.address, reason)
        loop = asyncio.get_running_loop()
        if self.conn.get_extra_info("client_version") is None and loop.time() - self.since > 1:
            self._disconnect()
        else:
            loop.call_later(REFUSAL_GRACE, self._disconnect)  # a client that never asks to log in

    def _disconnect(self) -> None:
        if self.conn is not None and self.refused:
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.refused)

    # -- authentication: a key if the client has one, else no questions -------

    def begin_auth(self, username: str) -> bool:
        self.door.logging_in_done(self)  # the slow part is over: it counts as logged in from here on
        if self.refused:
            self._disconnect()  # the client waits for our answer: it reads the reason
        return True  # ask, so that a client with a key shows it

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # Called for the key query and again with its signature; auth only completes after a good
        # signature, and that validation is the last one before it, so `last_key` is then proven.
        self.last_key = key.get_fingerprint("sha256")
        return True

    def kbdint_auth_supported(self) -> bool:
        return True

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self.keyless = True
        return True

    def password_auth_supported(self) -> bool:
        return False

    @property
    def identity(self) -> str | None:
        return None if self.keyless or self.last_key is None else f"ssh:{self.last_key}"

    def session_requested(self) -> "_Session | bool":
        if len(self.sessions) >= SESSIONS_PER_CONNECTION:
            return False  # channels are cheap to ask for; a game each is plenty
        session = _Session(self)
        self.sessions.append(session)
        return session

    # -- everything else is refused (asyncssh's defaults, said out loud) ------

    def connection_requested(self, *args: Any) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, "port forwarding is refused: this server runs the game only")

    def server_requested(self, *args: Any) -> bool:
        return False

    def unix_connection_requested(self, *args: Any) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, "forwarding is refused: this server runs the game only")

    def unix_server_requested(self, *args: Any) -> bool:
        return False


class _Session(asyncssh.SSHServerSession[bytes]):
    """One SSH session: the game on a PTY, or one line saying why not."""

    def __init__(self, owner: _Connection) -> None:
        self.owner = owner
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term = "xterm-256color"
        self.size = (80, 24)
        self.has_pty = False
        self.wants = "nothing"
        self.reader: bool | None = None  # `reader` asked for (None: the door's default)
        self.master: int | None = None
        self.child: Child | None = None
        self.visit: Visit | None = None
        self.task: asyncio.Task[None] | None = None
        self._pending = b""
        self._paused = False
        self._done = False
        self._drew = False  # the interface sent terminal controls (so the terminal is restored after it)

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.has_pty = True
        self.term = term_type or self.term
        if term_size[0] > 0 and term_size[1] > 0:
            self.size = (term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        self.wants = "shell"
        return True

    def exec_requested(self, command: str) -> bool:
        if command.strip() == READER_COMMAND:
            self.wants, self.reader = "shell", True
            return True
        self.wants = "exec"
        return True  # accepted only to answer with our own line, then closed

    def subsystem_requested(self, subsystem: str) -> bool:
        return False  # sftp and friends: the client says "subsystem request failed"

    def session_started(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        door = self.owner.door
        try:
            if self.wants == "exec":
                raise Refused(f"this server runs the game only; commands are refused (connect without a command, or with `{READER_COMMAND}`)")
            if not self.has_pty and self.reader:
                raise Refused(f"the reader mode needs a terminal too; add -t (ssh -t ... {READER_COMMAND})")
            if not self.has_pty:
                raise Refused("the game needs a terminal; connect without -T (and without -N)")
            self.visit = await door.admit(self.owner, reader=self.reader)
            await self._play(self.visit)
            if self.chan is not None:  # everything said reaches the client before anyone closes the connection
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.chan.wait_closed(), 5)
        except Refused as exc:
            door.admission.warn(f"ssh {exc}", "ssh door: refused %s: %s", self.owner.address, str(exc))
            self._refuse(str(exc))
        except Exception:  # never a traceback to the visitor; one line in the host's log
            log.exception("ssh: a session failed")
            self._refuse("the server could not start the game")
        finally:
            if self.visit is not None and self.child is None:  # no process started: nothing else lets it go
                door.admission.release(self.visit)

    def _refuse(self, line: str) -> None:
        if self.chan is not None and not self._done:
            self._done = True
            self.chan.write_stderr(clean_text(f"cthulhu: {line}").encode() + b"\r\n")
            self.chan.exit(1)

    def _say(self, line: str) -> None:
        """A line on the visitor's terminal outside the game (before it starts and after it ends)."""
        if self.chan is not None and not self._done:
            self.chan.write(clean_text(line).encode() + b"\r\n")

    # -- the game on a pseudo-terminal ---------------------------------------

    async def _play(self, visit: Visit) -> None:
        if visit.ticket is not None:
            self._say(visit.comeback)  # seen before the game draws, and again after it
        master, slave = pty.openpty()
        self.master = master
        self._set_size(slave)
        door = self.owner.door
        env = visit.env(door.child_env(self.term))
        try:
            self.child = child = await door.zygote.spawn(visit.argv, env, (slave, slave, slave), tty=True,
                                                         on_reaped=lambda: door.admission.release(visit))  # counted until reaped
        except BaseException:
            self._close_pty()
            raise
        finally:
            os.close(slave)
        door.children.add(child)
        os.set_blocking(master, False)
        loop = asyncio.get_running_loop()
        loop.add_reader(master, self._pty_readable)
        try:
            code = await asyncio.shield(child.reaped)
        finally:
            door.children.discard(child)
            self._pty_readable()  # the last frame, if any
            self._close_pty()
        if self.chan is not None and not self._done:
            if self._drew:
                self.chan.write(RESTORE)  # whatever state the interface left the terminal in (killed, crashed)
            if self.owner.door.closing and self.owner.door.admission.server:  # a server's lobby: the server stopped, its tables wait
                self._say("cthulhu: the server stopped; its tables are saved and wait for you.")
                if visit.comeback:
                    self._say(visit.comeback)
            elif self.owner.door.closing:  # a saved table opens again (`host --load`): the way back still works
                again = f" It is saved; when it is open again: {visit.comeback}" if self.owner.door.admission.kept else ""
                self._say(f"cthulhu: the host closed the table.{again}")
            self._done = True
            self.chan.exit(code if code >= 0 else 1)

    def _set_size(self, fd: int) -> None:
        cols, rows = self.size
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def _pty_readable(self) -> None:
        if self.master is None:
            return
        while not self._paused:
            try:
                data = os.read(self.master, 65536)
            except BlockingIOError:
                return
            except OSError:  # EIO: the interface has closed its terminal
                self._close_pty()
                return
            if not data:
                self._close_pty()
                return
            if self.chan is not None and not self._done:
                self._drew = self._drew or b"\x1b" in data
                self.chan.write(data)

    def _close_pty(self) -> None:
        if self.master is not None:
            asyncio.get_running_loop().remove_reader(self.master)
            asyncio.get_running_loop().remove_writer(self.master)
            os.close(self.master)
            self.master = None

    def pause_writing(self) -> None:  # the client reads slowly: stop reading the PTY (the app waits)
        self._paused = True
        if self.master is not None:
            asyncio.get_running_loop().remove_reader(self.master)

    def resume_writing(self) -> None:
        self._paused = False
        if self.master is not None:
            asyncio.get_running_loop().add_reader(self.master, self._pty_readable)

    def data_received(self, data: bytes, datatype: Any) -> None:
        if self.master is None:
            return
        self._pending += data
        self._flush_keys()

    def _flush_keys(self) -> None:
        if self.master is None:
            return
        try:
            written = os.write(self.master, self._pending) if self._pending else 0
        except BlockingIOError:
            written = 0
        except OSError:
            return
        self._pending = self._pending[written:]
        loop = asyncio.get_running_loop()
        if self._pending:
            loop.add_writer(self.master, self._flush_keys)
        else:
            loop.remove_writer(self.master)
        if len(self._pending) > 65536:  # keys nobody reads: drop them, not the host's memory
            self._pending = b""

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if width <= 0 or height <= 0:
            return
        self.size = (width, height)
        if self.master is not None:
            self._set_size(self.master)  # the kernel tells the interface (SIGWINCH): it is its controlling terminal

    def eof_received(self) -> bool:
        return True  # stay half-open: the exit status (or a refusal) still has to reach the client

    def break_received(self, msec: int) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._done = True
        if self in self.owner.sessions:
            self.owner.sessions.remove(self)
        if self.visit is not None:
            self.owner.door.admission.leaving(self.visit)
        if self.child is not None and self.child.running:
            self.stopping = asyncio.get_running_loop().create_task(self.child.stop())  # kept: tasks are weakly held


class SSHDoor:
    """The SSH server of one table (run on an asyncio loop; see `doors.FrontDoors`)."""

    def __init__(self, admission: Admission, host_key: asyncssh.SSHKey, env: dict[str, str], zygote: Zygote) -> None:
        self.admission = admission
        self.zygote = zygote
        self.host_key = host_key
        self.env = env
        self.logging_in: Crowd[_Connection] = Crowd(MAX_LOGGING_IN_PER_ADDRESS, MAX_LOGGING_IN)
        self.connections: list[_Connection] = []  # logged in
        self.children: set[Child] = set()
        self.server: Any = None
        self.port: int | None = None
        self.closing = False
        self.where = "HOST"  # this machine as visitors reach it (set by the doors once listening)

    # -- connections: logging in, then logged in ------------------------------------

    def _room_for(self, conn: _Connection) -> str | None:
        """Why a logged-in connection from `conn`'s address would be one too many, or None. Room
        enough for every visitor the admission lets in (a connection is at least one of them)."""
        admission = self.admission
        per_address = max(MAX_CONNECTIONS_PER_ADDRESS, admission.max_per_address)
        if sum(1 for c in self.connections if c.address == conn.address) >= per_address:
            return f"too many sessions from your address ({per_address}); close one and try again"
        if len(self.connections) >= max(MAX_CONNECTIONS, admission.max_sessions):
            return admission.full()
        return None

    def arrived(self, conn: _Connection) -> None:
        # Even one that will be refused counts while it logs in: its key exchange costs the same.
        for old in self.logging_in.add(conn, conn.address):
            old.refuse("too many connections from your address are logging in at once; try again in a moment")
        full = self._room_for(conn)
        if full is not None:
            conn.refuse(full)

    def logging_in_done(self, conn: _Connection) -> None:
        """The key exchange is done and the client asks to log in (which needs no answer from anyone)."""
        if conn not in self.logging_in:
            return  # turned away already, or asked again
        self.logging_in.discard(conn)
        if conn.refused:
            return
        full = self._room_for(conn)  # others may have logged in since it arrived
        if full is not None:
            conn.refuse(full)
        else:
            self.connections.append(conn)

    def gone(self, conn: _Connection) -> None:
        self.logging_in.discard(conn)
        if conn in self.connections:
            self.connections.remove(conn)

    async def admit(self, owner: _Connection, reader: bool | None = None) -> Visit:
        """Who this connection is (its key, a return ticket it typed, or a new ticket) and its visit."""
        username = owner.conn.get_extra_info("username") if owner.conn is not None else ""
        name, secret = split_user(username or "")
        identity, ticket = owner.identity, None
        code: str | None = secret
        if identity is None:
            back = self.admission.returning(secret)
            if back is not None:  # TICKET@host, or NAME+TICKET@host: the visitor who was given it
                identity, ticket, code = back, secret, self.admission.code
            else:
                ticket = new_ticket()
                identity = f"ticket:{ticket}"
        if self.admission.code is None and code is not None and ticket != code:
            name, code = name or code, None  # an open table: the user name is only a name
        visit = await self.admission.admit(address=owner.address, code=code, name=name, identity=identity, reader=reader)
        visit.ticket = ticket
        user = self.admission.code or "NAME"
        if ticket is not None:
            visit.comeback = f"Your return ticket is {ticket}: to come back to your seat, type  ssh -p {self.port} {ticket}@{self.where}"
        else:
            visit.comeback = f"To come back to your seat, use the same key:  ssh -p {self.port} {user}@{self.where}"
        return visit

    def child_env(self, term: str) -> dict[str, str]:
        env = dict(self.env)
        env["TERM"] = "".join(ch for ch in term if ch.isalnum() or ch in "-_.+")[:64] or "xterm"
        return env

    async def start(self, bind: str, port: int) -> int:
        self.server = await asyncssh.create_server(
            lambda: _Connection(self),
            bind,
            port,
            server_host_keys=[self.host_key],
            encoding=None,
            allow_pty=True,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            sftp_factory=None,
            login_timeout=LOGIN_TIMEOUT,
            keepalive_interval=KEEPALIVE,
            keepalive_count_max=3,
            server_version="cthulhu",
        )
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def stop(self) -> None:
        """Stop listening, end every visitor's interface (each session then tells its visitor and
        exits cleanly), then close the connections."""
        self.closing = True
        playing = [s.task for c in self.connections for s in c.sessions if s.task is not None and not s.task.done()]
        await asyncio.gather(*(child.stop() for child in list(self.children)), return_exceptions=True)
        if playing:
            await asyncio.wait(playing, timeout=5)
        if self.server is not None:
            self.server.close()  # (asyncssh closes the connections with it)
        for c in list(self.connections):
            if c.conn is not None:
                c.conn.close()
