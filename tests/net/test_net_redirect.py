"""`redirect`: a table run by another process of a server is followed by every client by itself
(`net.route`): the trio driver (`play_seat`, `cthulhu join --headless`) and the app's link."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import pytest
import trio

from cthulhu.net.client import PeerSession, play_seat
from cthulhu.net.frames import FrameDecoder, encode_frame
from cthulhu.net.messages import Hello, Redirect, parse_to_host, parse_to_peer
from cthulhu.net.route import MAX_HOPS, RedirectRefused, Route
from cthulhu.table import TableSpec, open_table

from support.net_games import make_game


# -- the follow logic, on its own -------------------------------------------------------------------


def test_a_route_follows_a_redirect_and_goes_home_when_the_connection_is_lost():
    route = Route("fleet.example", 7777)
    assert (route.host, route.port, route.away) == ("fleet.example", 7777, False)
    route.follow(Redirect(host="10.0.0.2", port=7801, tls_port=7802))
    assert (route.host, route.port, route.away) == ("10.0.0.2", 7801, True)
    route.arrived()
    route.lost()  # its owner stopped or died: home knows where the table went
    assert (route.host, route.port, route.away) == ("fleet.example", 7777, False)


def test_a_route_on_tls_follows_only_to_a_tls_port():
    route = Route("fleet.example", 7778, tls=True)
    route.follow(Redirect(host="10.0.0.2", port=7801, tls_port=7802))
    assert route.port == 7802
    with pytest.raises(RedirectRefused, match="without TLS"):
        route.follow(Redirect(host="10.0.0.3", port=7801))
    assert route.where() == "10.0.0.2:7802"  # not followed: nothing changed


def test_redirects_in_a_circle_are_refused_but_a_hand_off_after_each_welcome_is_not():
    route = Route("a", 1)
    for n in range(3 * MAX_HOPS):  # each process that takes the table welcomes, then hands it on
        route.follow(Redirect(host=f"p{n}", port=2))
        route.arrived()
    for n in range(MAX_HOPS):
        route.follow(Redirect(host=f"q{n}", port=2))
    with pytest.raises(RedirectRefused, match="from process to process"):
        route.follow(Redirect(host="again", port=2))
    route.lost()  # a lost connection between two redirects: a hand-off under way, not a loop
    for n in range(MAX_HOPS):
        route.follow(Redirect(host=f"r{n}", port=2))


def test_a_redirect_frame_tells_the_session_where_the_table_is():
    session = PeerSession("Ann", table_id="t1")
    session.data_to_send()
    [msg] = session.receive_data(encode_frame(Redirect(host="127.0.0.1", port=7801).wire()))
    assert isinstance(msg, Redirect) and session.redirect == msg
    assert session.closed is not None and session.closed.code == "redirect" and "127.0.0.1:7801" in session.closed.reason
    session.restart()  # the same hello again, for the process that has the table
    assert session.redirect is None and session.closed is None
    [hello] = list(FrameDecoder().feed(session.data_to_send()))
    assert parse_to_host(hello).table == "t1"


def test_a_redirect_is_checked_like_every_host_frame():
    for bad in ({"t": "redirect", "host": "", "port": 7801}, {"t": "redirect", "host": "h", "port": 0},
                {"t": "redirect", "host": "h", "port": 7801, "extra": 1}):
        with pytest.raises(Exception, match="malformed 'redirect'"):
            parse_to_peer(bad)


# -- a tiny real redirecting server on 127.0.0.1 ------------------------------------------------------


class Redirector:
    """Answers every hello with `redirect` to `self.to` (host, port), as a process of a server that
    does not run the table would; keeps the hellos it heard."""

    def __init__(self, to: tuple[str, int]) -> None:
        self.to = to
        self.hellos: list[Hello] = []
        self.port = 0

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._answer, listeners)

    async def _answer(self, stream: trio.SocketStream) -> None:
        async with stream:
            decoder = FrameDecoder()
            frames: list[object] = []
            while not frames:
                data = await stream.receive_some(4096)
                if not data:
                    return
                frames = list(decoder.feed(data))
            self.hellos.append(parse_to_host(frames[0]))
            await stream.send_all(encode_frame(Redirect(host=self.to[0], port=self.to[1]).wire()))


@pytest.mark.trio
async def test_play_seat_follows_a_redirect_to_the_table_and_plays_there(nursery):
    host = open_table(TableSpec(start=make_game("toy", seed=3, players=1)))
    await nursery.start(host.serve)
    redirector = Redirector(("127.0.0.1", host.port))
    await nursery.start(redirector.serve)
    session = PeerSession("Ann", table_id=host.table_id)
    with trio.move_on_after(60) as waited:
        await play_seat("127.0.0.1", redirector.port, session=session, on_messages=lambda s, m: s.deltas and waited.cancel())
    assert not waited.cancelled_caught or host.game.step >= 1  # cancelled by us once a step was played, never by the clock
    assert session.welcomed and session.seat == 0 and host.game.step >= 1
    assert [h.name for h in redirector.hellos] == ["Ann"] and redirector.hellos[0].table == host.table_id


@pytest.mark.trio
async def test_two_processes_sending_a_table_to_each_other_are_left_with_one_line(nursery):
    a, b = Redirector(("127.0.0.1", 0)), Redirector(("127.0.0.1", 0))
    await nursery.start(a.serve)
    await nursery.start(b.serve)
    a.to, b.to = ("127.0.0.1", b.port), ("127.0.0.1", a.port)
    with trio.fail_after(30):
        session = await play_seat("127.0.0.1", a.port, session=PeerSession("Ann", table_id="t1"))
    assert session.closed is not None and session.closed.code == "redirect_refused"
    assert "from process to process" in session.closed.reason
    assert len(a.hellos) + len(b.hellos) == MAX_HOPS + 1


def _in_thread(serve_all) -> tuple[threading.Thread, trio.lowlevel.TrioToken, list]:
    """Run `serve_all(nursery)` in a trio loop of its own thread (the app's link is asyncio)."""
    ready: list = []
    started = threading.Event()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            ready.append(trio.lowlevel.current_trio_token())
            ready.append(nursery)
            ready.append(await serve_all(nursery))
            started.set()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    assert started.wait(30)
    return thread, ready[0], ready


def _stop(thread: threading.Thread, token: trio.lowlevel.TrioToken, nursery: trio.Nursery) -> None:
    token.run_sync_soon(nursery.cancel_scope.cancel)
    thread.join(30)


def test_the_apps_link_follows_a_redirect_and_sits_at_the_table():
    from cthulhu.tui.netlink import JoinAs, NetLink

    host = open_table(TableSpec(start=make_game("toy", seed=3, players=1), code="owl"))

    async def serve_all(nursery: trio.Nursery) -> Redirector:
        await nursery.start(host.serve)
        redirector = Redirector(("127.0.0.1", host.port))
        await nursery.start(redirector.serve)
        return redirector

    thread, token, (_, nursery, redirector) = _in_thread(serve_all)
    try:
        async def main() -> None:
            link = NetLink(JoinAs(host="127.0.0.1", port=redirector.port, name="Ann", code="owl"))
            await link.open()
            try:
                conn = link._conns[0]
                assert conn.up and conn.session.seat == 0
                assert (conn.route.host, conn.route.port) == ("127.0.0.1", host.port)
                assert link.address == f"127.0.0.1:{redirector.port}"  # its seat is kept by the address typed
            finally:
                await link.close()

        asyncio.run(asyncio.wait_for(main(), 60))
    finally:
        _stop(thread, token, nursery)
    assert [h.code for h in redirector.hellos] == ["owl"]


def test_cthulhu_join_follows_a_redirect_by_itself(tmp_path):
    from cthulhu.core import Game, Setup

    host = open_table(TableSpec(start=Game.new(Setup(seed=5)), code="owl"))

    async def serve_all(nursery: trio.Nursery) -> Redirector:
        await nursery.start(host.serve)
        redirector = Redirector(("127.0.0.1", host.port))
        await nursery.start(redirector.serve)
        return redirector

    thread, token, (_, nursery, redirector) = _in_thread(serve_all)
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path), CTHULHU_CODE="owl", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "cthulhu.cli", "join", f"127.0.0.1:{redirector.port}", "--headless", "--bot", "random"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()  # the seat token, printed at the welcome
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
        _stop(thread, token, nursery)
    assert first.startswith("Seat 1 (") and "seat token" in first, first
    assert [h.name for h in redirector.hellos] == ["random bot"]
