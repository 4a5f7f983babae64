"""A peer's name and chat are data: never terminal control, never markup, wherever they are shown.

The victim is a real `cthulhu join --watch` in a real pseudo-terminal, at a real
headless host on 127.0.0.1; hostile peers join with a name and chat lines full of
escape sequences (`hostile.PAYLOADS`). Every byte the victim's program writes to
its terminal is kept and searched. The same payloads stored in a save must not
reach the terminal through `cthulhu saves` or `cthulhu replay` either.
"""

from __future__ import annotations

import subprocess

import pytest
import trio

from cthulhu.core import Game, Setup
from cthulhu.net.client import PeerSession, TrioPeer
from cthulhu.net.frames import encode_frame
from cthulhu.table import TableSpec, open_table
from cthulhu.net.messages import PROTOCOL_VERSION, Chat, Error
from cthulhu.savegame.writer import SaveWriter
from cthulhu.net.textclean import CHAT_MAX, NAME_MAX, CleanFormatter, clean_text, clean_tree

from support.hostile import EVIL_NAME, PAYLOADS, cthulhu, reached
from support.pty_term import PtyTerm
from support.net_games import make_game
from support.host_proc import CODE, HostProcess

BAD_CHARS = [chr(c) for c in range(0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)] + list("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200e\u200f\ufeff")


# ---- the one cleaning function --------------------------------------------------------------------


@pytest.mark.parametrize("payload", [p for p, _, _ in PAYLOADS.values()] + [EVIL_NAME, "".join(BAD_CHARS)])
def test_clean_text_leaves_printable_characters_only(payload):
    out = clean_text(payload)
    assert out.isprintable() and not any(c in out for c in BAD_CHARS)


def test_clean_text_keeps_honest_text_and_limits_length():
    honest = "Ada Whitlock [the brave] — ünïcode, 日本語, 🐙"
    assert clean_text(honest) is honest
    assert clean_text("a\tb\nc\u00a0d") == "a b c d"
    assert clean_text("line one\nline two", newlines=True) == "line one\nline two"
    assert clean_text("x" * 500, 300) == "x" * 300


def test_clean_tree_copies_only_what_it_cleans():
    honest = {"a": ["b", {"c": "d"}], "n": 3}
    assert clean_tree(honest) is honest
    dirty = {"a": ["b", {"c": "\x1b[2Jd"}], "keep": ["x"], "n": 3}
    out = clean_tree(dirty)
    assert out == {"a": ["b", {"c": "[2Jd"}], "keep": ["x"], "n": 3}
    assert out["keep"] is dirty["keep"] and dirty["a"][1]["c"] == "\x1b[2Jd"


def test_log_lines_are_cleaned():
    import logging

    record = logging.LogRecord("cthulhu.net.host", logging.WARNING, __file__, 1, "peer %s joined", (EVIL_NAME,), None)
    line = CleanFormatter("%(message)s").format(record)
    assert line.isprintable() and "PWNTITLE" in line


# ---- at the host's door -----------------------------------------------------------------------------


@pytest.mark.trio
async def test_the_host_cleans_and_shortens_names_and_chat_before_anyone_sees_them(nursery):
    game = make_game("toy", seed=3, players=2)
    host = open_table(TableSpec(start=game, autostart=False))
    await nursery.start(host.serve)
    evil = await TrioPeer.connect("127.0.0.1", host.port, PeerSession(EVIL_NAME + "x" * 19))
    watcher = await TrioPeer.connect("127.0.0.1", host.port, PeerSession("w", watch=True))
    text = "".join(p for p, _, _ in PAYLOADS.values()) + "y" * 400
    with trio.fail_after(5):
        while not (evil.session.welcomed and watcher.session.welcomed):
            await evil.receive() if not evil.session.welcomed else await watcher.receive()
        evil.session.chat(text[:500])
        await evil.flush()
        chats: list[Chat] = []
        while not chats:
            chats += [m for m in await watcher.receive() if isinstance(m, Chat)]
    (chat,) = chats
    assert chat.text.isprintable() and len(chat.text) <= CHAT_MAX and "PWNTITLE" in chat.text
    assert chat.name.isprintable() and len(chat.name) <= NAME_MAX and chat.name == host.seats[0].name
    seat_names = [s.name for s in watcher.session.table.seats if s.name]
    assert seat_names and all(n.isprintable() for n in seat_names)


