"""A server's doors serve a crowd (issue 41): its lobby is no table, so the one-table host's 16 visitors
are not the server's limit; the per-address cap follows `--max-per-address`; a visitor idle in the lobby
is let go; a full server says so in its own words, and a browser is refused before it is given a pass.

The end-to-end tests use a real `cthulhu server`, real OpenSSH clients from other loopback addresses
(`ssh -b 127.0.0.N`) and the system's Chromium."""

from __future__ import annotations

import itertools
import re
import subprocess
import time
from pathlib import Path

import pytest

from cthulhu.serve.admission import MAX_SESSIONS, Admission, Refused, visitors_for_memory
from cthulhu.tui.idle import LobbyIdle

from support.serve_helpers import Tmux, need, visitor_pids
from support.server_proc import ServerProcess

# -- the rules, without processes ------------------------------------------------------------------


def test_a_servers_admission_counts_the_servers_visitors_in_its_own_words(tmp_path: Path) -> None:
    import asyncio

    async def main() -> None:
        gate = Admission(code=None, folder=tmp_path / "v", table=("127.0.0.1", 1), server=True, max_sessions=3, max_per_address=2,
                         lobby_idle=600)
        first = await gate.admit(address="a", code=None, name="ann", identity="ssh:1")
        assert "--lobby-idle=600" in first.argv  # the visitor's interface lets them go when idle in the lobby
        await gate.admit(address="a", code=None, name="bob", identity="ssh:2")
        assert gate.no_room("a") == "too many sessions from your address (2); close one and try again"
        assert gate.no_room("b") is None  # asked before a pass is handed out: nothing is taken by asking
        await gate.admit(address="b", code=None, name="cleo", identity="ssh:3")
        with pytest.raises(Refused) as refused:
            await gate.admit(address="c", code=None, name="dan", identity="ssh:4")
        assert str(refused.value) == "the server has no room for more visitors (3 are here); try again later"
        assert "table" not in str(refused.value)

    asyncio.run(main())
    table = Admission(code=None, folder=tmp_path / "t", table=("127.0.0.1", 1))
    assert table.full() == "too many visitors at this table; try again later"  # a lone host's doors keep their words


