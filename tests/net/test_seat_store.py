"""The seat tokens a machine keeps: in the user data folder, private, keyed by address (or table) and name."""

from __future__ import annotations

import json
import os
import stat
from concurrent.futures import ThreadPoolExecutor

from cthulhu.net.seatstore import SeatStore


def test_tokens_live_in_the_user_data_folder_readable_by_the_owner_only(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = SeatStore()
    assert store.path == tmp_path / "data" / "cthulhu" / "seats.json"
    store.remember(address="Host.example:7777", table="t1", name="Bob", seat=1, token="tok-1")
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.path.parent).st_mode) == 0o700
    entry = SeatStore().find(name="Bob", address="host.example:7777")
    assert (entry.table, entry.seat, entry.token) == ("t1", 1, "tok-1")
    assert SeatStore().find(name="Ann", address="host.example:7777") is None
    assert SeatStore().find(name="Bob", address="other:7777") is None


def test_the_newest_seat_wins_and_a_refused_token_is_forgotten(tmp_path):
    store = SeatStore(tmp_path / "seats.json")
    store.remember(address="h:1", table="old", name="Bob", seat=0, token="a")
    store.remember(address="h:1", table="new", name="Bob", seat=2, token="b")
    store.remember(address="h:1", table="new", name="Bob", seat=3, token="c")  # the same table: replaced
    assert [e.token for e in store.entries()] == ["c", "a"]
    assert store.find(name="Bob", address="h:1").token == "c"
    store.forget("c")
    assert store.find(name="Bob", address="h:1").token == "a"


def test_a_hosting_terminal_keeps_its_own_seat_by_table_and_the_code_it_served(tmp_path):
    store = SeatStore(tmp_path / "seats.json")
    store.remember(address="127.0.0.1:5000", table="t9", name="Ann", seat=0, token="host-tok", hosting=True)
    store.remember(address="127.0.0.1:5000", table="t9", name="Ann", seat=1, token="joiner-tok")
    assert store.find(name="Ann", table="t9", hosting=True).token == "host-tok"
    assert store.find(name="Ann", address="127.0.0.1:5000").token == "joiner-tok"
    store.remember_code("t9", "owl-17")
    assert SeatStore(store.path).code_for("t9") == "owl-17" and store.code_for("t0") is None


def test_a_damaged_store_is_read_as_empty_and_rewritten(tmp_path):
    path = tmp_path / "seats.json"
    path.write_text("{not json")
    store = SeatStore(path)
    assert store.entries() == [] and store.find(name="x", address="h:1") is None
    path.write_text(json.dumps({"seats": [{"address": "h:1"}, "junk"], "codes": []}))
    assert store.entries() == []
    store.remember(address="h:1", table=None, name="x", seat=0, token="t")
    assert store.find(name="x", address="h:1").token == "t"


def test_terminals_joining_at_once_keep_every_token(tmp_path):
    store = SeatStore(tmp_path / "seats.json")
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: SeatStore(store.path).remember(address="h:1", table="t", name=f"p{n}", seat=n, token=f"t{n}"), range(24)))
    assert sorted(e.token for e in store.entries()) == sorted(f"t{n}" for n in range(24))


def test_the_file_counts_seats_from_1_and_one_from_before_is_read_as_it_was_meant(tmp_path):
    path = tmp_path / "seats.json"
    SeatStore(path).remember(address="h:1", table="t", name="Ann", seat=0, token="a")  # the protocol's first seat
    on_disk = json.loads(path.read_text())
    assert on_disk["seats_from"] == 1 and [e["seat"] for e in on_disk["seats"]] == [1]  # as a person or a script reads it
    assert SeatStore(path).find(name="Ann", address="h:1").seat == 0
    old = tmp_path / "old.json"  # written before: seats from 0, no marker
    old.write_text(json.dumps({"seats": [{"address": "h:1", "table": "t", "name": "Bob", "seat": 2, "token": "b"}], "codes": {}}))
    assert SeatStore(old).find(name="Bob", address="h:1").seat == 2
    SeatStore(old).remember(address="h:1", table="u", name="Cy", seat=1, token="c")  # rewritten, every seat from 1
    rewritten = json.loads(old.read_text())
    assert rewritten["seats_from"] == 1 and {e["name"]: e["seat"] for e in rewritten["seats"]} == {"Cy": 2, "Bob": 3}
    assert {e.name: e.seat for e in SeatStore(old).entries()} == {"Cy": 1, "Bob": 2}