@pytest.mark.trio
async def test_a_name_with_nothing_printable_is_refused(nursery):
    game = make_game("toy", seed=3, players=2)
    host = open_table(TableSpec(start=game, autostart=False))
    await nursery.start(host.serve)
    stream = await trio.open_tcp_stream("127.0.0.1", host.port)
    await stream.send_all(encode_frame({"t": "hello", "proto": PROTOCOL_VERSION, "name": "\x1b\x07\u202e\u200b \t"}))
    session = PeerSession("x")
    got = []
    with trio.fail_after(5):
        while data := await stream.receive_some(4096):
            got += session.receive_data(data)
    assert [(m.code, m.fatal) for m in got if isinstance(m, Error)] == [("bad_name", True)]
    assert host.seats[0].kind == "open"


# ---- a victim's real terminal -------------------------------------------------------------------------


async def _hostile(port: int, name: str, lines: list[str], watch: bool) -> TrioPeer:
    peer = await TrioPeer.connect("127.0.0.1", port, PeerSession(name, code=CODE, watch=watch))
    while not peer.session.welcomed:
        assert await peer.receive(), "the host closed a hostile peer before its welcome"
    for line in lines:
        peer.session.chat(line)
        await peer.flush()
        await trio.sleep(0.25)  # within the chat rate, so every line is relayed and drawn
    return peer


@pytest.mark.trio
async def test_no_control_sequence_or_markup_from_a_peer_reaches_a_victims_terminal(tmp_path):
    host = HostProcess(tmp_path, "--seats", "2", "--save", str(tmp_path / "t.save"))
    victim = None
    peers: list[TrioPeer] = []
    try:
        with trio.fail_after(60):
            port, _ = await host.start()
            victim = PtyTerm(cthulhu("join", f"127.0.0.1:{port}", "--code", CODE, "--watch"), cols=200, rows=60)
            assert await trio.to_thread.run_sync(victim.read_until, b"watching", 30), victim.data[-2000:]
            payloads = [p for p, _, _ in PAYLOADS.values()]
            # Three hostile peers (a seat and two watchers), a few lines each: every line is drawn.
            for n, chunk in enumerate((payloads[:4], payloads[4:8], payloads[8:] + ["END-OF-PAYLOADS"])):
                peers.append(await _hostile(port, EVIL_NAME, chunk, watch=n > 0))
            assert await trio.to_thread.run_sync(victim.read_until, b"END-OF-PAYLOADS", 20), victim.data[-3000:]
            victim.send("L")  # the table dialog lists the seat names
            assert await trio.to_thread.run_sync(victim.read_until, b"open seat(s)", 10)
            await trio.to_thread.run_sync(victim.drain)
    finally:
        for p in peers:
            await p.aclose()
        if victim is not None:
            victim.close()
        host.close()
    data = bytes(victim.data)
    assert {name: hits for name, (hits, _) in reached(data).items()} == {name: 0 for name in PAYLOADS}
    assert all(shown for _, shown in reached(data).values()), reached(data)  # shown, only defused
    assert data.count(b"]0;PWNTITLEEvil[b]") >= 2  # the name: in the log and in the table dialog
    assert "Traceback" not in host.stderr()


VIEW_PAYLOADS = {  # strings a hostile host puts in the view itself: (where, payload, must not arrive, marker)
    # (The prompt bar words a main-game prompt from its options' data and names, not from the prompt's text:
    # the ritual's name stands in for a free-text string of the view that is drawn.)
    "ritual": ("\x1b[2JVIEWPROMPT", b"\x1b[2JVIEWPROMPT", b"VIEWPROMPT"),
    "investigator": ("\x1b]52;c;VIEWNAME\x07Ada", b"\x1b]52;c;VIEWNAME", b"VIEWNAME"),
    "episode": ("\u202eVIEWEPISODE", "\u202eVIEWEPISODE".encode(), b"VIEWEPISODE"),
}


