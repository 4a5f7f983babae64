"""The reader mode (`--reader`): whole games through real `cthulhu` processes on pipes.

A script answers every numbered list of choices with a number, as a person at a screen reader
would type it, until the game ends; every line must fit the width (80 on a pipe, or `COLUMNS`,
never under 40), and no byte but the line feed may be a control character.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from support.reader_drive import CHOOSE, ReaderProcess, plain_bytes

TEXTUAL = ("textual",)


def _no_textual(reader: ReaderProcess) -> None:
    modules = reader.imported()
    assert "cthulhu.tui.reader.session" in modules, "importtime listed nothing: the check would pass vacuously"
    assert not sorted(m for m in modules if m.split(".")[0] in TEXTUAL)


def _check_lines(reader: ReaderProcess, width: int) -> None:
    assert not plain_bytes(reader.raw)
    long = [line for line in reader.lines if len(line) > width]
    assert not long, long


@pytest.mark.parametrize(("mode", "columns"), [("main", None), ("shamblers", 40)])
def test_a_whole_game_is_played_through_play_reader_from_a_pipe(tmp_path, mode, columns):
    reader = ReaderProcess(["play", "--reader", "--mode", mode, "--seed", "3", "--saves", str(tmp_path / "saves")], tmp_path, columns)
    try:
        code = reader.play_out()
    finally:
        reader.kill()
    said = "\n".join(reader.lines)
    assert code == 0, said[-3000:] + reader.stderr_text()[-3000:]
    assert "The game is over: lost." in reader.lines
    assert re.search(r"^Dice: every roll verified", said, re.MULTILINE)
    luck = reader.lines.index("How the dice fell:")  # the luck report follows the check, as in the game-over dialog
    assert reader.lines[luck + 1].startswith("  ") and reader.lines[-1].startswith("  ")
    assert reader.lines[0].startswith(("The Wexley Mill Fire: you play", "Shamblers (")), reader.lines[:3]
    width = columns or 80
    _check_lines(reader, width)
    assert any(len(line) > width - 10 for line in reader.lines), "nothing came near the width: the wrapping was not tested"
    assert any(line.startswith("  ") and not re.match(r"  \d+\. ", line) for line in reader.lines), "no sentence ran on to a second line"
    _no_textual(reader)


def test_the_same_seed_and_the_same_answers_tell_the_same_game(tmp_path):
    runs = []
    for n in range(2):
        reader = ReaderProcess(["play", "--reader", "--mode", "shamblers", "--seed", "11", "--saves", str(tmp_path / f"s{n}")], tmp_path)
        try:
            assert reader.play_out(lambda said: str(len([l for l in said if re.match(r"  \d+\. ", l)]))) == 0  # the last choice
        finally:
            reader.kill()
        runs.append(reader.lines)
    assert runs[0] == runs[1]
    assert len(runs[0]) > 30


def test_the_board_the_odds_help_and_bad_input_on_demand(tmp_path):
    reader = ReaderProcess(["play", "--reader", "--seed", "3", "--saves", str(tmp_path / "saves")], tmp_path, 40)
    try:
        reader.until(CHOOSE.fullmatch)
        first = len(reader.lines)
        for key, last in (("?", "q: leave the table."), ("b", "Supply: Fire tokens 5, wound tokens 26"),
                          ("a", "  show."), ("m", "= tunnel joins tunnel")):
            reader.type(key)
            reader.until(lambda line, last=last: line == last)
        said = reader.lines[first:]
        assert said[0] == "Reader mode keys:"
        assert "The rules in brief:" in said
        assert "The table:" in said and any(line.startswith(">A Ada Whitlock") for line in said)  # the Investigators pane
        assert any(line.startswith("Hastur") for line in said)  # the Story Board
        assert "The map:" in said
        reader.type("9")
        assert reader.until(lambda line: line.startswith("There is")) == "There is no choice 9: type 1 to 2 (p"
        reader.type("xyzzy")
        assert reader.until(lambda line: line.startswith("Unknown")) == "Unknown key 'xyzzy': type a choice's"
        reader.type("p")
        assert reader.until(lambda line: "choose an action" in line) == "Ada Whitlock: choose an action (3"  # nothing changed
        # Play on to the first roll being decided: its odds are the odds panel's lines.
        question = ""
        while "keep the dice or reroll" not in question:
            reader.type("1")
            start = len(reader.lines)
            reader.until(CHOOSE.fullmatch)
            question = " ".join(reader.lines[start:])
        reader.type("a")
        odds = reader.until(lambda line: "'s roll:" in line)
        assert odds.startswith("Ada Whitlock's roll:"), (question, odds)
        reader.until(lambda line: line.startswith("  these dice rolled afresh:"))
        reader.type("q")
        assert reader.wait() == 0
    finally:
        reader.kill()
    _check_lines(reader, 40)
    assert any(line.startswith("Carry the game on later with:") for line in reader.lines[-6:])  # moves were made: it is saved


def test_a_whole_game_through_join_reader_at_a_real_host(tmp_path):
    host = subprocess.Popen([sys.executable, "-m", "cthulhu.cli", "host", "--headless", "--port", "0", "--no-save", "--bot-delay", "0",
                             "--mode", "shamblers", "--seats", "2", "--bots", "1", "--seed", "5", "--bot", "random"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        host.stdout.readline()
        m = re.match(r"Join with:\s+cthulhu join (\S+) --code (\S+)", host.stdout.readline())
        assert m, host.stderr.read() if host.poll() is not None else "no join line"
        assert m.group(1).startswith("127.0.0.1:")
        reader = ReaderProcess(["join", m.group(1), "--reader", "--name", "Ann"], tmp_path, env={"CTHULHU_CODE": m.group(2)})
        try:
            code = reader.play_out()
        finally:
            reader.kill()
        assert code == 0, "\n".join(reader.lines[-30:]) + reader.stderr_text()[-3000:]
        host.communicate(timeout=60)
    finally:
        host.kill()
        host.wait()
    assert host.returncode == 0
    assert reader.lines[0].startswith("Shamblers ("), reader.lines[:3]
    assert "you play" in reader.lines[0] + reader.lines[1]
    assert "Turn 2: Player 2 takes the turn." in reader.lines  # the bot's seat: its turns are told too
    assert "The game is over: lost." in reader.lines or "The game is over: won." in reader.lines
    assert any(line.startswith("Dice: every roll verified") for line in reader.lines)
    _check_lines(reader, 80)
    _no_textual(reader)


@pytest.mark.parametrize("door_wide", [False, True])
def test_a_whole_game_through_the_ssh_door_in_reader_mode(tmp_path, door_wide):
    """`ssh -t ... reader` (a visitor's choice), or any visitor of `--reader-door`: the real OpenSSH
    client on pipes plays a whole game in plain lines, as a screen reader would hear it."""
    from support.serve_helpers import CODE, HostProcess, need
    from test_serve_ssh import ssh_argv

    need("ssh", "openssh-client")
    keygen = need("ssh-keygen", "openssh-client")
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "ann", "-f", str(tmp_path / "ann")], check=True)
    host = HostProcess(tmp_path / "data", "--mode", "shamblers", "--seats", "2", "--bots", "1", "--bot", "random", "--bot-delay", "0",
                       "--seed", "5", "--ssh", "0", *(["--reader-door"] if door_wide else []))
    try:
        argv = ssh_argv(host, tmp_path, "ann", "-tt", f"Ann+{CODE}@127.0.0.1", *([] if door_wide else ["reader"]))
        reader = ReaderProcess([], tmp_path, argv=argv)
        try:
            code = reader.play_out()
        finally:
            reader.kill()
        assert code == 0, "\n".join(reader.lines[-30:]) + reader.stderr_text()[-3000:]
    finally:
        assert host.stop() in (0, 143), host.stderr
    assert "Traceback" not in host.stderr, host.stderr
    said = [line for line in reader.lines if line != "1"]  # (the terminal echoes what was typed)
    assert said[0].startswith("To come back to your seat, use the same key:"), said[:3]
    assert any(line.startswith("Shamblers (Normal): you play") for line in said[:4]), said[:4]
    assert "The game is over: lost." in said or "The game is over: won." in said
    assert any(line.startswith("Dice: every roll verified") for line in said)
    assert not plain_bytes(reader.raw, crlf=True)  # no escape sequence: nothing drew on the terminal
    assert max(len(line) for line in said) <= 80


def test_a_command_other_than_reader_is_still_refused_over_ssh(tmp_path):
    from support.serve_helpers import HostProcess, need
    from test_serve_ssh import ssh_once

    need("ssh", "openssh-client")
    keygen = need("ssh-keygen", "openssh-client")
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", str(tmp_path / "alice")], check=True)
    host = HostProcess(tmp_path / "data", "--seats", "2", "--ssh", "0")
    try:
        done = ssh_once(host, tmp_path, "-tt", command="reader please")
        assert done.returncode != 0 and "commands are refused (connect without a command, or with `reader`)" in done.stderr, done
        done = ssh_once(host, tmp_path, "-T", command="reader")
        assert done.returncode != 0 and "the reader mode needs a terminal too; add -t" in done.stderr, done
    finally:
        host.stop()


def test_a_whole_game_in_a_phone_browser_tab_through_the_web_reader_page(tmp_path):
    """The web door's reader page (the form's "Plain text" box, ticked by `--reader-door`) at a phone's width: no terminal
    emulator, the lines in a live region a screen reader announces, choices typed in a text box."""
    from playwright.sync_api import sync_playwright
    from support.serve_helpers import HostProcess
    from test_serve_web import CHROMIUM, FLAGS

    if not CHROMIUM.exists():
        pytest.fail(f"no browser: {CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)")
    host = HostProcess(tmp_path / "data", "--mode", "shamblers", "--seats", "2", "--bots", "1", "--bot", "random", "--bot-delay", "0",
                       "--seed", "5", "--web", "0", "--reader-door")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=str(CHROMIUM), args=FLAGS,
                                                                     headless=True, viewport={"width": 360, "height": 740})
            try:
                page = context.new_page()
                requests: list[str] = []
                page.on("request", lambda r: requests.append(r.url))
                page.goto(host.url)
                page.fill("#name", "Ann")
                assert page.is_checked("#reader")  # --reader-door: the box starts ticked
                page.click("#sit")
                page.wait_for_selector("#log[role=log][aria-live=polite]")
                lines: list[str] = []
                for _ in range(200):  # decisions
                    page.wait_for_function('() => { const t = document.getElementById("log").innerText;'
                                           ' return /Choose 1( to \\d+)?\\.\\s*$/.test(t) || t.includes("Dice: ") }', timeout=60000)
                    lines = page.eval_on_selector_all("#log div:not(.typed):not(.note)", "divs => divs.map(d => d.textContent)")
                    if any(line.startswith("Dice: ") for line in lines):
                        break
                    page.fill("#line", "1")
                    page.press("#line", "Enter")
                    page.wait_for_function(f'() => document.querySelectorAll("#log div").length > {len(lines) + 1}', timeout=60000)
                typed = page.eval_on_selector_all("#log div.typed", "divs => divs.map(d => d.textContent)")
            finally:
                context.close()
        host.proc.wait(60)  # a headless host leaves once the game is over
    finally:
        stopped = host.stop()
    assert stopped == 0, host.stderr
    assert "Traceback" not in host.stderr, host.stderr
    assert lines[0].startswith("To come back to your seat, open this"), lines[:3]
    assert any(line.startswith("Shamblers (Normal): you play") for line in lines[:6]), lines[:6]
    assert "The game is over: lost." in lines or "The game is over: won." in lines
    assert any(line.startswith("Dice: every roll verified") for line in lines)
    assert typed and set(typed) == {"> 1"}
    assert not [line for line in lines if not line.isprintable()]
    assert [line for line in lines if len(line) > 40] == []  # the page measured a phone's width: the reader's narrowest
    assert all(url.startswith(host.url.split("/?")[0]) for url in requests), requests  # nothing from elsewhere


@pytest.mark.trio
async def test_a_hostile_host_gets_no_control_sequence_through_the_reader(nursery, tmp_path):
    """Another player's text is data: chat, seat names, error reasons and the view's own strings
    from a host that relays raw payloads reach the reader's output defused (markers shown, no
    control bytes), the board (`b`) included."""
    import trio
    from support.hostile import PAYLOADS, reached
    from test_hostile_text import VIEW_PAYLOADS, _hostile_host

    port = await nursery.start(_hostile_host)
    reader = ReaderProcess(["join", f"127.0.0.1:{port}", "--watch", "--reader"], tmp_path)
    try:
        await trio.to_thread.run_sync(reader.until, lambda line: "END-OF-PAYLOADS" in line)
        reader.type("b")
        await trio.to_thread.run_sync(reader.until, lambda line: line.startswith("Supply:"))
    finally:
        reader.kill()
    data = reader.raw
    assert {name: hits for name, (hits, _) in reached(data).items()} == {name: 0 for name in PAYLOADS}
    assert all(shown for _, shown in reached(data).values()), reached(data)
    for where, (_, bad, shown) in VIEW_PAYLOADS.items():
        assert bad not in data and shown in data, where
    assert not plain_bytes(data)


def test_hot_seat_players_each_get_their_own_choices_once(tmp_path):
    """Two people at one terminal (`--players 2`, a connection each): each decision is listed once
    (a list said twice made the second answer land on the next decision), for whoever's it is."""
    reader = ReaderProcess(["play", "--reader", "--mode", "shamblers", "--players", "2", "--seed", "4", "--saves", str(tmp_path / "s")],
                           tmp_path)
    try:
        assert reader.play_out() == 0, reader.stderr_text()[-3000:]
    finally:
        reader.kill()
    lines = reader.lines
    assert lines[0].startswith("Shamblers (Normal): you play Player 1 and Player 2."), lines[:2]
    assert not [line for line in lines if line.startswith(("Waiting for", "Every seat is taken", "Wait a moment", "Refused"))]
    questions = [lines[n - 1 - next(k for k in range(n) if not lines[n - 1 - k].startswith("  "))] for n, line in enumerate(lines)
                 if CHOOSE.fullmatch(line)]
    assert any(q.startswith("Player 2, turn 2:") for q in questions), questions[:10]
    told = [n for n, line in enumerate(lines) if CHOOSE.fullmatch(line)]
    assert all(not CHOOSE.fullmatch(lines[n + 1]) and lines[n + 1] != questions[i] for i, n in enumerate(told[:-1])), \
        "a list of choices was said twice in a row"
    assert any(line.startswith("Dice: every roll verified") for line in lines)


