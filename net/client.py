"""The peer side: a sans-IO session with a mirror of this seat's view, and a trio driver.

`PeerSession` knows nothing about sockets: feed it received bytes with
`receive_data`, send whatever `data_to_send` returns. The Textual app drives
the same object from asyncio streams; headless bots and tests drive it with
trio through `TrioPeer`.

The mirror checks every delta's sequence number and resulting hash. On any
disagreement it quietly asks for a snapshot and ignores deltas until the
snapshot arrives; the player keeps playing.

Whatever the mirror does, the session keeps a `GameRecord` (the commitment,
the commands, the view hash of every step), across reconnects too, so that at
the end it can check every roll against the revealed seed (`verify_dice`).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Iterator

import trio

from cthulhu.core import Command, modes
from cthulhu.core.bots import Bot, make_bot
from cthulhu.core.search import Thinking

from .commitment import DiceVerdict, GameRecord, new_game, verify
from .delta import DeltaError, apply, view_hash
from .frames import FrameDecoder, FrameError, encode_frame
from .thinking import decide_view, view_off_loop
from .route import RedirectRefused, Route
from .tls import open_tls_stream
from .lobbymessages import LobbyWelcome
from .messages import (
    PROTOCOL_VERSION,
    Back,
    Chat,
    CommandMsg,
    Delta,
    Error,
    GameOverMsg,
    Hello,
    History,
    Lobby,
    Ping,
    Pong,
    ProtocolError,
    Redirect,
    Rejected,
    Snapshot,
    SnapshotRequest,
    Table,
    Undo,
    Welcome,
    parse_to_peer,
)


SERVER_LOBBY = "this is a server of many tables: name one with --table ID (`cthulhu tables HOST` lists them)"


@dataclass
class Mirror:
    """This peer's copy of its view. `stale` while a snapshot is awaited."""

    view: dict[str, Any] | None = None
    seq: int = -1
    hash: str | None = None
    stale: bool = True

    def load(self, seq: int, view: dict[str, Any], expected: str) -> bool:
        self.view, self.seq, self.hash = view, seq, view_hash(view)
        self.stale = self.hash != expected
        return not self.stale

    def apply_delta(self, delta: Delta) -> bool:
        """Apply if it follows on; False if the mirror is (now) out of step and needs a snapshot."""
        if self.stale or self.view is None:
            return False
        if delta.seq != self.seq + 1:
            self.stale = True
            return False
        try:
            self.view = apply(self.view, delta.ops)
        except (DeltaError, KeyError, IndexError, TypeError):
            self.stale = True
            return False
        self.seq = delta.seq
        self.hash = view_hash(self.view)
        if self.hash != delta.hash:
            self.stale = True
        return not self.stale

    @property
    def prompt(self) -> dict[str, Any] | None:
        return self.view.get("prompt") if self.view else None


@dataclass
class ConnectionTrouble:
    """A frame from the host we could not use (typed; the session carries on)."""

    error: FrameError | ProtocolError


class AfterDrop(Enum):
    """What a peer does once its connection has ended: `PeerSession.after_drop`'s decision."""

    OVER = "over"  # the game is over: nothing to come back to
    CLOSED = "closed"  # the host closed the table on purpose (`host_closed`)
    REFUSED = "refused"  # the host turned us away (`closed` says why), or never seated us
    SIT_ANEW = "sit_anew"  # the host no longer keeps our seat (its token is bad): come back as a new player
    RECONNECT = "reconnect"  # the connection was lost: dial again, the seat token reclaims the seat