async def _hostile_host(task_status=trio.TASK_STATUS_IGNORED):
    """Not our host: a server that speaks the protocol and puts payloads everywhere a string goes."""
    from cthulhu.net.delta import view_hash

    view = Game.new(Setup(seed=1)).view(None)
    view["prompt"]["text"] = VIEW_PAYLOADS["ritual"][0]
    view["ritual"]["name"] = VIEW_PAYLOADS["ritual"][0]
    view["investigators"][0]["name"] = VIEW_PAYLOADS["investigator"][0]
    view["episode"]["name"] = VIEW_PAYLOADS["episode"][0]
    table = {"mode": "main", "started": True, "spectators": 1,
             "seats": [{"seat": 0, "kind": "human", "name": EVIL_NAME, "connected": True}]}

    async def serve(stream):
        await stream.receive_some(4096)  # the hello
        await stream.send_all(encode_frame({"t": "welcome", "proto": PROTOCOL_VERSION, "seat": None, "token": None, "table": table,
                                            "seq": 0, "view": view, "hash": view_hash(view)}))
        for payload, _, _ in PAYLOADS.values():
            await stream.send_all(encode_frame({"t": "chat", "text": payload, "name": EVIL_NAME, "seat": 0}))
            await trio.sleep(0.2)
        await stream.send_all(encode_frame({"t": "error", "code": "rate_limited", "reason": "\x1b]0;REASONTITLE\x07", "fatal": False, "details": []}))
        await stream.send_all(encode_frame({"t": "chat", "text": "END-OF-PAYLOADS", "name": "x", "seat": 0}))
        await trio.sleep_forever()

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(serve, listeners)


@pytest.mark.trio
async def test_a_hostile_host_cannot_reach_a_joiners_terminal_either(nursery):
    """The joiner cleans at its own sinks: even a host that relays raw payloads in views,
    chat, seat names and error reasons gets none of them to the terminal."""
    port = await nursery.start(_hostile_host)
    victim = PtyTerm(cthulhu("join", f"127.0.0.1:{port}", "--watch"), cols=200, rows=60)
    try:
        assert await trio.to_thread.run_sync(victim.read_until, b"END-OF-PAYLOADS", 40), victim.data[-3000:]
        victim.send("L")
        assert await trio.to_thread.run_sync(victim.read_until, b"open seat(s)", 10)
        await trio.to_thread.run_sync(victim.drain)
    finally:
        victim.close()
    data = bytes(victim.data)
    assert {name: hits for name, (hits, _) in reached(data).items()} == {name: 0 for name in PAYLOADS}
    assert all(shown for _, shown in reached(data).values()), reached(data)
    for where, (_, bad, shown) in VIEW_PAYLOADS.items():
        assert bad not in data and shown in data, where
    assert b"\x1b]0;REASONTITLE" not in data and b"]0;REASONTITLE" in data


# ---- saves printed by the command line ------------------------------------------------------------------


def test_saves_and_replay_print_no_control_sequence_from_a_save(tmp_path, content):
    game = Game.new(Setup(seed=4, players=2), content)
    names = [EVIL_NAME, "".join(p for p, _, _ in PAYLOADS.values())[:40]]
    players = [{"seat": n, "name": name, "token_hash": "0" * 32} for n, name in enumerate(names)]
    SaveWriter(tmp_path / "evil.save", game, players=players, autosave=False).write()
    for args in (["saves", "--saves", str(tmp_path)], ["replay", str(tmp_path / "evil.save")]):
        out = subprocess.run(cthulhu(*args), capture_output=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert not any(c.encode() in out.stdout + out.stderr for c in BAD_CHARS if c not in "\n"), out.stdout
        if args[0] == "replay":
            assert b"]0;PWNTITLEEvil[b]" in out.stdout  # the name is still shown, defused
