"""`cthulhu host --ssh`: the real OpenSSH client, in tmux terminals, against the real host process.

Two players join by `ssh`, play turns, one resizes, one drops and comes back to
the same seat; commands, a terminal-less shell, sftp, port forwards and 50
wrong codes are each refused with one line and no traceback.
"""

from __future__ import annotations

import os
import re
import socket
import sys
import stat
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from support.serve_helpers import CODE, HostProcess, Tmux, Watcher, ancestors, fill_spectators, need, parent_of, running, visitor_pids


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory):
    need("ssh", "openssh-client")
    keygen = need("ssh-keygen", "openssh-client")
    home = tmp_path_factory.mktemp("ssh")
    for who in ("alice", "bob"):
        subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", who, "-f", str(home / who)], check=True)
    host = HostProcess(home / "data", "--seats", "2", "--seed", "7", "--ssh", "0")
    yield host, home
    code = host.stop()
    assert code in (0, 143), host.stderr
    assert "Traceback" not in host.stderr, host.stderr


def command_lines(under: int | None = None) -> list[str]:
    """Every process's command line, as `ps` shows it to anyone on this machine; with `under`, only that
    process's descendants (other suites, or other pytest workers, may run the same test at once)."""
    lines: list[str] = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if under is not None and (int(proc.name) == under or under not in ancestors(int(proc.name))):
                continue
            lines.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except (OSError, ValueError):
            continue  # gone meanwhile
    return lines


def ssh_argv(host: HostProcess, home: Path, key: str | None, *extra: str, log_level: str = "ERROR") -> list[str]:
    argv = ["ssh", "-p", str(host.ssh_port), "-o", f"UserKnownHostsFile={home / 'known_hosts'}", "-o", "StrictHostKeyChecking=accept-new",
            "-o", "ConnectTimeout=10", "-o", f"LogLevel={log_level}"]
    if key is None:
        argv += ["-o", "PubkeyAuthentication=no", "-o", "KbdInteractiveAuthentication=yes"]
    else:
        argv += ["-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-i", str(home / key)]
    return argv + list(extra)


def ssh_once(host: HostProcess, home: Path, *options: str, command: str = "", key: str | None = "alice", user: str = CODE) -> subprocess.CompletedProcess:
    argv = ssh_argv(host, home, key, *options, f"{user}@127.0.0.1") + ([command] if command else [])
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_two_players_play_resize_drop_and_return(table) -> None:
    host, home = table
    term = Tmux("cthulhu-ssh-test")
    watcher = Watcher(host.port)
    try:
        for who in ("alice", "bob"):
            term.open(who, " ".join(ssh_argv(host, home, who, f"{who}+{CODE}@127.0.0.1")) + "; echo SSH-EXIT=$?; sleep 60")
        watcher.until(lambda: sorted(n for k, n, c in watcher.seats().values() if k == "human" and c) == ["alice", "bob"], "both seated")
        watcher.until(lambda: watcher.deciding is not None, "the game to start")
        seat_of = {name: seat for seat, (kind, name, _) in watcher.seats().items()}
        window_of = {seat: name for name, seat in seat_of.items()}
        for who in ("alice", "bob"):
            term.wait_for(who, "Map")
        # Each player's interface is a process on the host; any user of the machine can read its command
        # line (ps), so the table code is not on it (it travels in the environment, which is the owner's only).
        assert len(visitor_pids(under=host.proc.pid)) == 2
        lines = command_lines(under=host.proc.pid)
        assert lines and not any(CODE in line for line in lines), lines

        def play(turns: int) -> None:
            for _ in range(turns):
                step, seat = watcher.step, watcher.deciding
                term.wait_for(window_of[seat], "1 ")  # its prompt bar lists the choices
                term.keys(window_of[seat], "1")
                watcher.until(lambda: watcher.step > step, f"step {step} to be played by seat {seat}")

        play(6)

        # The host printed the key's fingerprint; OpenSSH recorded the same key.
        listed = subprocess.run(["ssh-keygen", "-l", "-f", str(home / "known_hosts")], capture_output=True, text=True, check=True).stdout
        assert host.fingerprint in listed
        key_file = home / "data" / "cthulhu" / "ssh_host_ed25519_key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

        # Bob resizes his terminal: his interface lays itself out for the new size.
        assert "Story Board" not in term.screen("bob").splitlines()[2]
        term.resize("bob", 130, 40)
        shown = term.wait_for("bob", "╭─ Story Board")
        assert len(shown.splitlines()) == 40 and "╭─ Map" in shown.splitlines()[1]

        # Bob's connection drops; his seat waits; the same key brings him back to the same seat.
        term.kill("bob")
        watcher.until(lambda: watcher.seats()[seat_of["bob"]] == ("human", "bob", False), "bob's seat to be away")
        term.open("bob", " ".join(ssh_argv(host, home, "bob", f"{CODE}@127.0.0.1")) + "; sleep 60")
        watcher.until(lambda: watcher.seats()[seat_of["bob"]][2], "bob back")
        assert watcher.seats()[seat_of["bob"]][0] == "human"
        assert sum(1 for kind, _, _ in watcher.seats().values() if kind == "human") == 2  # no third seat, no one watching instead
        term.wait_for("bob", "Map")
        play(4)  # and the game goes on, whoever's turn it is
    finally:
        watcher.close()
        term.close()


