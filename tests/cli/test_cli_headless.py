"""Headless commands never import Textual: they run on servers and in CI, where the app is dead weight.

Each command runs as a real process under `python -X importtime`, which lists
every module it imports; none may be Textual's, nor the app's own (its screens,
widgets, links, terminal). `cthulhu replay` tells a save's story with the modes'
narrators (`cthulhu.tui.modes`, `cthulhu.tui.narrate`: Rich text, no Textual); only
the commands that open the game interface (`play`, `host`/`join` without
`--headless`, `replay --tui`) import the app.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-X", "importtime", "-m", "cthulhu.cli"]
SAVES = Path(__file__).resolve().parents[2] / "saves"
APP = ("app", "screens", "widgets", "link", "netlink", "terminal", "replay", "themes", "options")  # the interface proper


def imported(stderr: str) -> set[str]:
    """Module names from `-X importtime` lines ('import time: self | cumulative | name')."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:") and "|" in line}


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def assert_headless(result: subprocess.CompletedProcess[str]) -> None:
    modules = imported(result.stderr)
    assert "cthulhu.core" in modules, "importtime listed nothing: the check would pass vacuously"
    app = tuple(f"cthulhu.tui.{part}" for part in APP)
    interface = sorted(m for m in modules if m == "textual" or m.startswith("textual.") or m in app or m.startswith(tuple(a + "." for a in app)))
    assert not interface, interface


def test_sim_content_saves_and_replay_import_no_textual(tmp_path):
    result = run("sim", "--games", "3", "--seed", "1", "--json")
    assert result.returncode == 0 and '"digest"' in result.stdout
    assert_headless(result)
    result = run("content", "check")
    assert result.returncode == 0 and "content ok" in result.stdout
    assert_headless(result)
    save = tmp_path / "example-won-shamblers.save"
    shutil.copyfile(SAVES / save.name, save)
    result = run("saves", "--saves", str(tmp_path))
    assert result.returncode == 0 and save.name in result.stdout
    assert_headless(result)
    for extra in ((), ("--json",)):
        result = run("replay", str(save), "--verify", *extra)
        assert result.returncode == 0, result.stderr[-2000:]
        assert_headless(result)


def test_headless_host_and_bot_peer_import_no_textual():
    host = subprocess.Popen([*CLI, "host", "--headless", "--port", "0", "--no-save", "--mode", "shamblers", "--seats", "2",
                             "--bots", "1", "--seed", "5", "--bot", "random", "--bot-delay", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        host.stdout.readline()
        m = re.match(r"Join with:\s+cthulhu join (\S+) --code (\S+)", host.stdout.readline())
        assert m, host.stderr.read() if host.poll() is not None else "no join line"
        peer = run("join", m.group(1), "--code", m.group(2), "--bot", "random", "--headless")
        assert peer.returncode == 0, peer.stderr[-2000:]
        assert_headless(peer)
        _, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert host.returncode == 0
    assert_headless(subprocess.CompletedProcess(host.args, host.returncode, "", host_err))


def test_the_check_can_tell():
    """Importing the app does bring Textual in, so an empty finding above means something."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", "import cthulhu.tui.app"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "textual" in {m.split(".")[0] for m in imported(result.stderr)}


def test_a_headless_host_with_front_doors_imports_no_textual(tmp_path):
    """`--ssh` and `--web` (asyncssh, aiohttp, textual-serve's process protocol) keep the host free of
    Textual: only each visitor's own interface process loads it."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    host = subprocess.Popen([*CLI, "host", "--headless", "--port", "0", "--no-save", "--seats", "2", "--ssh", "0", "--web", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = [host.stdout.readline() for _ in range(4)]
        assert lines[2].startswith("Over SSH:") and lines[3].startswith("In a browser:"), lines
        host.terminate()
        _, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert "cthulhu.serve.ssh" in imported(host_err) and "cthulhu.serve.web" in imported(host_err)
    assert_headless(subprocess.CompletedProcess(host.args, host.returncode, "", host_err))
