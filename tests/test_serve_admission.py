"""Who comes in through a front door: code check and throttling, caps, one seat per visitor identity,
and the token file that brings a visitor back to the same seat (real embedded host, real sockets)."""

from __future__ import annotations

import asyncio
import stat

import pytest

from cthulhu.core import Game, Setup
from cthulhu.net.tokenfile import read_token, write_token
from cthulhu.serve.admission import Admission, Refused, clean_name
from cthulhu.serve.ssh import split_user
from cthulhu.tui.netlink import EmbeddedHost, NetLink


def test_user_names_carry_the_code_and_maybe_a_name() -> None:
    assert split_user("Ab-9_x", coded=True) == (None, "Ab-9_x")
    assert split_user("ann+-Ab9", coded=True) == ("ann", "-Ab9")  # codes may begin with '-'
    assert split_user("a+b+CODE", coded=True) == ("a+b", "CODE")
    assert split_user("ann+whatever", coded=False) == ("ann", None)


def test_names_are_printable_and_short() -> None:
    assert clean_name("\x1b]52;c;ZXZpbA==\x07ann\u202e", "guest") == "]52;c;ZXZpbA==ann"
    assert clean_name("   ", "guest 3") == "guest 3"
    assert len(clean_name("x" * 100, "g")) == 24


def test_admission_checks_caps_and_identities(tmp_path) -> None:
    async def main() -> None:
        gate = Admission(code="secret", token_dir=tmp_path / "tokens", max_sessions=3, max_per_address=2, free_wrong_codes=2, throttle=0.05)
        with pytest.raises(Refused, match="not open yet"):
            await gate.admit(address="a", code="secret", name="x", identity=None)
        gate.table = ("127.0.0.1", 4242)
        for tries in range(4):
            with pytest.raises(Refused, match="wrong table code"):
                await gate.admit(address="b", code="guess", name="x", identity=None)
        assert gate.wrong_codes["b"] == 4 and gate.sessions == []

        first = await gate.admit(address="a", code="secret", name="ann", identity="ssh:KEY1")
        assert not first.watch and any(a.startswith("--token-file=") for a in first.argv)
        assert "--code=secret" in first.argv and "--kiosk" in first.argv and "127.0.0.1:4242" in first.argv
        again = await gate.admit(address="a", code="secret", name="ann", identity="ssh:KEY1")
        assert again.watch and "--watch" in again.argv  # the same visitor twice at once: the second watches
        with pytest.raises(Refused, match="from your address"):
            await gate.admit(address="a", code="secret", name="x", identity=None)
        third = await gate.admit(address="c", code="secret", name=None, identity=None)
        assert "--name=guest 3" in third.argv
        with pytest.raises(Refused, match="too many visitors"):
            await gate.admit(address="d", code="secret", name="x", identity=None)
        gate.release(first)
        back = await gate.admit(address="d", code="secret", name="ann", identity="ssh:KEY1")
        assert not back.watch and gate.token_file("ssh:KEY1").name in " ".join(back.argv)
        assert stat.S_IMODE((tmp_path / "tokens").stat().st_mode) == 0o700
        # Each visitor's process keeps its own data folder: the same one when the same visitor returns.
        assert back.data_home == first.data_home != third.data_home
        assert Admission.env_for(back, {"HOME": "/root"})["XDG_DATA_HOME"] == str(back.data_home)

    asyncio.run(main())


def test_a_token_file_brings_the_visitor_back_to_the_same_seat(tmp_path) -> None:
    async def main() -> None:
        host = EmbeddedHost(Game.new(Setup(seed=3, players=2)), code="c0de")
        port = await host.start()
        try:
            ticket = tmp_path / "visitor.token"
            first = NetLink("127.0.0.1", port, name="ann", code="c0de", token_file=ticket)
            await first.open()
            seat, token = read_token(ticket)
            assert seat == 0 and token and stat.S_IMODE(ticket.stat().st_mode) == 0o600
            await first.close()

            other = NetLink("127.0.0.1", port, name="bob", code="c0de")
            await other.open()
            assert other.local_seats == {1}
            back = NetLink("127.0.0.1", port, name="ann", code="c0de", token_file=ticket)
            await back.open()
            assert back.local_seats == {0}  # not a third seat, not watching: her own

            write_token(ticket, 0, "a token from another table")
            stranger = NetLink("127.0.0.1", port, name="ann", code="c0de", token_file=ticket)
            await stranger.open()  # refused token: forgotten, and in as a newcomer (the table is full: watching)
            assert stranger.local_seats == frozenset() and not ticket.exists()
            for link in (other, back, stranger):
                await link.close()
        finally:
            await host.stop()

    asyncio.run(asyncio.wait_for(main(), 60))