def test_a_stand_in_is_told_and_back_takes_the_seat_again(tmp_path):
    """A turn clock runs out on a reader who does not answer: the stand-in that takes the seat is
    said, with the word that ends it, and `back` brings the seat's choices back."""
    host = subprocess.Popen([sys.executable, "-m", "cthulhu.cli", "host", "--headless", "--port", "0", "--no-save", "--bot-delay", "0",
                             "--mode", "shamblers", "--seats", "2", "--bots", "1", "--seed", "5", "--bot", "random",
                             "--turn-time", "3s", "--away-after", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        host.stdout.readline()
        m = re.match(r"Join with:\s+cthulhu join (\S+) --code (\S+)", host.stdout.readline())
        assert m, host.stderr.read() if host.poll() is not None else "no join line"
        reader = ReaderProcess(["join", m.group(1), "--reader", "--name", "Ann"], tmp_path, 200, env={"CTHULHU_CODE": m.group(2)})
        try:
            reader.until(CHOOSE.fullmatch)  # and not answered: the clock runs out, a stand-in plays and keeps the seat
            reader.until(lambda line: line == "A stand-in bot plays Player 1 for now (the turn clock ran out); type back to play again.")
            reader.type("back")
            reader.until(lambda line: line == "You play Player 1 again.")
            reader.type("q")
            reader.wait()
        finally:
            reader.kill()
    finally:
        host.kill()
        host.wait()
    _check_lines(reader, 200)


def test_the_reader_comes_back_to_its_seat_after_the_host_is_killed_and_restarted(tmp_path):
    """`kill -9` of the host mid-game: the reader says so, keeps trying with its seat token, and once
    the host is back (`--load` of its save, same port) says it is back and lists its choices again."""
    import socket

    from support.serve_helpers import CODE, HostProcess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    save = tmp_path / "table.save"
    keep = ["--bot", "random", "--bot-delay", "0", "--port", str(port)]
    host = HostProcess(tmp_path / "data", "--mode", "shamblers", "--seats", "2", "--bots", "1", "--seed", "5", *keep, save=save)
    reader = ReaderProcess(["join", f"127.0.0.1:{port}", "--reader", "--name", "Ann"], tmp_path, env={"CTHULHU_CODE": CODE})
    again = None
    try:
        reader.until(CHOOSE.fullmatch)
        reader.type("1")
        reader.until(CHOOSE.fullmatch)  # a move made: the save has it
        host.proc.kill()
        host.stop()
        reader.until(lambda line: line.startswith("Lost the connection to the host at"))
        again = HostProcess(tmp_path / "data", *keep, "--load", str(save), save=save)  # (a save keeps its own set-up)
        assert reader.until(lambda line: line.startswith("Back at the table")) == "Back at the table (you play Player 1)."
        reader.until(CHOOSE.fullmatch)
        reader.type("q")
        reader.wait()
    finally:
        reader.kill()
        host.stop()
        if again is not None:
            again.stop()
    _check_lines(reader, 80)


def test_a_server_table_through_join_reader_and_its_lobby_without_table(tmp_path):
    """At a server of many tables: `--table ID` plays that table in the reader (a whole game); without
    it, the reader opens the server's lobby (tests/e2e/test_reader_lobby.py); a `--table` no id could be is refused."""
    from support.server_proc import ServerProcess, tables

    server = ServerProcess(tmp_path / "server").start()
    try:
        made = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--bots", "1", "--bot-delay", "0",
                      home=tmp_path / "ann")
        table = made["table"]["id"] if "table" in made else made["id"]
        reader = ReaderProcess(["join", server.address, "--table", table, "--reader", "--name", "ann"], tmp_path / "ann")
        try:
            assert reader.play_out() == 0, reader.stderr_text()[-3000:]
        finally:
            reader.kill()
        assert any(line.startswith("Dice: every roll verified") for line in reader.lines)
        lobby = ReaderProcess(["join", server.address, "--reader", "--name", "bob"], tmp_path / "bob")
        try:
            lobby.until(lambda line: line.startswith("No tables in play here (1 finished table not listed)"))
            lobby.type("q")
            assert lobby.wait() == 0
        finally:
            lobby.kill()
        assert lobby.lines[0].startswith("The lobby of "), lobby.lines
    finally:
        server.stop()
    bad = subprocess.run([sys.executable, "-m", "cthulhu.cli", "join", server.address, "--table", "", "--reader"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr == "cthulhu join: --table takes a table's id, as `cthulhu tables HOST` lists it\n", bad
