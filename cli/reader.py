"""`--reader` on `cthulhu play` and `cthulhu join`: the game as plain lines (`cthulhu.tui.reader`).

`play --reader` opens its table as `cthulhu play` does (`TableSpec` from the same options,
`open_table`, this terminal's seats chosen by the same helper) and serves it on a loopback port
inside this trio program; the reader joins it as a peer, as the app does. `join --reader` joins a
host elsewhere with this machine's seat store, as `cthulhu join` does. Typed lines come from
stdin, so a pipe, a screen reader's terminal and a browser tab's text box all work alike.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ssl

    from cthulhu.net import PeerSession
    from cthulhu.net import Welcome
    from cthulhu.tui.options import PlayOptions

LINE_MAX = 4096  # bytes in one typed line (more is cut off)


def add_reader_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reader", action="store_true",
                   help="plain lines instead of the interface: one sentence per event, the choices numbered, "
                   "b/a/? for the board, the odds and help (for screen readers, narrow screens and pipes)")


async def typed_lines() -> AsyncIterator[str]:
    """Lines typed on stdin until it ends, read in a worker thread (the table is served meanwhile)
    with `os.read`: a thread left blocked in it at exit holds no lock of the interpreter's."""
    import trio

    pending = b""
    while True:
        chunk = await trio.to_thread.run_sync(os.read, 0, LINE_MAX, abandon_on_cancel=True)
        if not chunk:
            if pending:
                yield pending.decode("utf-8", "replace")
            return
        pending += chunk
        *lines, pending = pending.split(b"\n")
        pending = pending[-LINE_MAX:]
        for line in lines:
            yield line[:LINE_MAX].decode("utf-8", "replace")


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _say(text: str) -> None:
    """A line of the command's own, wrapped as the reader's are."""
    from cthulhu.tui.reader.text import wrap

    for line in wrap(text, _width()):
        _out(line)


def _width() -> int:
    from cthulhu.tui.reader.text import reader_width

    return reader_width(sys.stdout.isatty())


def play(options: PlayOptions, content: Any) -> int:
    """`cthulhu play --reader`: this terminal's seats at a table in this process."""
    return _run(_play, options, content)


def _run(main: Any, *args: Any) -> int:
    """`trio.run(main, *args)`; Ctrl+C is status 130, and a reader gone from the pipe (`| head`)
    ends quietly, as every command does (trio hands both over inside its exception groups)."""
    import trio

    try:
        return int(trio.run(main, *args))
    except (KeyboardInterrupt, BaseExceptionGroup) as exc:
        if _only(exc, KeyboardInterrupt):
            return 130
        if _only(exc, BrokenPipeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to say to it, at exit either
            return 0
        raise


def _only(exc: BaseException, kind: type[BaseException]) -> bool:
    return isinstance(exc, kind) or isinstance(exc, BaseExceptionGroup) and exc.split(kind)[1] is None


async def _play(options: PlayOptions, content: Any) -> int:
    import trio

    from cthulhu.table import open_table
    from cthulhu.savegame.folder import save_name
    from cthulhu.cli.embedded import hot_seat_names, own_seats, table_spec
    from cthulhu.tui.reader.session import Reader
    from cthulhu.tui.reader.wire import Sitting, Where

    host = open_table(table_spec(options))
    loaded = isinstance(host.spec.start, Path)
    humans = own_seats(host, options, None, loaded)
    host.own_seats = frozenset(humans)  # taking them is no reason to write a save before the first move
    names = hot_seat_names(host.game, humans) if len(humans) > 1 else [options.name] * len(humans)
    if host.warning:
        _say(host.warning)
    try:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.serve, 0, "127.0.0.1")
            reader = Reader(Where("127.0.0.1", port, f"127.0.0.1:{port}", code=host.code),
                            [Sitting(name, seat) for name, seat in zip(names, humans, strict=True)],
                            out=_out, width=_width, content=content, reconnect=False, chat=False)
            status = await reader.run(typed_lines())
            if host.game.outcome is None:
                await host.close_table()
            nursery.cancel_scope.cancel()
    finally:
        host.flush_log()
        host.saves.release()  # other processes may load the save now
    path = host.saves.path
    if path is not None and host.game.outcome is None and host.saves.started:
        _say(f"Carry the game on later with: cthulhu play --load {shlex.quote(save_name(path))} --reader")
    return status


def join(args: argparse.Namespace, host: str, port: int, tls: ssl.SSLContext | None) -> int:
    """`cthulhu join --reader`: a seat (or a watcher's place) at a host elsewhere; at a server of
    many tables without `--table`, its lobby in lines (`tui.reader.lobby`), then the table chosen."""
    return _run(_join, args, host, port, tls)


