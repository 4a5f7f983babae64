"""A turn-based table end to end: a real `cthulhu server` process (real sockets, port 0, a real
SQLite file), `cthulhu tables --create --turn-time 2s`, one player who plays (`cthulhu join
--headless --bot random`) and one who sits down and then answers nothing but pings. The silent
seat's clock runs out and a stand-in decides for it, marked in the save and on the wire, and
`tables --mine --json` tells each player where it is their move and until when."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from cthulhu.net.client import PeerSession
from cthulhu.net.messages import Delta
from cthulhu.net.seatstore import SeatStore
from cthulhu.savegame import load

from support.server_proc import CLI, ServerProcess, player_env, tables

SAFETY = 90.0  # seconds of real time before a wait counts as a failure (never a measurement)


class SilentPlayer:
    """A player at a table over a real socket who answers the host's pings and never decides."""

    def __init__(self, address: str, home: Path, table: str, name: str) -> None:
        host, port = address.rsplit(":", 1)
        ident = SeatStore(home / "cthulhu" / "seats.json").identity(address)
        self.session = PeerSession(name, table_id=table, ident=ident)
        self.sock = socket.create_connection((host, int(port)), timeout=SAFETY)
        self.messages: list[Any] = []
        self.lock = threading.Lock()
        self.sock.sendall(self.session.data_to_send())
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while data := self.sock.recv(65536):
                with self.lock:
                    self.messages += self.session.receive_data(data)
                    out = self.session.data_to_send()  # pongs
                if out:
                    self.sock.sendall(out)
        except OSError:
            pass

    def wait(self, condition: Any) -> None:
        end = time.monotonic() + SAFETY
        while time.monotonic() < end:
            with self.lock:
                if condition(self):
                    return
            time.sleep(0.05)
        raise AssertionError("waited too long")

    def close(self) -> None:
        self.sock.close()
        self.thread.join(10)


def test_a_silent_seat_gets_a_stand_in_after_its_two_seconds_marked_in_the_save(tmp_path):
    server = ServerProcess(tmp_path / "data").start()
    ann, bea = tmp_path / "ann", tmp_path / "bea"
    joiner = None
    players: list[SilentPlayer] = []
    try:
        made = tables(server.address, "--create", "--seats", "2", "--turn-time", "2s", home=ann)
        quick = subprocess.run([*CLI, "tables", server.address, "--create", "--seats", "1", "--turn-time", "1h", "--name", "Bea", "--json"],
                               capture_output=True, text=True, timeout=60, env=player_env(bea))
        assert quick.returncode == 0, quick.stderr
        hour = json.loads(quick.stdout)["id"]

        silent = SilentPlayer(server.address, bea, made["id"], "Bea")
        players.append(silent)
        silent.wait(lambda p: p.session.welcomed)
        seat = silent.session.seat
        joiner = subprocess.Popen([*CLI, "join", server.address, "--table", made["id"], "--headless", "--bot", "random", "--name", "Ann"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=player_env(ann))
        silent.wait(lambda p: p.session.my_prompt is not None)  # Bea's move: her clock runs
        silent.wait(lambda p: any(isinstance(m, Delta) and m.stand_in and m.cmd[0] == seat for m in p.messages))
        with silent.lock:
            first = next(m for m in silent.messages if isinstance(m, Delta) and m.stand_in)
        save = load(server.data / "tables" / f"{made['id']}.save")
        assert first.step in save.header.sealed and save.steps[first.step - 1].seat == seat  # marked in the save

        # Bea sits at the hour table too (one seat: her move at once) and asks for her tables.
        waiting = SilentPlayer(server.address, bea, hour, "Bea")
        players.append(waiting)
        waiting.wait(lambda p: p.session.my_prompt is not None)
        asked = datetime.now(timezone.utc)
        end = time.monotonic() + SAFETY
        while True:
            mine = {row["id"]: row for row in tables(server.address, "--mine", home=bea)}
            if mine[hour]["deadline"] is not None or time.monotonic() > end:
                break
            time.sleep(0.2)  # the record follows the table within a batch
        row = mine[hour]
        assert row["to_move"] is True and row["pace"] == "turn-based" and row["turn_time"] == 3600 and row["on_timeout"] == "stand-in"
        assert row["away_after"] == 3 and row["paused"] is False
        deadline = datetime.fromisoformat(row["deadline"])
        assert asked - timedelta(minutes=5) < deadline <= asked + timedelta(hours=1, seconds=5)
        assert set(mine) == {made["id"], hour} and mine[made["id"]]["mine"] == [seat + 1]
        assert all(isinstance(r["to_move"], bool) for r in mine.values())
    finally:
        for player in players:
            player.close()
        if joiner is not None and joiner.poll() is None:
            joiner.terminate()
            joiner.wait(10)
        code, _out, err = server.stop()
        assert code == 0, err


def test_a_bad_pace_on_the_command_line_is_one_line_and_exit_2(tmp_path):
    cases = [
        (["host", "--headless", "--port", "0", "--turn-time", "soon"], "--turn-time: 'soon' is not a duration"),
        (["host", "--headless", "--port", "0", "--turn-time", "0s"], "a turn time is from 1s to 60d"),
        (["host", "--headless", "--port", "0", "--on-timeout", "skip"], "--on-timeout goes with --turn-time"),
        (["tables", "127.0.0.1:9", "--create", "--turn-time", "30m1h"], "the largest first"),
        (["tables", "127.0.0.1:9", "--turn-time", "1h"], "go with --create"),
        (["host", "--headless", "--port", "0", "--away-after", "2"], "--away-after goes with --turn-time"),
        (["tables", "127.0.0.1:9", "--create", "--turn-time", "1h", "--on-timeout", "skip", "--away-after", "2"],
         "--away-after goes with --on-timeout stand-in"),
        (["tables", "127.0.0.1:9", "--create", "--turn-time", "1h", "--away-after", "0"], "--away-after is a number of missed turns"),
    ]
    for args, words in cases:
        result = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60, env=player_env(tmp_path / "home"))
        assert result.returncode == 2 and words in result.stderr and result.stderr.count("\n") == 1, (args, result.stderr)