def test_commands_shells_forwards_and_files_are_refused(table) -> None:
    host, home = table
    line = "cthulhu: this server runs the game only; commands are refused"
    for options, command in (((), "ls"), (("-tt",), "ls"), (("-T",), "cat /etc/passwd")):
        done = ssh_once(host, home, *options, command=command)
        assert done.returncode == 1 and line in done.stderr, done
    shell = ssh_once(host, home, "-T")  # a shell without a terminal
    assert shell.returncode == 1 and "cthulhu: the game needs a terminal" in shell.stderr

    sftp = subprocess.run(["sftp", "-b", "/dev/null", "-P", str(host.ssh_port), "-o", f"UserKnownHostsFile={home / 'known_hosts'}",
                           "-o", "IdentitiesOnly=yes", "-i", str(home / "alice"), f"{CODE}@127.0.0.1"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert sftp.returncode != 0 and "subsystem request failed" in sftp.stderr

    remote = ssh_once(host, home, "-o", "ExitOnForwardFailure=yes", "-N", "-R", "0:127.0.0.1:9")
    assert remote.returncode == 255 and "remote port forwarding failed" in remote.stderr

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        local_port = probe.getsockname()[1]
    forward = subprocess.Popen(ssh_argv(host, home, "alice", "-N", "-L", f"{local_port}:127.0.0.1:{host.port}", f"{CODE}@127.0.0.1", log_level="INFO"),
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                tunnel = socket.create_connection(("127.0.0.1", local_port), timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline, "ssh -L never listened"
                time.sleep(0.1)
        with tunnel:
            assert tunnel.recv(100) == b""  # closed at once: nothing reached the table through the tunnel
    finally:
        forward.terminate()
        try:
            forward.wait(5)
        except subprocess.TimeoutExpired:  # OpenSSH sometimes sleeps through a SIGTERM with only a listener open
            forward.kill()
        _, err = forward.communicate(timeout=10)
    assert "administratively prohibited" in err

    for log in (host.stderr,):
        assert "Traceback" not in log


def test_fifty_wrong_codes_are_refused_in_one_line_each(table) -> None:
    host, home = table

    def wrong(n: int) -> subprocess.CompletedProcess:
        return ssh_once(host, home, "-tt", user=f"guess{n:02d}", key=None if n % 2 else "alice")

    with ThreadPoolExecutor(max_workers=8) as pool:  # at most 8 may log in at once from one address (ssh.MAX_LOGGING_IN_PER_ADDRESS)
        results = list(pool.map(wrong, range(50)))
    for done in results:
        assert done.returncode == 1, done
        said = [l for l in (done.stderr + done.stdout).splitlines() if l.strip() and not l.startswith("Connection to")]
        assert said == ["cthulhu: wrong table code"], said
    assert "Traceback" not in host.stderr, host.stderr
    logged = [line for line in host.stderr.splitlines() if "wrong table code" in line]
    assert 1 <= len(logged) <= 5, logged  # in the host's log, and a flood of them is a line or two, not fifty
    # The door still opens for the right code afterwards.
    assert "commands are refused" in ssh_once(host, home, command="ls").stderr


def test_a_visitor_without_a_key_comes_back_with_a_return_ticket(tmp_path: Path) -> None:
    """No key to know her by: carol is given a return ticket (on screen before, during and after the
    game); typed as the SSH user, it brings her back to her seat, name and all. A third visitor finds
    every seat taken and is told so, and watches."""
    need("ssh", "openssh-client")
    host = HostProcess(tmp_path / "data", "--seats", "2", "--seed", "7", "--ssh", "0")
    term = Tmux("cthulhu-ssh-ticket")
    watcher = Watcher(host.port)
    try:
        term.open("carol", " ".join(ssh_argv(host, tmp_path, None, f"carol+{CODE}@127.0.0.1")) + "; echo SSH-EXIT=$?; sleep 60")
        watcher.until(lambda: watcher.seats().get(0) == ("human", "carol", True), "carol in seat 1")
        said = term.wait_for_notice("carol", "Your return ticket is")  # a notification in the game, where she looks
        ticket = re.search(r"return ticket is ([a-z2-9]{12})", said).group(1)
        assert f"ssh -p {host.ssh_port} {ticket}@127.0.0.1" in said
        term.keys("carol", "L")  # and in the table dialog
        assert f"ssh -p {host.ssh_port} {ticket}@127.0.0.1" in term.wait_for("carol", "came in through the host's SSH")
        term.keys("carol", "Escape")
        term.keys("carol", "C-q")  # she leaves; her seat waits for her
        after = term.wait_for("carol", "SSH-EXIT=0")
        assert after.count(f"return ticket is {ticket}") == 2  # before the game drew, and after it closed
        watcher.until(lambda: watcher.seats()[0] == ("human", "carol", False), "carol's seat to wait for her")

        term.open("dan", " ".join(ssh_argv(host, tmp_path, None, f"dan+{CODE}@127.0.0.1")) + "; sleep 60")
        watcher.until(lambda: watcher.seats()[1] == ("human", "dan", True), "dan in the open seat, not carol's")

        guess = ssh_once(host, tmp_path, "-tt", key=None, user="abcdefghijkm")  # a ticket never given out
        said = [line for line in guess.stderr.splitlines() if line.startswith("cthulhu:")]
        assert guess.returncode == 1 and said == ["cthulhu: wrong table code"], guess

        term.open("carol2", " ".join(ssh_argv(host, tmp_path, None, f"{ticket}@127.0.0.1")) + "; sleep 60")
        watcher.until(lambda: watcher.seats()[0] == ("human", "carol", True), "carol back in seat 1 with her ticket")
        assert watcher.seats()[1] == ("human", "dan", True)

        term.open("eve", " ".join(ssh_argv(host, tmp_path, None, f"eve+{CODE}@127.0.0.1")) + "; sleep 60")
        term.wait_for_notice("eve", "Every seat is taken, so you are watching")
        assert [kind for kind, _, _ in watcher.seats().values()] == ["human", "human"]
    finally:
        watcher.close()
        term.close()
        assert host.stop() in (0, 143)
    assert "Traceback" not in host.stderr, host.stderr


def test_no_room_to_watch_is_one_line(tmp_path: Path) -> None:
    """Every seat taken (by bots here) and every spectator's place too (64 watchers, from four other
    loopback addresses): an SSH visitor gets one line saying so, and no screen at all."""
    need("ssh", "openssh-client")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "alice")], check=True)
    host = HostProcess(tmp_path / "data", "--seats", "2", "--bots", "2", "--bot-delay", "5", "--seed", "7", "--ssh", "0")
    crowd = fill_spectators(host.port)
    try:
        done = ssh_once(host, tmp_path, "-tt")
        said = [line for line in (done.stdout + done.stderr).splitlines() if line.strip() and not line.startswith("Connection to")]
        assert done.returncode == 2 and said == ["cthulhu: the host refused us: no room for more spectators at this table"], done
    finally:
        for sock in crowd:
            sock.close()
        assert host.stop() in (0, 143)
    assert "Traceback" not in host.stderr, host.stderr


def test_a_restarted_host_gives_an_ssh_player_the_same_seat(tmp_path: Path) -> None:
    need("ssh", "openssh-client")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "alice")], check=True)
    save = tmp_path / "table.save"
    term = Tmux("cthulhu-ssh-restart")
    try:
        for run in range(2):
            args = ("--load", str(save)) if run else ("--seats", "2", "--seed", "7")
            host = HostProcess(tmp_path / "data", *args, "--ssh", "0", save=save)
            watcher = Watcher(host.port)
            try:
                term.open(f"alice{run}", " ".join(ssh_argv(host, tmp_path, "alice", f"alice+{CODE}@127.0.0.1")) + "; sleep 60")
                watcher.until(lambda: watcher.seats().get(0) == ("human", "alice", True), f"alice in seat 1 (run {run + 1})")
                assert [k for k, _, _ in watcher.seats().values()] == ["human", "open"]
                term.wait_for(f"alice{run}", "Waiting for players before the game starts")  # her interface has the table (and so kept her seat)
            finally:
                watcher.close()
                assert host.stop() in (0, 143)
            assert "Traceback" not in host.stderr, host.stderr
            # The host stopping ended her session cleanly: her terminal is hers again, and told why.
            shown = term.wait_for(f"alice{run}", "cthulhu: the host closed the table. It is saved; when it is open again:")
            assert "Map" not in shown  # out of the game's screen (the door restores the terminal)
    finally:
        term.close()


