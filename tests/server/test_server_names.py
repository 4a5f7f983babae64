"""One person, one name on a server: a name another identity holds is refused at a newcomer's first
hello (in the lobby and at a table, case and spacing aside), a returning identity keeps its own;
and a one-time link code makes a second door (the SSH or web door's identity) the first one: one
name, one "my tables", past a restart; the code is single use, short-lived and only hashed on disk."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import pytest
import trio

from cthulhu.net.lobbyclient import LobbyRefused
from cthulhu.net.lobbymessages import LinkCodeMsg, Linked, TablesPage
from cthulhu.net.messages import Rejected
from cthulhu.server.linking import CODE_LIFETIME

from support.memory import create as _create, kept_rows, memory_server

pytestmark = pytest.mark.trio


async def _mine(lobby) -> list[tuple[str, list[int]]]:
    page = await lobby.tables(mine=True)
    assert isinstance(page, TablesPage)
    return sorted((r.id, r.mine) for r in page.rows)


async def test_a_name_another_identity_holds_is_refused_at_the_first_hello(tmp_path, clock, store_url):
    async with memory_server(tmp_path / "data", store_url=store_url) as ms:
        bob = await ms.lobby("Bob", "key-bob")
        table = await _create(bob, seats=3, bots=0)
        with pytest.raises(LobbyRefused) as refused:
            await ms.lobby(" bOB ", "key-someone-else", address="10.0.0.2")
        assert (refused.value.code, refused.value.reason) == ("name_taken", "Bob is taken on this server")
        at_table = await ms.peer(table.id, "BOB", ident="key-another", address="10.0.0.3")
        assert (at_table.session.closed.code, at_table.session.closed.reason) == ("name_taken", "Bob is taken on this server")
        anonymous = await ms.peer(table.id, "bob", address="10.0.0.4")  # no key: not Bob either
        assert anonymous.session.closed.code == "name_taken"
        again = await ms.lobby("Robert", "key-bob")  # Bob himself, whatever he types: his own name
        assert again.client.welcome.name == "Bob"
        bea = await ms.lobby("Bea", "key-bea", address="10.0.0.5")
        assert bea.client.welcome.name == "Bea"
        assert len(ms.server.people.by_id) == 2  # nobody was made for a refused name


async def test_a_link_code_makes_another_door_the_same_person(tmp_path, clock, caplog, store_url):
    caplog.set_level(logging.DEBUG)
    data = tmp_path / "data"
    now = [datetime(2030, 1, 1, tzinfo=timezone.utc)]
    async with memory_server(data, wall=lambda: now[0], store_url=store_url) as ms:
        laptop = await ms.lobby("Ann", "key-laptop")
        hers = await _create(laptop, seats=2, bots=0)
        await ms.peer(hers.id, "Ann", ident="key-laptop")
        door = await ms.lobby("ann-ssh", "key-door", address="10.0.0.2")  # the SSH door's identity for her key
        doors = await _create(door, seats=2, bots=0)
        await ms.peer(doors.id, "ann-ssh", ident="key-door", address="10.0.0.2")
        await trio.sleep(1)
        assert await _mine(door) == [(doors.id, [0])]

        code = await laptop.new_link_code()
        assert isinstance(code, LinkCodeMsg) and len(code.code) == 9 and code.expires == "2030-01-01T00:10:00+00:00"
        assert isinstance(wrong := await door.link("ABCD-EFGH"), Rejected) and wrong.code == "bad_link_code"
        linked = await door.link(code.code.lower().replace("-", " "))  # as typed by hand
        assert isinstance(linked, Linked) and linked.name == "Ann"
        both = sorted([(hers.id, [0]), (doors.id, [0])])
        assert await _mine(door) == both and await _mine(laptop) == both  # one "my tables"
        assert isinstance(used := await door.link(code.code), Rejected) and used.code == "bad_link_code"  # once only

        later = await laptop.new_link_code()
        assert isinstance(later, LinkCodeMsg)
        now[0] += timedelta(seconds=CODE_LIFETIME + 1)
        stranger = await ms.lobby("Cy", "key-cy", address="10.0.0.3")
        assert isinstance(stale := await stranger.link(later.code), Rejected) and stale.code == "bad_link_code"  # out of date
        await ms.server.flush()
    stored = " ".join(str(v) for row in kept_rows(data, store_url, "SELECT * FROM link_codes") for v in row)
    for shown in (code.code, later.code):
        assert shown not in stored and shown.replace("-", "") not in stored  # hashed in the store
        assert shown not in caplog.text and shown.replace("-", "") not in caplog.text  # and never logged

    async with memory_server(data, wall=lambda: now[0], store_url=store_url) as ms:  # past a restart: still one person
        door = await ms.lobby("whatever", "key-door", address="10.0.0.2")
        assert door.client.welcome.name == "Ann"
        assert await _mine(door) == both
        with pytest.raises(LobbyRefused):
            await ms.lobby("ANN", "key-new", address="10.0.0.4")  # her name is hers alone; the door's old one is free again
        assert (await ms.lobby("ann-ssh", "key-new", address="10.0.0.5")).client.welcome.name == "ann-ssh"


async def test_a_link_code_given_while_the_store_cannot_write_is_kept_once_it_can(tmp_path, clock, monkeypatch, store_url):
    """The code and its use are in the batch the store refused; they are written with the next one
    that works (a batch's codes were dropped: the code was unknown after a restart, and a used one
    stayed usable)."""
    import sqlite3

    data = tmp_path / "data"
    async with memory_server(data, store_url=store_url) as ms:
        laptop = await ms.lobby("Ann", "key-laptop")
        store = ms.server.store
        real = store.commit

        def full_disk(changes):
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(store, "commit", full_disk)
        code = await laptop.new_link_code()
        assert isinstance(code, LinkCodeMsg)
        await ms.server.flush()
        assert ms.server.store_trouble is not None
        monkeypatch.setattr(store, "commit", real)
        await ms.server.flush()
        assert ms.server.store_trouble is None
    assert len(kept_rows(data, store_url, "SELECT * FROM link_codes")) == 1
    async with memory_server(data, store_url=store_url) as ms:  # after a restart: the code is the store's
        door = await ms.lobby("ann-ssh", "key-door", address="10.0.0.2")
        assert isinstance(linked := await door.link(code.code), Linked) and linked.name == "Ann"
        await ms.server.flush()
    assert kept_rows(data, store_url, "SELECT * FROM link_codes") == []  # used: gone