@dataclass
class PeerSession:
    """One peer's protocol state. Construct, send `data_to_send()`, feed `receive_data()`."""

    name: str
    code: str | None = None
    seat: int | None = None
    token: str | None = None
    watch: bool = False
    table_id: str | None = None  # at a server of many tables: the one to sit at
    ident: str | None = None  # at a server: this player's identity key (`SeatStore.identity`)
    mirror: Mirror = field(default_factory=Mirror)
    table: Table | None = None
    welcomed: bool = False
    game_over: GameOverMsg | None = None
    closed: Error | None = None  # a fatal error from the host
    redirect: Redirect | None = None  # the table is at another process of the server (`net.route`): go there
    commands: int = 0
    deltas: int = 0
    resyncs: int = 0
    rejections: list[Rejected] = field(default_factory=list)
    record: GameRecord = field(default_factory=GameRecord)
    dice: DiceVerdict | None = None  # set by `verify_dice` once the game is over

    def __post_init__(self) -> None:
        self._seq = 0
        self._out = bytearray()
        self.restart()

    def restart(self) -> None:
        """A new connection for the same player: forget what the old one carried and say
        hello again, with the seat token if we have one (counters carry on)."""
        self._decoder = FrameDecoder()
        self._out.clear()
        self._snapshot_pending = False
        self.mirror = Mirror()
        self.welcomed = False
        self.closed = self.redirect = None
        self._queue(Hello(proto=PROTOCOL_VERSION, name=self.name, code=self.code, seat=self.seat, token=self.token, watch=self.watch,
                          table=self.table_id, ident=self.ident))

    def after_drop(self, *, seated: bool, stale: bool = False) -> AfterDrop:
        """The one rule for a connection that ended (sans-IO: the caller dials, or not). `seated`: we were
        welcomed at this table before; `stale`: the token may be an old one (kept on this machine), so a
        host that refuses it before seating us is no refusal either: we sit down as a new player."""
        refused = self.closed
        if self.game_over is not None:
            return AfterDrop.OVER
        if refused is not None and refused.code == "bad_token" and self.token and (seated or stale):
            return AfterDrop.SIT_ANEW
        if refused is not None and refused.code == "host_closed":
            return AfterDrop.CLOSED
        if refused is not None or not seated:
            return AfterDrop.REFUSED
        return AfterDrop.RECONNECT

    def sit_anew(self) -> str | None:
        """Let go of a seat the host no longer keeps (`AfterDrop.SIT_ANEW`); the token dropped, to forget."""
        token, self.token, self.seat = self.token, None, None
        return token

    # ---- outgoing ---------------------------------------------------------

    def _queue(self, msg: Any) -> None:
        self._out += encode_frame(msg.wire())

    def data_to_send(self) -> bytes:
        data = bytes(self._out)
        self._out.clear()
        return data

    def send_command(self, command: Command | dict[str, Any], version: int | None = None) -> int:
        """Queue a command; `version` defaults to the mirror's prompt version. Returns its seq."""
        wire = command.wire() if isinstance(command, Command) else dict(command)
        if version is None and self.mirror.prompt is not None:
            version = self.mirror.prompt.get("version")
        self._seq += 1
        self.commands += 1
        self._queue(CommandMsg(seq=self._seq, version=version, command=wire))
        return self._seq

    def send_undo(self, version: int | None = None) -> int:
        """Ask to take back this seat's last decision; `version` defaults to the mirror's prompt version."""
        if version is None and self.mirror.prompt is not None:
            version = self.mirror.prompt.get("version")
        self._seq += 1
        self._queue(Undo(seq=self._seq, version=version))
        return self._seq

    def send_back(self) -> None:
        """Take this seat back from the stand-in its turn clock gave it (the connection stayed open)."""
        self._queue(Back())

    def chat(self, text: str) -> None:
        self._queue(Chat(text=text))

    def ping(self, n: int) -> None:
        self._queue(Ping(n=n))

    def request_snapshot(self, reason: str = "") -> None:
        if not self._snapshot_pending:
            self._snapshot_pending = True
            self._queue(SnapshotRequest(seq=self.mirror.seq, reason=reason))

    # ---- incoming ---------------------------------------------------------

    def receive_data(self, data: bytes | bytearray) -> list[Any]:
        """Bytes from the host -> the messages they held (already applied to the mirror).

        Raises `FrameTooLarge` if the host's framing is broken (close the connection).
        """
        out: list[Any] = []
        for item in self._decoder.feed(data):
            if isinstance(item, FrameError):
                out.append(ConnectionTrouble(item))
                continue
            try:
                msg = parse_to_peer(item)
            except ProtocolError as exc:
                out.append(ConnectionTrouble(exc))
                continue
            self._handle(msg)
            out.append(msg)
        return out

    def _handle(self, msg: Any) -> None:
        if isinstance(msg, Welcome):
            self.welcomed = True
            self.seat, self.token, self.table = msg.seat, msg.token, msg.table
            self.record.joined(msg.seat, _step_of(msg.view), msg.hash, msg.commit, msg.setup)
            if not self.mirror.load(msg.seq, msg.view, msg.hash):
                self._resync("welcome hash")
        elif isinstance(msg, History):
            self.record.heard(msg.start, msg.entries, msg.sealed)
        elif isinstance(msg, Delta):
            self.deltas += 1
            self.record.stepped(msg.step, msg.cmd, msg.hash, msg.stand_in)
            if not self.mirror.apply_delta(msg):
                self._resync("delta out of step")
        elif isinstance(msg, Snapshot):
            self._snapshot_pending = False
            self.record.saw(_step_of(msg.view), msg.hash)
            if not self.mirror.load(msg.seq, msg.view, msg.hash):
                self._resync("snapshot hash")
        elif isinstance(msg, Lobby):
            self.table = msg.table
        elif isinstance(msg, Rejected):
            self.rejections.append(msg)
        elif isinstance(msg, GameOverMsg):
            self.game_over = msg
        elif isinstance(msg, Ping):
            self._queue(Pong(n=msg.n))
        elif isinstance(msg, Error) and msg.fatal:
            self.closed = msg
        elif isinstance(msg, Redirect):  # a driver that does not follow it (`net.route`) says where the table is
            self.redirect = msg
            self.closed = Error(code="redirect", fatal=True, reason=f"this table is at {msg.host}:{msg.port}")
        elif isinstance(msg, LobbyWelcome):  # a hello without a table, at a server of many
            self.closed = Error(code="server_lobby", fatal=True, reason=SERVER_LOBBY)

    def _resync(self, reason: str) -> None:
        if not self._snapshot_pending:
            self.resyncs += 1
        self.request_snapshot(reason)

    # ---- conveniences for UIs and bots --------------------------------------

    @property
    def my_prompt(self) -> dict[str, Any] | None:
        """The prompt if this seat is deciding it (from a mirror known to be in step)."""
        prompt = self.mirror.prompt
        if self.mirror.stale or prompt is None or self.seat is None or prompt.get("seat") != self.seat:
            return None
        return prompt

    def verify_dice(self, make_game: Any = new_game) -> DiceVerdict | None:
        """After `game_over`: check the commitment and replay the game (None before the end).

        `make_game(setup)` builds the game to replay (the installed rules by default).
        """
        over = self.game_over
        if over is None:
            return None
        try:
            salt = bytes.fromhex(over.salt) if over.salt is not None else None
        except ValueError:
            salt = b""
        self.dice = verify(self.record, seed=over.seed, salt=salt, final_hash=over.state_hash, make_game=make_game)
        return self.dice

    def summary(self) -> dict[str, Any]:
        over = self.game_over
        dice = self.dice
        return {
            "seat": self.seat,
            "commands": self.commands,
            "deltas": self.deltas,
            "resyncs": self.resyncs,
            "final_hash": over.state_hash if over else None,
            "outcome": over.outcome if over else None,
            "view_hash": self.mirror.hash,
            "seed": over.seed if over else None,
            "token": self.token,
            "dice": dice.status if dice else "unchecked",
            "dice_detail": dice.message if dice else None,
            "luck": dice.luck.wire() if dice is not None and dice.luck is not None else None,  # a verified game's
        }


