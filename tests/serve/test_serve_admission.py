"""Who comes in through a front door: code check and throttling, caps, one seat per visitor identity,
return tickets, cleaned names, and a visitor's own seat store bringing them back to the same seat
(real embedded host, real sockets, the real seat store)."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys

import pytest

from cthulhu.core import Game, Setup
from cthulhu.net.limits import Limits
from cthulhu.net.seatstore import SeatStore
from cthulhu.serve.admission import Admission, Refused, new_ticket
from cthulhu.serve.doors import child_env
from cthulhu.serve.ssh import split_user
from cthulhu.table import TableSpec, open_table
from cthulhu.table import ThreadedHost
from cthulhu.tui.netlink import JoinAs, NetLink
from support.tui_drive import notices


def test_user_names_carry_a_secret_and_maybe_a_name() -> None:
    assert split_user("Ab-9_x") == (None, "Ab-9_x")
    assert split_user("ann+Ab9") == ("ann", "Ab9")
    assert split_user("a+b+CODE") == ("a+b", "CODE")
    assert split_user("+CODE") == (None, "CODE")
    assert split_user("") == (None, None)


def test_admission_checks_codes_caps_and_identities(tmp_path) -> None:
    async def main() -> None:
        gate = Admission(code="secret", folder=tmp_path / "visitors", max_sessions=3, max_per_address=2, free_wrong_codes=2, throttle=0.05)
        with pytest.raises(Refused, match="not open yet"):
            await gate.admit(address="a", code="secret", name="x", identity="ssh:K0")
        gate.table = ("127.0.0.1", 4242)
        for tries in range(4):
            with pytest.raises(Refused, match="wrong table code"):
                await gate.admit(address="b", code="guess", name="x", identity="ssh:K9")
        assert gate.wrong_codes["b"] == 4 and gate.sessions == [] and not any((tmp_path / "visitors" / "homes").iterdir())

        first = await gate.admit(address="a", code="secret", name="ann", identity="ssh:KEY1")
        assert not first.watch and "--kiosk" in first.argv and "127.0.0.1:4242" in first.argv and "--name=ann" in first.argv
        assert not any("secret" in part for part in first.argv)  # the code is not on the command line (ps shows it)...
        env = first.env({"HOME": "/home/h", "CTHULHU_CODE": "the host's own"})
        assert env["CTHULHU_CODE"] == "secret" and env["XDG_DATA_HOME"] == str(first.home)  # ...it is in the environment
        again = await gate.admit(address="a", code="secret", name="ann", identity="ssh:KEY1")
        assert again.watch and "--watch" in again.argv  # the same visitor twice at once: the second watches
        with pytest.raises(Refused, match="from your address"):
            await gate.admit(address="a", code="secret", name="x", identity="ssh:K2")
        third = await gate.admit(address="c", code="secret", name=None, identity="web:cookie3")
        assert "--name=guest 1" in third.argv
        with pytest.raises(Refused, match="too many visitors"):
            await gate.admit(address="d", code="secret", name="x", identity="ssh:K3")
        gate.release(first)
        back = await gate.admit(address="d", code="secret", name="ann", identity="ssh:KEY1")
        assert not back.watch
        assert stat.S_IMODE((tmp_path / "visitors").stat().st_mode) == 0o700
        # Each visitor's process keeps its own data folder: the same one when the same visitor returns.
        assert back.home == first.home != third.home
        assert stat.S_IMODE(back.home.stat().st_mode) == 0o700

    asyncio.run(main())


def test_names_are_cleaned_and_a_returning_visitor_keeps_theirs(tmp_path) -> None:
    async def main() -> None:
        gate = Admission(code=None, folder=tmp_path / "v", table=("127.0.0.1", 1))
        hostile = await gate.admit(address="a", code=None, name="\x1b]52;c;ZXZpbA==\x07ann\u202e" + "x" * 40, identity="web:1")
        name = next(a for a in hostile.argv if a.startswith("--name="))[len("--name="):]
        assert name == "]52;c;ZXZpbA==ann" + "x" * 7 and name.isprintable() and len(name) == 24
        blank = await gate.admit(address="a", code=None, name=" \u200b ", identity="web:2")
        assert "--name=guest 1" in blank.argv
        # The visitor sat down as "ann" once (their seat store says so); back without a name, still ann.
        SeatStore(blank.home / "cthulhu" / "seats.json").remember(address="127.0.0.1:1", table="t", name="ann", seat=0, token="tok")
        gate.release(blank)
        again = await gate.admit(address="a", code=None, name=None, identity="web:2")
        assert "--name=ann" in again.argv

    asyncio.run(main())


def test_return_tickets_stand_for_the_visitor_they_were_given_to(tmp_path) -> None:
    async def main() -> None:
        gate = Admission(code="c0de", folder=tmp_path / "visitors" / "table1", table=("127.0.0.1", 1), kept=True)
        for folder in (tmp_path / "visitors", gate.folder, gate.folder / "homes"):  # the tokens of every visitor are in here
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        ticket = new_ticket()
        assert len(ticket) == 12 and ticket.isalnum() and not ticket.startswith("-")
        assert gate.returning(ticket) is None  # not given out yet
        visit = await gate.admit(address="a", code="c0de", name="cy", identity=f"ticket:{ticket}")
        assert gate.returning(ticket) == f"ticket:{ticket}"
        assert gate.returning(ticket.upper()) is None and gate.returning(ticket[:-1]) is None and gate.returning(None) is None
        assert gate.returning("../" + ticket[3:]) is None
        # Closing a kept table keeps the folders of visitors who held a seat, and only those.
        SeatStore(visit.home / "cthulhu" / "seats.json").remember(address="x:1", table="t", name="cy", seat=1, token="tok")
        other = new_ticket()
        await gate.admit(address="b", code="c0de", name="dee", identity=f"ticket:{other}")  # only watched
        gate.close()
        assert gate.returning(ticket) == f"ticket:{ticket}" and gate.returning(other) is None

    asyncio.run(main())


def test_an_unkept_table_takes_its_visitors_folders_with_it(tmp_path) -> None:
    gate = Admission(code=None, folder=tmp_path / "v")
    gate.close()
    assert not (tmp_path / "v").exists()


def test_the_visitors_environment_is_not_the_hosts_terminal() -> None:
    env = child_env({"TERM": "screen", "TMUX": "/tmp/x", "TEXTUAL_DRIVER": "x", "SSH_AUTH_SOCK": "/a", "CTHULHU_CODE": "mine",
                     "HOME": "/h", "LANG": "C"})
    assert env == {"HOME": "/h", "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}


def test_a_visitors_own_seat_store_brings_them_back_to_the_same_seat(tmp_path, monkeypatch) -> None:
    """Two visitors, each with their own store (as `join --kiosk` in its own XDG_DATA_HOME): the
    newest seat in it is theirs, whatever the host's port or the name they give next time."""

    async def main() -> None:
        host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=3, players=2)), code="c0de")))
        port = await host.start()
        ann_store, bob_store = SeatStore(tmp_path / "ann" / "seats.json"), SeatStore(tmp_path / "bob" / "seats.json")
        try:
            first = NetLink(JoinAs(host="127.0.0.1", port=port, name="ann", code="c0de", visitor=""), store=ann_store)
            await first.open()
            assert first.local_seats == {0} and ann_store.entries()[0].seat == 0
            assert stat.S_IMODE(ann_store.path.stat().st_mode) == 0o600
            await first.close()

            other = NetLink(JoinAs(host="127.0.0.1", port=port, name="bob", code="c0de", visitor=""), store=bob_store)
            await other.open()
            assert other.local_seats == {1}
            back = NetLink(JoinAs(host="127.0.0.1", port=port, name="Ann again", code="c0de", visitor="", address="elsewhere:1"), store=ann_store)
            opened = await back.open()
            assert back.local_seats == {0} and "your seat" in notices(opened)  # not watching: her own

            stranger = NetLink(JoinAs(host="127.0.0.1", port=port, name="cy", code="c0de", visitor=""), store=SeatStore(tmp_path / "cy" / "seats.json"))
            opened = await stranger.open()  # no seat left: told so plainly, and watching
            assert stranger.local_seats == frozenset() and "Every seat is taken, so you are watching" in notices(opened)
            info = stranger.lobby_info()
            assert info["visitor"] and info["address"] is None and info["join"] is None  # no loopback address for a visitor
            for link in (other, back, stranger):
                await link.close()
        finally:
            await host.stop()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_the_host_leaves_room_on_loopback_for_the_doors_visitors() -> None:
    """The host's cap per address would stop the 17th visitor (all come from 127.0.0.1): with the
    doors open, loopback holds `door_visitors` more; other addresses keep the plain cap."""
    from cthulhu.net.gate import Gate, is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("::ffff:127.0.0.9") and is_loopback("127.3.4.5")
    assert not is_loopback("192.168.1.20") and not is_loopback("?") and not is_loopback("::ffff:10.0.0.1")
    gate = Gate(Limits().but(max_per_address=2, door_visitors=3), lambda: 0.0)
    assert [gate.connect("127.0.0.1") for _ in range(5)] == [None] * 5
    assert gate.connect("127.0.0.1").code == "too_many_connections"
    assert [gate.connect("10.0.0.7") for _ in range(2)] == [None] * 2
    assert gate.connect("10.0.0.7").code == "too_many_connections"


