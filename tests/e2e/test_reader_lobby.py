"""The reader's lobby at a server of many tables, through real processes: `join --reader` without
`--table` lists the tables, makes one, plays it to its end, comes back to the lobby, says the
club's records (the game just played counted) and the challenges, sits at a table by its number and at a private
one by its id and code; and a server's SSH door (`ssh -t ... reader`) and web door (the reader
page's websocket) give a visitor the same lobby."""

from __future__ import annotations

import asyncio
import re
import subprocess

from support.reader_drive import CHOOSE, ReaderProcess, plain_bytes
from support.server_proc import ServerProcess, tables


def _play_to_lobby(reader: ReaderProcess) -> list[str]:
    """Answer every list of choices with 1 until the reader is back in the lobby; what was said."""
    start = len(reader.lines)
    while True:
        line = reader.until(lambda line: bool(CHOOSE.fullmatch(line)) or line.startswith("Back in the lobby of "))
        if line.startswith("Back in the lobby of "):
            return reader.lines[start:]
        reader.type("1")


def _new_solo_shamblers(reader: ReaderProcess) -> str:
    """`n`, Shamblers, one seat: the id of the table made."""
    reader.type("n")
    reader.until(lambda line: line == "A new table: which game?")
    start = len(reader.lines)
    games = reader.until(lambda line: line.startswith("Choose 1 to "))
    listed = reader.lines[start:-1]
    assert games == f"Choose 1 to {len(listed)} (q: back to the lobby).", listed
    reader.type(str(next(n for n, line in enumerate(listed, 1) if line.endswith(". Shamblers"))))
    reader.until(lambda line: line == "Choose 1 to 5 (q: back to the lobby).")
    reader.type("1")
    made = reader.until(lambda line: line.startswith("Table "))
    found = re.fullmatch(r"Table (\w+) made: sitting down\.", made)
    assert found is not None, made
    return found.group(1)


def test_the_reader_lobby_lists_makes_plays_counts_and_sits_by_number_and_by_code(tmp_path):
    server = ServerProcess(tmp_path / "server").start()
    try:
        public = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--bots", "1", "--bot-delay", "0",
                        "--name", "Bea", home=tmp_path / "bea")
        private = tables(server.address, "--create", "--mode", "main", "--seats", "2", "--private", "--name", "Bea", home=tmp_path / "bea")
        reader = ReaderProcess(["join", server.address, "--reader", "--name", "Ann"], tmp_path / "ann")
        try:
            assert reader.until(lambda line: line.startswith("The lobby of ")).endswith("you are Ann here. ? for help.")
            assert reader.until(lambda line: line.startswith("Type 1 ")) == "Type 1 to sit at one, n for a new table, ? for help."
            listed = reader.lines[-4:]
            assert listed[0] == "1 table in play:" and listed[1].startswith(f"1. {public['id']}  Shamblers: Normal"), listed
            assert private["id"] not in " ".join(reader.lines)  # a private table is listed to its players only
            reader.type("r")
            assert reader.until(lambda line: line.startswith("The club's records")) == "The club's records: no games finished here yet."

            reader.type("d")
            reader.until(lambda line: line.startswith("The challenges taking tries on "))
            reader.until(lambda line: line.startswith("daily-"))
            start = len(reader.lines) - 1
            reader.until(lambda line: line.startswith("weekly-"))
            daily = " ".join(line.strip() for line in reader.lines[start:-1])  # (wrapped to 80 columns)
            assert re.fullmatch(r"daily-\S+ \(\S+ to \S+\): .*, seed \d+: 0 tries; you have not tried it", daily), daily

            made = _new_solo_shamblers(reader)
            game = _play_to_lobby(reader)
            [row] = [row for row in tables(server.address, home=tmp_path / "bea") if row["id"] == made]
            assert row["finished"] and row["seats"][0]["name"] == "Ann"
            assert any(line.startswith("Shamblers (Normal): you play") for line in game), game[:5]
            assert "The game is over: lost." in game or "The game is over: won." in game
            assert any(line.startswith("Dice: every roll verified") for line in game)
            reader.until(lambda line: line.startswith("Type 1 "))
            assert f"({1} finished table not listed)" in " ".join(reader.lines[-6:]), reader.lines[-6:]

            for _ in range(300):  # the server counts a finished game moments after its end, off its loop
                reader.type("r")
                said = reader.until(lambda line: line.startswith("The club's records") or line.startswith("Shamblers: "))
                if said.startswith("Shamblers: "):
                    break
            assert re.fullmatch(r"Shamblers: Normal \(1 player\): 1 game, [01] won \(\d+%\).*", said), said

            reader.type("1")  # Bea's table, by its number
            assert reader.until(lambda line: "you play" in line or line.startswith("Refused")).startswith("Shamblers (Normal): you play")
            reader.type("q")
            reader.until(lambda line: line.startswith("Back in the lobby of "))
            reader.type(f"j {private['id']} {private['code']}")  # a private table, by its id and code
            assert "you play" in reader.until(lambda line: "you play" in line or line.startswith("Refused"))
            reader.type("q")
            reader.until(lambda line: line.startswith("Back in the lobby of "))
            reader.type("j nosuchtable")
            assert reader.until(lambda line: line.startswith("Refused")).startswith("Refused: ")
            reader.until(lambda line: line.startswith("Back in the lobby of "))
            reader.type("j " + "x" * 33)
            assert reader.until(lambda line: line.startswith("That is no")) == "That is no table's id and code: ids are at most 32 characters, codes 64."
            reader.type("xyzzy")
            assert reader.until(lambda line: line.startswith("Unknown")) == "Unknown key 'xyzzy': type a table's number, or ? for help."
            reader.type("q")
            assert reader.wait() == 0
        finally:
            reader.kill()
    finally:
        code, _, err = server.stop()
    assert code == 0 and "Traceback" not in err, err
    assert not plain_bytes(reader.raw)
    assert max(len(line) for line in reader.lines) <= 80