def test_the_default_visitor_limit_is_sized_to_memory(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       25165824 kB\nMemFree:        1000 kB\n")  # 24 GiB
    assert visitors_for_memory(str(meminfo)) == 24 * 1024 // 2 // 48 == 256
    meminfo.write_text("MemTotal:       1048576 kB\n")  # 1 GiB: never below one table's visitors
    assert visitors_for_memory(str(meminfo)) == MAX_SESSIONS
    assert visitors_for_memory(str(tmp_path / "none")) >= MAX_SESSIONS


def test_idle_counts_only_time_in_the_lobby_and_any_key_starts_it_again() -> None:
    now = [0.0]
    idle = LobbyIdle(600, lambda: now[0])
    now[0] = 599
    assert not idle.over(in_lobby=True)
    idle.key()
    now[0] = 1198
    assert not idle.over(in_lobby=True)
    now[0] = 1199
    assert idle.over(in_lobby=True)
    now[0] = 5000
    assert not idle.over(in_lobby=False)  # at a table: a seat waits for its player
    now[0] = 5599
    assert not idle.over(in_lobby=True)  # back in the lobby: the count starts from the table
    now[0] = 5600
    assert idle.over(in_lobby=True)
    assert "10m without a key" in idle.farewell()


# -- real servers, real clients --------------------------------------------------------------------


_names = itertools.count(1)


def _ssh(server: ServerProcess, home: Path, source: str, *extra: str) -> list[str]:
    """An OpenSSH visitor from `source` (a loopback address of its own), without a key: a return ticket.
    Each with a name of its own (the user name): a server gives a name to one person only."""
    assert server.ssh_port is not None
    return ["ssh", "-p", str(server.ssh_port), "-b", source, "-o", f"UserKnownHostsFile={home / 'known_hosts'}",
            "-o", "StrictHostKeyChecking=accept-new", "-o", "ConnectTimeout=20", "-o", "LogLevel=ERROR",
            "-o", "PubkeyAuthentication=no", "-o", "KbdInteractiveAuthentication=yes", *extra, f"v{next(_names)}@127.0.0.1"]


def _visitors(server: ServerProcess, count: int, what: str, seconds: float = 120) -> None:
    assert server.proc is not None
    deadline = time.monotonic() + seconds
    while len(visitor_pids(under=server.proc.pid)) < count:
        assert time.monotonic() < deadline, f"{what}: {len(visitor_pids(under=server.proc.pid))} visitors, not {count}"
        time.sleep(0.2)


def _hold(server: ServerProcess, home: Path, source: str, count: int, held: list[subprocess.Popen[bytes]]) -> None:
    """`count` idle lobby visitors from `source`, logging in 8 at a time (the logging-in crowd's own cap)."""
    for start in range(0, count, 8):
        batch = min(8, count - start)
        for _ in range(batch):
            held.append(subprocess.Popen(_ssh(server, home, source, "-tt"), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL))
        _visitors(server, len(held), f"{len(held)} held from {source}")


def _text_drawn(tab) -> int:
    """Pixels the terminal's text layer has drawn: what a screenshot shows, not only what the stream carried."""
    return int(tab.page.evaluate("""() => {
        const c = document.querySelector('#terminal canvas.xterm-text-layer');
        if (!c) return -1;
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
        return n;
    }"""))


def test_a_crowd_from_two_addresses_cannot_shut_the_servers_doors(tmp_path: Path) -> None:
    """40 idle lobby visitors from one address (`--max-per-address 40`: all admitted) and 4 from another:
    a visitor from a third address reaches the lobby by `ssh`, a browser tab reaches it with its text drawn;
    at `--max-visitors` a further tab is refused on the form before any pass, and a further `ssh` is told
    the server is full, in the server's words."""
    from playwright.sync_api import sync_playwright

    from test_serve_web import Tab, browser

    need("ssh", "openssh-client")
    server = ServerProcess(tmp_path / "server", args=("--ssh", "0", "--web", "0", "--max-per-address", "40", "--max-visitors", "46")).start()
    held: list[subprocess.Popen[bytes]] = []
    term = Tmux("cthulhu-door-crowd")
    try:
        _hold(server, tmp_path, "127.0.0.2", 40, held)
        one_more = subprocess.run(_ssh(server, tmp_path, "127.0.0.2", "-tt"), stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=60)
        assert "too many sessions from your address (40)" in one_more.stderr, one_more.stderr
        _hold(server, tmp_path, "127.0.0.3", 4, held)

        term.open("third", " ".join(_ssh(server, tmp_path, "127.0.0.4")) + "; echo SSH-EXIT=$?; sleep 60")
        term.wait_for("third", "you are", seconds=60)
        with sync_playwright() as playwright:
            context = browser(playwright)
            try:
                tab = Tab(context, server.url)
                tab.page.wait_for_selector("#sit")
                tab.page.fill("#name", "cleo")
                tab.page.click("#sit")
                tab.page.wait_for_selector("body.-first-byte", timeout=60000)
                tab.wait_for_text(r"you are cleo", seconds=60)
                for _ in range(100):  # the canvas is painted on the next animation frame
                    if _text_drawn(tab) > 500:
                        break
                    tab.page.wait_for_timeout(100)
                assert _text_drawn(tab) > 500, "the lobby's text is in the stream but not on the page"
                _visitors(server, 46, "the 44 held, the third address and the tab")

                full = Tab(context, server.url)
                full.page.wait_for_selector("#sit")
                full.page.click("#sit")
                message = full.page.wait_for_selector("#message").inner_text()
                assert message == "Refused: the server has no room for more visitors (46 are here); try again later.", message
                assert not any("/ws/" in url for url in full.requests)  # no pass, no blank terminal
                late = subprocess.run(_ssh(server, tmp_path, "127.0.0.5", "-tt"), stdin=subprocess.DEVNULL, capture_output=True,
                                      text=True, timeout=60)
                assert "the server has no room for more visitors (46 are here)" in late.stderr, late.stderr
                assert "table" not in late.stderr
            finally:
                context.close()
    finally:
        term.close()
        for client in held:
            client.kill()
            client.wait()
        code, _, err = server.stop()
    assert code == 0, err
    assert "Traceback" not in err, err


def test_a_visitor_idle_in_the_lobby_is_let_go_with_one_line(tmp_path: Path) -> None:
    need("ssh", "openssh-client")
    server = ServerProcess(tmp_path / "server", args=("--ssh", "0", "--lobby-idle", "3s")).start()
    term = Tmux("cthulhu-lobby-idle")
    try:
        term.open("idle", " ".join(_ssh(server, tmp_path, "127.0.0.2")) + "; echo SSH-EXIT=$?; sleep 60")
        term.wait_for("idle", "you are", seconds=60)
        term.keys("idle", "m")  # a key: the count starts again, and the visitor is still in the lobby
        term.wait_for("idle", "My tables")
        done = term.wait_for("idle", "SSH-EXIT=", seconds=60)
        said = re.sub(r"\s+", " ", done)
        assert "You were in the lobby for 3s without a key, so the door let you go to make room for others" in said, done
        assert "Traceback" not in done
        assert server.proc is not None
        _visitors_gone = [pid for pid in visitor_pids(under=server.proc.pid)]
        assert _visitors_gone == []
    finally:
        term.close()
        code, _, err = server.stop()
    assert code == 0, err
    assert "Traceback" not in err, err


def test_server_door_options_are_checked(tmp_path: Path) -> None:
    import sys

    for args, words in ((["--lobby-idle", "soon"], "--lobby-idle: 'soon' is not a duration"),
                        (["--max-visitors", "0"], "--max-visitors must be 1 to 100000, not 0")):
        done = subprocess.run([sys.executable, "-m", "cthulhu.cli", "server", "--data", str(tmp_path / "d"), "--port", "0", *args],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and words in done.stderr, done.stderr