def test_a_host_playing_in_its_own_interface_serves_ssh_too(tmp_path: Path) -> None:
    """The usual way: `cthulhu host --ssh` with the hosting player's own game interface. The table
    dialog shows the `ssh` line; a friend who types it sits down, and the dialog shows them."""
    need("ssh", "openssh-client")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "alice")], check=True)
    term = Tmux("cthulhu-ssh-app")
    cli = f"{sys.executable} -m cthulhu.cli"
    try:
        term.open("host", f"{cli} host --ssh 0 --port 0 --seats 2 --seed 7 --name Hosty --code {CODE} --no-save; echo HOST-EXIT=$?; sleep 60",
                  cols=110, rows=34)
        term.wait_for("host", "Waiting for players before the game starts")
        term.keys("host", "L")
        dialog = " ".join(term.wait_for("host", "Over SSH:").split())
        port = int(re.search(rf"ssh -p (\d+) {CODE}@127\.0\.0\.1", dialog).group(1))
        assert "(host key" in dialog
        watcher = Watcher(int(re.search(rf"cthulhu join 127\.0\.0\.1:(\d+) --code {CODE}", dialog).group(1)))
        term.keys("host", "Escape")
        argv = ["ssh", "-p", str(port), "-o", f"UserKnownHostsFile={tmp_path / 'kh'}", "-o", "StrictHostKeyChecking=accept-new",
                "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-i", str(tmp_path / "alice"), f"zoe+{CODE}@127.0.0.1"]
        term.open("zoe", " ".join(argv) + "; echo SSH-EXIT=$?; sleep 60")
        term.wait_for("zoe", "choose an action")  # seat 2 decides first: the friend plays
        watcher.until(lambda: watcher.seats() == {0: ("human", "Hosty", True), 1: ("human", "zoe", True)}, "zoe at seat 2")
        watcher.close()
        term.keys("host", "C-q")  # the host leaves: the friend's terminal is given back, with a line
        term.wait_for("host", "HOST-EXIT=0")
        assert "cthulhu: the host closed the table." in term.wait_for("zoe", "SSH-EXIT=")
    finally:
        term.close()