def _step_of(view: dict[str, Any]) -> int:
    step = view.get("step") if isinstance(view, dict) else None
    return step if isinstance(step, int) and step >= 0 else 0


class ViewBot:
    """Chooses among the prompt's options in the mirrored view: peers never see the full state.

    The mode's own bot of that kind (from the mode registry) reads the view; a
    kind the mode lacks is an error when the table's mode is first known. A search
    bot thinks for `thinking` in a worker thread, so the connection is served meanwhile.
    """

    def __init__(self, kind: str, seed: int, thinking: Thinking | None = None) -> None:
        kinds = modes.bot_kinds()
        if kind not in kinds:
            raise ValueError(f"unknown bot {kind!r} ({', '.join(kinds)})")
        self.kind = kind
        self.seed = seed
        self.thinking = thinking or Thinking()
        self._bots: dict[str, Bot] = {}

    def bot(self, mode: str) -> Bot:
        bot = self._bots.get(mode)
        if bot is None:
            bot = self._bots[mode] = make_bot(self.kind, mode, self.seed)
        return bot

    def choose(self, view: dict[str, Any], mode: str) -> dict[str, Any]:
        return decide_view(self.bot(mode), view, None, self.thinking)

    async def decide(self, view: dict[str, Any], mode: str) -> dict[str, Any]:
        return await view_off_loop(self.bot(mode), view, None, self.thinking)