async def _join(args: argparse.Namespace, host: str, port: int, tls: ssl.SSLContext | None) -> int:
    import trio

    from cthulhu.net import SeatStore

    store = SeatStore()
    send, typed = trio.open_memory_channel[str](0)  # one reader of stdin for the lobby and every table after it

    async def feed() -> None:
        async with send:
            async for line in typed_lines():
                await send.send(line)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(feed)
        status, at_lobby = await _at_table(args, store, host, port, tls, args.table, args.code, typed, first=True)
        if at_lobby:
            status = await _lobby(args, store, host, port, tls, typed)
        nursery.cancel_scope.cancel()
    return status


async def _lobby(args: argparse.Namespace, store: Any, host: str, port: int, tls: ssl.SSLContext | None, typed: Any) -> int:
    """The server's lobby, then the table chosen there, and back, until the player leaves."""
    from cthulhu.net import LobbyRefused, TlsFailed, open_lobby
    from cthulhu.tui.reader.lobby import ReaderLobby

    from .common import default_name

    first = True
    visitor = os.environ.get("CTHULHU_COMEBACK") if args.kiosk else None
    if visitor:  # a door's visitor: how to come back as the same player (a key, a ticket, a browser)
        _say(visitor)
    while True:
        try:
            async with open_lobby(host, port, args.name or default_name(), _identity(store, args.address), tls) as lobby:
                chosen = await ReaderLobby(lobby, _say, typed, address=args.address, idle=args.lobby_idle).choose(first)
        except LobbyRefused as exc:
            _say(f"The server refused: {exc}")
            return 1
        except (TlsFailed, OSError) as exc:
            _say(f"Cannot reach the lobby at {args.address}: {getattr(exc, 'strerror', None) or exc}.")
            return 1
        if chosen is None:
            return 0
        first = False
        await _at_table(args, store, host, port, tls, chosen.table, chosen.code, typed, first=False)
        _say(f"Back in the lobby of {args.address}.")


def _identity(store: Any, address: str) -> str | None:
    try:
        return str(store.identity(address))
    except OSError:
        return None


async def _at_table(args: argparse.Namespace, store: Any, host: str, port: int, tls: ssl.SSLContext | None, table: str | None,
                    code: str | None, typed: Any, *, first: bool) -> tuple[int, bool]:
    """The reader at one table (`table`: a server's, by id; None: the host's one, or the server's
    lobby, which the status's second half says); the asked seat, token and watching only `first`."""
    from cthulhu.content import builtin
    from cthulhu.net import join_command
    from cthulhu.tui.comeback import peer_comeback
    from cthulhu.tui.reader.session import Hooks, Reader
    from cthulhu.tui.reader.wire import Sitting, Where

    from .common import default_name

    name = args.name or default_name()
    watch = args.watch and first
    token, stored = args.token if first else None, False
    if token is None and not watch:
        try:
            if table is not None:
                entry = store.find(name=None, address=args.address, table=table)
            elif args.kiosk:  # a visitor's own seat store: its newest seat is theirs
                entry = next(iter(store.entries()), None)
            else:
                entry = store.find(name=name, address=args.address)
        except OSError:
            entry = None
        token, stored = (entry.token, True) if entry is not None else (None, False)
    ident = _identity(store, args.address) if table is not None else None

    def welcomed(session: PeerSession, welcome: Welcome) -> None:
        if welcome.seat is None or not welcome.token:
            return
        try:
            store.remember(address=args.address, table=welcome.table.id, name=session.name, seat=welcome.seat, token=welcome.token)
        except OSError as exc:
            _say(f"Could not keep the seat token on this machine: {exc.strerror or exc}")

    def forget(token: str) -> None:
        try:
            store.forget(token)
        except OSError:
            pass

    visitor = os.environ.get("CTHULHU_COMEBACK") if args.kiosk else None

    def comeback(session: PeerSession) -> str | None:
        if args.kiosk:
            return visitor if session.seat is not None else None
        line = peer_comeback(session, args.address, code, table)
        again = join_command(args.address, code, table=table)
        return line.replace(again, f"{again} --reader") if line else None

    reader = Reader(Where(host, port, args.address, tls, table=table, code=code, ident=ident),
                    [Sitting(name, args.seat if first else None, token, stored)], out=_out, width=_width, content=builtin(), watch=watch,
                    hooks=Hooks(welcomed=welcomed, forget=forget, comeback=comeback, lobby=table is None),
                    greeting=visitor if first else None)
    status = await reader.run(typed)
    return status, reader.at_lobby