def test_loopbacks_hellos_are_paced_per_door_visitor() -> None:
    """Every door visitor says its hellos from 127.0.0.1: with the doors open, loopback has an
    address's join allowance per visitor (else, on a fast machine, some of 40 visitors logging in
    together were told "joining too often" and left); other addresses keep their own."""
    from cthulhu.net.gate import Gate

    limits = Limits().but(joins=(1.0, 5), door_visitors=3)
    gate = Gate(limits, lambda: 0.0)
    assert [gate.hello("127.0.0.1") for _ in range(20)] == [None] * 20
    assert gate.hello("127.0.0.1").code == "slow_down"
    assert [gate.hello("10.0.0.7") for _ in range(5)] == [None] * 5
    assert gate.hello("10.0.0.7").code == "slow_down"
    shut = Gate(limits.but(door_visitors=0), lambda: 0.0)  # no doors: loopback is an address like any other
    assert [shut.hello("127.0.0.1") for _ in range(5)] == [None] * 5
    assert shut.hello("127.0.0.1").code == "slow_down"


def test_the_code_reaches_a_joiner_through_the_environment(tmp_path) -> None:
    """`CTHULHU_CODE` stands for `--code` (what the doors use, so `ps` never shows a table code)."""

    async def main() -> None:
        host = ThreadedHost(open_table(TableSpec(start=Game.new(Setup(seed=3, players=1, mode="shamblers")), code="Sesame12")))
        port = await host.start()
        try:
            argv = [sys.executable, "-m", "cthulhu.cli", "join", f"127.0.0.1:{port}", "--bot", "random", "--headless"]
            wrong = await asyncio.to_thread(subprocess.run, argv, env=dict(os.environ, CTHULHU_CODE="guess"), capture_output=True, text=True, timeout=60)
            assert wrong.returncode == 1 and "wrong table code" in wrong.stderr
            right = await asyncio.to_thread(subprocess.run, argv, env=dict(os.environ, CTHULHU_CODE="Sesame12"), capture_output=True, text=True, timeout=60)
            assert right.returncode == 0 and "Seat 1" in right.stderr, right.stderr  # played the table to its end
        finally:
            await host.stop()

    asyncio.run(main())