class TrioPeer:
    """Drive a `PeerSession` over a trio stream."""

    def __init__(self, stream: trio.abc.Stream, session: PeerSession) -> None:
        self.stream = stream
        self.session = session

    @classmethod
    async def connect(cls, host: str, port: int, session: PeerSession, tls: ssl.SSLContext | None = None) -> "TrioPeer":
        """Connect (over TLS with `tls`: `TlsFailed` if the host is not trusted) and send the hello."""
        stream: trio.abc.Stream = await open_tls_stream(host, port, tls) if tls is not None else await trio.open_tcp_stream(host, port)
        peer = cls(stream, session)
        try:
            await peer.flush()
        except BaseException:
            with trio.CancelScope(shield=True):
                await stream.aclose()
            raise
        return peer

    async def flush(self) -> None:
        data = self.session.data_to_send()
        if data:
            await self.stream.send_all(data)

    async def receive(self) -> list[Any]:
        """The next batch of messages ([] once the host closed the connection)."""
        while True:
            data = await self.stream.receive_some(65536)
            if not data:
                return []
            messages = self.session.receive_data(data)
            await self.flush()
            if messages:
                return messages

    async def aclose(self) -> None:
        await self.stream.aclose()


LOST = (OSError, trio.BrokenResourceError, trio.ClosedResourceError)  # what a connection going away raises
RECONNECT_DELAYS = (0.25, 0.5, 1.0)  # then one try every RECONNECT_EVERY seconds
RECONNECT_EVERY = 2.0  # a restarted host finds everyone back within this after it listens
RECONNECT_FOR = 15 * 60.0  # how long a joiner keeps trying before it gives up


def reconnect_delays() -> Iterator[float]:
    """Back-off between tries to reach a host that went away: quick at first, then steady."""
    yield from RECONNECT_DELAYS
    while True:
        yield RECONNECT_EVERY


async def play_bot(
    host: str,
    port: int,
    *,
    make_game: Any = new_game,
    **kw: Any,
) -> PeerSession:
    """`play_seat`, then verify every roll once the game is over (`session.dice`), replaying
    with `make_game(setup)` (the installed rules by default)."""
    session = await play_seat(host, port, **kw)
    if session.game_over is not None:
        await trio.to_thread.run_sync(session.verify_dice, make_game)
    return session


