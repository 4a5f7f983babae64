"""`cthulhu server --ssh`: the real OpenSSH client, in a tmux terminal, reaches the server's lobby,
sits at a table made with `cthulhu tables --create`, leaves, and comes back by the same key to
find it among "my tables"."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.serve_helpers import Tmux, need
from support.server_proc import ServerProcess, tables


def _ssh(server: ServerProcess, home: Path, key: str) -> str:
    return " ".join(["ssh", "-p", str(server.ssh_port), "-o", f"UserKnownHostsFile={home / 'known_hosts'}",
                     "-o", "StrictHostKeyChecking=accept-new", "-o", "ConnectTimeout=10", "-o", "LogLevel=ERROR",
                     "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-i", str(home / key), f"{key}@127.0.0.1"])


def test_an_ssh_visitor_reaches_the_lobby_sits_and_finds_the_table_among_theirs(tmp_path: Path) -> None:
    need("ssh", "openssh-client")
    keygen = need("ssh-keygen", "openssh-client")
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "ann", "-f", str(tmp_path / "ann")], check=True)
    server = ServerProcess(tmp_path / "server", args=("--ssh", "0")).start()
    term = Tmux("cthulhu-server-ssh")
    try:
        assert server.ssh_port is not None
        made = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--name", "Bea", home=tmp_path / "bea")
        term.open("ann", _ssh(server, tmp_path, "ann") + "; echo SSH-EXIT=$?; sleep 60")
        lobby = term.wait_for("ann", made["id"])
        assert "you are ann" in lobby and "Shamblers: Normal" in lobby and "1 open" in lobby
        term.keys("ann", "Enter")  # sit at it
        term.wait_for_notice("ann", "Joined the table; you play Player 1")
        [row] = tables(server.address, home=tmp_path / "bea")
        assert row["seats"][0] == {"seat": 1, "name": "ann", "status": "person"}
        term.keys("ann", "C-q")
        term.wait_for("ann", "SSH-EXIT=0")

        term.open("again", _ssh(server, tmp_path, "ann") + "; sleep 60")  # the same key: the same player
        term.wait_for("again", "you are ann")
        term.keys("again", "m")
        mine = term.wait_for("again", "My tables in play: 1")
        assert made["id"] in mine and ("yours" in mine or "your move" in mine)
        term.keys("again", "C-q")
    finally:
        term.close()
        code, _, err = server.stop()
    assert code == 0, err
    assert "Traceback" not in err, err


def test_a_browser_tab_reaches_the_lobby_and_sits(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from test_serve_web import Tab, browser

    server = ServerProcess(tmp_path / "server", args=("--web", "0")).start()
    try:
        assert server.url is not None
        made = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--name", "Bea", home=tmp_path / "bea")
        with sync_playwright() as playwright:
            context = browser(playwright)
            try:
                tab = Tab(context, server.url)
                tab.page.wait_for_selector("#sit")
                tab.page.fill("#name", "cleo")
                tab.page.click("#sit")
                tab.page.wait_for_selector("body.-first-byte", timeout=30000)
                tab.wait_for_text(r"you are cleo")
                tab.wait_for_text(made["id"])
                tab.page.keyboard.press("Enter")  # sit at it
                tab.wait_for_text(r"you play Player 1")
                [row] = tables(server.address, home=tmp_path / "bea")
                assert row["seats"][0] == {"seat": 1, "name": "cleo", "status": "person"}
            finally:
                context.close()
    finally:
        code, _, err = server.stop()
    assert code == 0, err
    assert "Traceback" not in err, err


def test_an_ssh_visitor_in_the_lobby_is_told_the_server_stopped(tmp_path: Path) -> None:
    need("ssh", "openssh-client")
    keygen = need("ssh-keygen", "openssh-client")
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "ann", "-f", str(tmp_path / "ann")], check=True)
    server = ServerProcess(tmp_path / "server", args=("--ssh", "0")).start()
    term = Tmux("cthulhu-server-stops")
    try:
        term.open("ann", _ssh(server, tmp_path, "ann") + "; echo SSH-EXIT=$?; sleep 60")
        term.wait_for("ann", "you are ann")
        code, _, err = server.stop()
        shown = term.wait_for("ann", "SSH-EXIT=")
    finally:
        term.close()
        if server.proc is not None and server.proc.poll() is None:
            server.stop()
    assert code == 0, err
    said = "".join(shown.split())  # the lines as the terminal wrapped them, spaces aside

    def told(words: str) -> bool:
        return "".join(words.split()) in said

    assert told("cthulhu: the server stopped; its tables are saved and wait for you."), shown
    assert not told("host closed") and not told("open again:"), shown
    assert told("To come back to your seat, use the same key:"), shown