def test_a_server_s_ssh_door_gives_a_reader_visitor_the_lobby_and_a_game(tmp_path):
    from support.serve_helpers import need

    need("ssh", "openssh-client")
    keygen = need("ssh-keygen", "openssh-client")
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "ann", "-f", str(tmp_path / "ann")], check=True)
    server = ServerProcess(tmp_path / "server", args=("--ssh", "0")).start()
    try:
        assert server.ssh_port is not None
        argv = ["ssh", "-p", str(server.ssh_port), "-o", f"UserKnownHostsFile={tmp_path / 'known_hosts'}", "-o",
                "StrictHostKeyChecking=accept-new", "-o", "ConnectTimeout=10", "-o", "LogLevel=ERROR", "-o", "IdentitiesOnly=yes",
                "-o", "BatchMode=yes", "-i", str(tmp_path / "ann"), "-tt", "ann@127.0.0.1", "reader"]
        reader = ReaderProcess([], tmp_path, argv=argv)
        try:
            assert "you are ann here" in reader.until(lambda line: line.startswith("The lobby of "))
            reader.until(lambda line: line.startswith("No tables in play here"))
            _new_solo_shamblers(reader)
            game = _play_to_lobby(reader)
            assert any(line.startswith("Dice: every roll verified") for line in game)
            reader.until(lambda line: "finished table not listed" in line)
            reader.type("q")
            assert reader.wait() == 0
        finally:
            reader.kill()
    finally:
        code, _, err = server.stop()
    assert code == 0 and "Traceback" not in err, err
    assert not plain_bytes(reader.raw, crlf=True)  # no escape sequence: nothing drew on the terminal


def test_a_server_s_web_door_offers_plain_text_and_its_reader_page_reaches_the_lobby(tmp_path):
    import aiohttp

    server = ServerProcess(tmp_path / "server", args=("--web", "0", "--reader-door")).start()
    try:
        assert server.url is not None
        made = tables(server.address, "--create", "--mode", "shamblers", "--seats", "2", "--name", "Bea", home=tmp_path / "bea")
        base = server.url.split("/?")[0].rstrip("/")

        async def visit() -> list[str]:
            async with aiohttp.ClientSession() as http:
                form = await (await http.get(f"{base}/")).text()
                assert 'id="reader"' in form and " checked" in form.split('id="reader"')[1].split(">")[0]  # --reader-door: ticked
                page = await (await http.get(f"{base}/table", params={"name": "Cy", "reader": "1"})).text()
                found = re.search(r'"/read/([^"?]+)\?width=', page)
                assert found is not None, page[:500]
                said: list[str] = []
                async with http.ws_connect(f"{base.replace('http', 'ws', 1)}/read/{found.group(1)}?width=60") as ws:

                    async def until(wanted) -> str:
                        while True:
                            message = await asyncio.wait_for(ws.receive_str(), 120)
                            said.append(message)
                            if wanted(message):
                                return message

                    await until(lambda line: line.startswith("Type 1 "))
                    await ws.send_str("1")
                    await until(lambda line: "you play" in line)
                    await ws.send_str("q")
                    await until(lambda line: line.startswith("Back in the lobby of "))
                    await ws.send_str("q")
                    while not ws.closed and (await asyncio.wait_for(ws.receive(), 60)).type == aiohttp.WSMsgType.TEXT:
                        pass  # the visitor left the server: the page's socket closes
                return said

        said = asyncio.run(visit())
    finally:
        code, _, err = server.stop()
    assert code == 0 and "Traceback" not in err, err
    assert any(made["id"] in line for line in said), said
    assert any(line.startswith("Shamblers (Normal): you play") for line in said), said
    assert max(len(line) for line in said) <= 60