async def play_seat(
    host: str,
    port: int,
    *,
    bot: str = "random",
    seed: int = 0,
    thinking: Thinking | None = None,
    name: str = "bot",
    code: str | None = None,
    session: PeerSession | None = None,
    on_messages: Any = None,
    reconnect_for: float = 0.0,
    on_welcome: Any = None,
    on_retry: Any = None,
    tls: ssl.SSLContext | None = None,
) -> PeerSession:
    """Join, play this seat with a `ViewBot` until the game ends (or the host refuses us), return the session.
    A bot at a seat is always there: a table paused for want of people hears `back` from it.

    With `reconnect_for` a lost connection is retried with back-off for that many
    seconds (per outage), reclaiming the seat with its token; `on_welcome(session)`
    runs at every welcome (the token is known from the first), `on_retry(attempt,
    error)` before every try; `tls`: over TLS, the host's certificate checked with it. A token the host no longer takes (its seat was freed)
    is dropped and the bot comes back as a new player."""
    session = session or PeerSession(name, code=code)
    chooser = ViewBot(bot, seed, thinking)
    route = Route(host, port, tls is not None)  # a redirect is followed at once, a lost connection goes home (`net.route`)
    seated = False  # welcomed once: from then on a lost connection is retried
    while True:
        try:
            peer = await TrioPeer.connect(route.host, route.port, session, tls)
        except LOST as exc:
            if not seated and not route.away:
                if isinstance(exc, OSError):
                    raise  # never got in: the caller says why
                raise OSError(f"the host closed the connection at once: {exc!r}") from None
            route.lost()
            retried = await _reconnect(route, session, reconnect_for or RECONNECT_EVERY, on_retry, tls)
            if retried is None:
                return session
            peer = retried
        answered: int | None = None
        backed: int | None = None  # the step at which we last said we are here (an idle pause)
        try:
            while session.game_over is None and session.closed is None:
                try:
                    messages = await peer.receive()
                except LOST:
                    messages = []  # reset by the host, or the network
                if not messages:
                    break
                if any(isinstance(m, Welcome) for m in messages):
                    seated = True
                    route.arrived()
                    if on_welcome is not None:
                        on_welcome(session)
                if on_messages is not None:
                    on_messages(session, messages)
                if any(isinstance(m, Rejected) for m in messages):
                    answered = None  # try again on the current prompt
                prompt = session.my_prompt
                view = session.mirror.view
                if prompt is not None and view is not None and prompt["version"] != answered and session.table and session.table.started:
                    answered = prompt["version"]
                    session.send_command(await chooser.decide(view, session.table.mode), answered)
                elif view is not None and session.table and session.table.clock and session.table.clock.idle and backed != view["step"]:
                    # A table paused for want of people (`table.standin`) while ours has no decision (its
                    # investigator may be dead): this seat's player is here, as `b` says at the interface.
                    backed = view["step"]
                    session.send_back()
                try:
                    await peer.flush()
                except LOST:
                    pass  # the next receive sees the connection is gone
        finally:
            with trio.CancelScope(shield=True):
                await peer.aclose()
        if session.redirect is not None:
            try:
                route.follow(session.redirect)
            except RedirectRefused as exc:
                session.closed = Error(code="redirect_refused", fatal=True, reason=str(exc))
                return session
        else:
            after = session.after_drop(seated=seated)
            if after not in (AfterDrop.SIT_ANEW, AfterDrop.RECONNECT) or not reconnect_for:
                return session
            if after is AfterDrop.SIT_ANEW:
                session.sit_anew()  # our seat was freed while we were away: sit down anew
            else:
                route.lost()
        session.restart()


async def _reconnect(route: Route, session: PeerSession, reconnect_for: float, on_retry: Any,
                     tls: ssl.SSLContext | None) -> "TrioPeer | None":
    """Try to reach the host (`route`'s home) again until `reconnect_for` seconds have passed; None
    if it never came back."""
    if not reconnect_for:
        return None
    deadline = trio.current_time() + reconnect_for
    for attempt, delay in enumerate(reconnect_delays(), 1):
        if on_retry is not None:
            on_retry(attempt, None)
        await trio.sleep(delay)
        session.restart()
        try:
            return await TrioPeer.connect(route.host, route.port, session, tls)
        except LOST as exc:
            if trio.current_time() >= deadline:
                if on_retry is not None:
                    on_retry(attempt, exc)
                return None
    return None
