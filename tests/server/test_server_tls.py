"""TLS on the game port: a real `cthulhu server --tls-cert/--tls-key` with a self-signed certificate
made here, `cthulhu tables` and `cthulhu join` at `tls://` through it, the identity key in the clear
on the plain port and never on the TLS one, a client refusing a certificate it does not trust (one
line, exit 2), and garbage or silence on the TLS port costing the server a quiet line at most."""

from __future__ import annotations

import json
import secrets
import socket
import subprocess
from pathlib import Path

import pytest
import trio

from cthulhu.net.gate import Gate
from cthulhu.net.limits import Limits
from cthulhu.net.lobbyclient import open_lobby
from cthulhu.net.tls import client_context, serve_tls, server_context

from support.server_proc import CLI, ServerProcess, player_env, tables


def make_cert(folder: Path, name: str = "server") -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, as docs/hosting.md makes one."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.fixture
def server(tmp_path):
    cert, key = make_cert(tmp_path)
    proc = ServerProcess(tmp_path / "server", args=("--tls-port", "0", "--tls-cert", str(cert), "--tls-key", str(key))).start()
    proc.cert = cert
    try:
        yield proc
    finally:
        proc.stop()


def test_tables_and_join_play_a_table_over_tls(server, tmp_path):
    assert server.tls_port and server.tls_port != server.port
    secure = f"tls://127.0.0.1:{server.tls_port}"
    assert any(f"cthulhu join {secure}" in line for line in server.lines), server.lines
    home = tmp_path / "ann"
    made = tables(secure, "--tls-ca", str(server.cert), "--create", "--mode", "shamblers", "--seats", "2", "--bots", "1",
                  "--bot", "random", "--bot-delay", "0", "--name", "Ann", home=home)
    assert made["join"] == f"cthulhu join {secure} --table {made['id']}"
    played = subprocess.run([*CLI, "join", secure, "--tls-ca", str(server.cert), "--table", made["id"], "--headless", "--bot", "random",
                             "--name", "Ann", "--json"], capture_output=True, text=True, timeout=300, env=player_env(home))
    assert played.returncode == 0, played.stderr
    summary = json.loads(played.stdout)
    assert summary["final_hash"] and summary["dice"] == "verified"
    [row] = [t for t in tables(secure, "--tls-ca", str(server.cert), "--mine", home=home) if t["id"] == made["id"]]
    assert row["finished"] and [s["name"] for s in row["seats"]][0] == "Ann"  # the same identity, over TLS, both times
    code, _, err = server.stop()
    assert code == 0 and "Traceback" not in err


async def _relay(listener: trio.SocketListener, port: int, seen: bytearray) -> None:
    """Pass one connection on to 127.0.0.1:`port`, keeping what the client sent (what a network would carry)."""
    client = await listener.accept()
    upstream = await trio.open_tcp_stream("127.0.0.1", port)

    async def pump(source: trio.abc.Stream, sink: trio.abc.Stream, keep: bool) -> None:
        try:
            while data := await source.receive_some(65536):
                if keep:
                    seen.extend(data)
                await sink.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            await sink.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump, client, upstream, True)
        nursery.start_soon(pump, upstream, client, False)


def _carried(port: int, name: str, ident: str, tls: object) -> tuple[bytes, str]:
    """What a lobby session of `name` with identity `ident` puts on the wire to `port`, and the
    name its welcome says the identity is known by."""

    async def main() -> tuple[bytes, str]:
        seen = bytearray()
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                [listener] = await trio.open_tcp_listeners(0, host="127.0.0.1")
                nursery.start_soon(_relay, listener, port, seen)
                relay = listener.socket.getsockname()[1]
                async with open_lobby("127.0.0.1", relay, name, ident, tls) as lobby:  # type: ignore[arg-type]
                    welcome = await lobby.welcomed()
                    await lobby.tables()
                nursery.cancel_scope.cancel()
        return bytes(seen), welcome.name

    return trio.run(main)


def test_the_identity_key_crosses_the_plain_port_in_the_clear_and_the_tls_port_never(server):
    ident = secrets.token_urlsafe(24)
    plain, plain_name = _carried(server.port, "Eve", ident, None)
    secure, secure_name = _carried(server.tls_port, "Zed", ident, client_context(str(server.cert)))
    assert ident.encode() in plain and b"Eve" in plain  # a bearer secret: anyone on the way may copy it
    assert ident.encode() not in secure and b"Zed" not in secure and len(secure) > len(ident)
    assert plain_name == secure_name == "Eve"  # the same identity: the server read the key from the TLS stream


