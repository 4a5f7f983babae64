"""Two processes of a fleet as two servers in one trio run, on the tests' PostgreSQL, where the
races between them can be laid out step by step:

- the catch-up, the net under the notices: a change to a table's row that another process did
  not hear of is learned at the next comparison, even one made in the same second as the last
  (the rows' `updated` is to the second, so comparing it missed them);
- two processes meeting the same new identity key at once make one identity (two with the same key
  had the store refuse every later batch of the second, so its tables' changes were never written).
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
import trio


def _two(pg_url, tmp_path, wall=None):
    from cthulhu.server import open_server
    from cthulhu.server.fleet import Fleet
    from cthulhu.server.lease import Me

    a = open_server(tmp_path / "a", store_url=pg_url, wall=wall)
    a.fleet = Fleet(a.store, Me.new("127.0.0.1", 7801), 15.0)
    b = open_server(tmp_path / "b", store_url=pg_url, wall=wall)
    b.fleet = Fleet(b.store, Me.new("127.0.0.1", 7802), 15.0, catch_up=3600)  # (compared by the test alone)
    return a, b


@pytest.mark.trio
async def test_a_change_nobody_was_told_of_is_caught_up_within_the_same_second(pg_url, tmp_path):
    import psycopg

    from cthulhu.net.lobbymessages import CreateTable

    def wall() -> datetime:
        return datetime(2026, 12, 2, 12, 0, 0, tzinfo=timezone.utc)  # every write in the same second

    a, b = _two(pg_url, tmp_path, wall)
    look = await trio.to_thread.run_sync(lambda: psycopg.connect(pg_url, autocommit=True))
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(a.run)
            await nursery.start(b.run)
            created = await a.create(CreateTable(seq=1, mode="main", seats=2, bots=1, bot="random"), None, "10.0.0.1")
            with trio.fail_after(30):
                while created.id not in b.tables:  # told: A's notice
                    await trio.sleep(0.05)
            await b.fleet._catch_up(look)
            about = b.tables[created.id].record.about
            await trio.to_thread.run_sync(lambda: look.execute("UPDATE tables SET about = %s WHERE id = %s", (about + " (changed)", created.id)))
            await b.fleet._catch_up(look)  # nobody told B: only the comparison finds it
            assert b.tables[created.id].record.about == about + " (changed)"
            assert b.tables[created.id].record.updated == wall().isoformat(timespec="seconds")
            nursery.cancel_scope.cancel()
    finally:
        look.close()
        a.store.close()
        b.store.close()


@pytest.mark.trio
async def test_two_processes_meeting_a_new_key_at_once_make_one_identity(pg_url, tmp_path):
    from cthulhu.net.messages import Hello

    a, b = _two(pg_url, tmp_path)
    hello = Hello(proto=1, name="Ann", ident="key-ann-new", table="t")
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(a.run)
            await nursery.start(b.run)
            at_a, at_b = a.arrive(hello, "10.0.0.1"), b.arrive(hello, "10.0.0.2")  # neither has written it yet
            await a.flush()
            await b.flush()
            assert a.store_trouble is None and b.store_trouble is None  # (the second batch was refused)
            assert at_a is not None and at_b is not None and at_a.id == at_b.id
            rows = a.store.db.execute("SELECT id, name FROM identities").fetchall()
            assert rows == [(at_a.id, "Ann")]
            nursery.cancel_scope.cancel()
    finally:
        a.store.close()
        b.store.close()