def test_a_killed_host_leaves_no_interface_behind(tmp_path: Path) -> None:
    """`kill -9` of the host (or its terminal closed): the visitors' interface processes, which no one
    can reach any more, leave within seconds instead of reconnecting to nothing for 15 minutes."""
    need("ssh", "openssh-client")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "alice")], check=True)
    host = HostProcess(tmp_path / "data", "--seats", "2", "--seed", "7", "--ssh", "0")
    term = Tmux("cthulhu-ssh-killed")
    name = f"orphan{os.getpid()}"
    try:
        term.open("alice", " ".join(ssh_argv(host, tmp_path, "alice", f"{name}+{CODE}@127.0.0.1")) + "; sleep 60")
        term.wait_for("alice", "Map")
        (visitor,) = visitor_pids(under=host.proc.pid)
        zygote = parent_of(visitor)  # the doors' warm parent: it goes too
        assert zygote != host.proc.pid and parent_of(zygote) == host.proc.pid
        host.proc.kill()
        deadline = time.monotonic() + 15
        while running(visitor) or running(zygote):
            assert time.monotonic() < deadline, "the interface outlived its host"
            time.sleep(0.2)
    finally:
        host.stop()
        term.close()


def test_a_visitor_gets_in_while_64_idle_sockets_from_four_addresses_are_held(tmp_path: Path) -> None:
    """64 TCP connections that never speak, 16 from each of four addresses (before: every visitor
    read "banner line contains invalid characters" for as long as they were held): a real `ssh`
    from a fifth address sits down at once. The crowd competes only with itself: each address
    keeps at most 8 logging in, and those turned away read a version line and a disconnect
    reason, never bytes that are not SSH (the rest wait out the login deadline)."""
    need("ssh", "openssh-client")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "alice")], check=True)
    host = HostProcess(tmp_path / "data", "--seats", "2", "--seed", "7", "--ssh", "0")
    watcher = Watcher(host.port)
    idle = []
    visitor = None
    try:
        for n in range(64):
            sock = socket.socket()
            sock.bind((f"127.0.0.{2 + n // 16}", 0))
            sock.connect(("127.0.0.1", host.ssh_port))
            idle.append(sock)
        visitor = subprocess.Popen(ssh_argv(host, tmp_path, "alice", "-tt", "-b", "127.0.0.6", f"vera+{CODE}@127.0.0.1"),
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        watcher.until(lambda: watcher.seats().get(0) == ("human", "vera", True), "the visitor seated past the crowd")
        for sock in idle:  # each was told who we are, and nothing that is not SSH
            sock.settimeout(5)
            got = b""
            while b"\r\n" not in got and (chunk := sock.recv(4096)):
                got += chunk
            assert got.startswith(b"SSH-2.0-cthulhu\r\n"), got[:40]
    finally:
        for sock in idle:
            sock.close()
        if visitor is not None:
            visitor.kill()
            visitor.wait()
        watcher.close()
        assert host.stop() in (0, 143)
    assert "Traceback" not in host.stderr, host.stderr
    assert "too many connections from your address are logging in at once" in host.stderr


def test_the_seventeenth_connection_from_one_address_reads_why_it_is_refused(tmp_path: Path) -> None:
    """16 logged-in connections from one address (`ssh -N`, no game): the 17th reads OpenSSH's
    plain "Received disconnect ...: too many sessions from your address" (before: "banner line
    contains invalid characters ... invalid format"). A dozen logging in at once from another
    address each get in or read why not: never a protocol error."""
    need("ssh", "openssh-client")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "alice")], check=True)
    host = HostProcess(tmp_path / "data", "--seats", "2", "--seed", "7", "--ssh", "0")
    held: list[subprocess.Popen] = []
    try:
        for _ in range(16):
            forward = subprocess.Popen(ssh_argv(host, tmp_path, "alice", "-N", "-b", "127.0.0.7", f"{CODE}@127.0.0.1", log_level="VERBOSE"),
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            held.append(forward)
            while "Authenticated to" not in (line := forward.stderr.readline()):
                assert line, "an ssh -N never logged in"
        done = subprocess.run(ssh_argv(host, tmp_path, "alice", "-tt", "-b", "127.0.0.7", f"{CODE}@127.0.0.1", log_level="INFO"),
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)  # OpenSSH's own default level
        assert done.returncode == 255, done
        assert re.search(r"Received disconnect from 127\.0\.0\.1 port \d+:\d+: too many sessions from your address", done.stderr), done.stderr
        assert "banner" not in done.stderr and "kex_exchange_identification" not in done.stderr, done.stderr

        crowd = [subprocess.Popen(ssh_argv(host, tmp_path, "alice", "-N", "-b", "127.0.0.8", f"{CODE}@127.0.0.1", log_level="VERBOSE"),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(12)]
        held += crowd
        for client in crowd:
            said = ""
            while "Authenticated to" not in said and "Received disconnect" not in said:
                line = client.stderr.readline()
                assert line, said
                said += line
            assert "banner" not in said and "kex_exchange_identification" not in said, said
    finally:
        for client in held:
            client.kill()
            client.wait()
        assert host.stop() in (0, 143)
    assert "Traceback" not in host.stderr, host.stderr