def _one_line_exit_2(result: subprocess.CompletedProcess[str], words: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in result.stderr, result.stderr


def test_a_client_refuses_a_certificate_it_does_not_trust(server, tmp_path):
    secure = f"tls://127.0.0.1:{server.tls_port}"
    env = player_env(tmp_path / "bob")
    listed = subprocess.run([*CLI, "tables", secure], capture_output=True, text=True, timeout=60, env=env)  # the system's store: not this one
    _one_line_exit_2(listed, "does not trust")
    other, _ = make_cert(tmp_path, "other")  # someone else's certificate (a server pretending)
    joined = subprocess.run([*CLI, "join", secure, "--tls-ca", str(other), "--table", "abc", "--headless", "--bot", "random"],
                            capture_output=True, text=True, timeout=60, env=env)
    _one_line_exit_2(joined, "does not trust")
    wrong_port = subprocess.run([*CLI, "tables", f"tls://127.0.0.1:{server.port}", "--tls-ca", str(server.cert)],
                                capture_output=True, text=True, timeout=60, env=env)
    _one_line_exit_2(wrong_port, "no TLS at")
    no_file = subprocess.run([*CLI, "tables", secure, "--tls-ca", str(tmp_path / "missing.pem")], capture_output=True, text=True, timeout=60, env=env)
    _one_line_exit_2(no_file, "--tls-ca")
    assert not (tmp_path / "bob" / "cthulhu" / "seats.json").exists() or "Bob" not in (tmp_path / "bob" / "cthulhu" / "seats.json").read_text()


def test_garbage_on_the_tls_port_costs_a_quiet_line(server):
    for n in range(20):
        with socket.create_connection(("127.0.0.1", server.tls_port), timeout=30) as sock:
            sock.sendall(b"\x00\x00\x00\x05hello" if n % 2 else b"GET / HTTP/1.0\r\n\r\n" + bytes(range(256)))
            sock.settimeout(30)
            while sock.recv(4096):  # the server closes it
                pass
    assert tables(f"tls://127.0.0.1:{server.tls_port}", "--tls-ca", str(server.cert)) == []  # and serves on
    code, _, err = server.stop()
    assert code == 0 and "Traceback" not in err
    told = [line for line in err.splitlines() if "TLS" in line]
    assert told and len(told) < 20 and all("closed a TLS connection from 127.0.0.1" in line for line in told), err


def test_silent_tls_connections_wait_in_the_gates_crowd_and_are_closed_at_the_hello_deadline(tmp_path):
    """The handshakes that have not come wait among the connections that said nothing yet: a few
    per address (the oldest closed to make room), and none past the hello deadline."""
    cert, key = make_cert(tmp_path)
    limits = Limits(max_unverified_per_address=3, hello_timeout=5.0)
    handled: list[str] = []

    async def handler(stream: trio.abc.Stream, address: str, first: bytes) -> None:
        handled.append(address)
        await stream.aclose()

    async def main() -> None:
        gate = Gate(limits, trio.current_time)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve_tls, 0, "127.0.0.1", server_context(str(cert), str(key)), limits, gate, handler)
            silent = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(5)]
            with trio.fail_after(30):
                for stream in silent[:2]:  # the oldest two made room for the last two
                    assert await stream.receive_some(100) == b""
                while len(gate.waiting) != 3:
                    await trio.sleep(0.01)
            assert gate.waiting.count("127.0.0.1") == 3
            ok = trio.SSLStream(await trio.open_tcp_stream("127.0.0.1", port), client_context(str(cert)), server_hostname="127.0.0.1")
            await ok.do_handshake()  # a real client still gets in (and pushes out the oldest silent one)
            with trio.fail_after(30):
                while not handled:
                    await trio.sleep(0.01)
                for stream in silent[2:]:  # the rest at the hello deadline
                    assert await stream.receive_some(100) == b""
            assert len(gate.waiting) == 0 and handled == ["127.0.0.1"]
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_the_app_opens_the_lobby_and_sits_at_a_table_over_tls_and_refuses_an_untrusted_server(server, tmp_path, monkeypatch):
    import asyncio

    from support.tui_drive import screen_text, started, wait_for

    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.options import PlayOptions
    from cthulhu.tui.screens.tables import TablesScreen

    secure = f"tls://127.0.0.1:{server.tls_port}"
    made = tables(secure, "--tls-ca", str(server.cert), "--create", "--mode", "shamblers", "--seats", "2", "--name", "Bea", home=tmp_path / "bea")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))
    at = PlayOptions(join=("127.0.0.1", server.tls_port), join_address=secure, tls=client_context(str(server.cert)), name="Ann")

    async def lobby_then_table() -> None:
        app = CthulhuApp(at)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TablesScreen) and app.screen.page is not None, tries=1500)
            assert made["id"] in screen_text(app) and "you are Ann" in " ".join(screen_text(app).split())
        app = CthulhuApp(at.with_(join_table=made["id"]))
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await started(pilot)
            assert screen.link.local_seats == frozenset({0})

    async def untrusted() -> str | None:
        app = CthulhuApp(at.with_(tls=client_context(), join_table=made["id"]))  # the system's store: not this certificate
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: not app.is_running, tries=1500)
        return app.failure

    asyncio.run(asyncio.wait_for(lobby_then_table(), 120))
    seated = tables(secure, "--tls-ca", str(server.cert), "--mine", home=tmp_path / "ann")
    assert [(s["seat"], s["name"]) for s in seated[0]["seats"]][0] == (1, "Ann")
    failure = asyncio.run(asyncio.wait_for(untrusted(), 120))
    assert failure is not None and "does not trust" in failure
