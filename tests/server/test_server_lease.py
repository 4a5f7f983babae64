"""The leases of a fleet's tables on a real PostgreSQL (the tests' cluster): taken with the epoch
raised, skipped while another process claims or writes, renewed, and a fence in every write, so
a process whose lease another took writes nothing more of that table."""

from __future__ import annotations

import time

import pytest

from cthulhu.savegame.writer import Chunk
from cthulhu.server.lease import LeaseLost, Leases, Me, redirect_to
from cthulhu.server.postgres import PostgresStore
from cthulhu.server.store import Changes, TableRecord
from cthulhu.table import TableSpec


def _record(table: str, about: str = "") -> TableRecord:
    return TableRecord(id=table, mode="main", spec=TableSpec.of_kept({}, {}), created="2026-12-02T00:00:00+00:00", save=f"{table}.save", about=about)


class Process:
    """One process's store and leases (`lease` seconds), its lost tables noted."""

    def __init__(self, url: str, port: int, lease: float = 30.0) -> None:
        self.store = PostgresStore(url)
        self.lost: list[str] = []
        self.leases = Leases(Me.new("127.0.0.1", port), lease, on_lost=self.lost.append)
        self.store.leases = self.leases

    def row(self, table: str) -> tuple:
        return self.store.db.execute("SELECT owner, epoch, about FROM tables WHERE id = %s", (table,)).fetchone()


@pytest.fixture
def two(pg_url):
    a, b = Process(pg_url, 7801, lease=0.5), Process(pg_url, 7802)
    yield a, b
    a.store.close()
    b.store.close()


def _expired(process: Process, table: str) -> None:
    """Until the database's clock says `table`'s lease ran out (no sleeping for a guessed time)."""
    deadline = time.monotonic() + 30
    while not process.store.db.execute("SELECT owner_until < now() FROM tables WHERE id = %s", (table,)).fetchone()[0]:
        assert time.monotonic() < deadline
        time.sleep(0.02)


def _made(process: Process, table: str) -> None:
    process.leases.claim_new(table)
    changes = Changes()
    changes.tables[table] = _record(table)
    process.store.commit(changes)
    process.leases.claimed(process.store.db, [table])


def test_a_table_made_by_one_process_is_its_own_and_the_other_is_sent_there(two):
    a, b = two
    _made(a, "t1")
    assert a.row("t1")[:2] == (a.leases.me.owner, 1)
    owner = b.leases.take(b.store.db, "t1")
    assert owner == a.leases.me.owner and redirect_to(owner).port == 7801
    assert b.leases.epoch("t1") is None


def test_a_lease_that_ran_out_is_taken_with_a_new_epoch_and_the_old_owners_writes_are_refused(two):
    a, b = two
    _made(a, "t1")
    shelf_a = a.store.shelf("t1")
    shelf_a.put(_chunk(b"step one", 0))
    _expired(a, "t1")
    assert b.leases.take(b.store.db, "t1") is None and b.leases.epoch("t1") == 2
    with pytest.raises(LeaseLost):  # a stalled A wakes up and writes its next step
        shelf_a.put(_chunk(b"step two", 8))
    assert a.lost == ["t1"] and a.leases.epoch("t1") is None
    assert b.store.shelf("t1").read() == b"step one"  # what A wrote while it held the lease, and nothing after
    changes = Changes()
    changes.tables["t1"] = _record("t1", about="written by a stalled owner")
    a.leases.held["t1"] = 1  # (as A still believes)
    a.store.commit(changes)  # the batch goes on; the row another process runs is not touched
    assert a.row("t1") == (b.leases.me.owner, 2, "") and a.lost == ["t1", "t1"]
    b.store.shelf("t1").put(_chunk(b"step two", 8))
    assert b.store.shelf("t1").read() == b"step onestep two"


def test_renewing_finds_a_lease_another_process_took(two):
    a, b = two
    _made(a, "t1")
    _expired(a, "t1")
    assert b.leases.take(b.store.db, "t1") is None
    a.leases.renew(a.store.db)
    assert a.lost == ["t1"] and a.row("t1")[0] == b.leases.me.owner


def test_a_stalled_owner_inside_its_write_holds_the_table_no_longer_than_its_lease(two):
    import psycopg

    a, b = two
    _made(a, "t1")
    with pytest.raises(psycopg.errors.IdleInTransactionSessionTimeout):
        with a.store.saving() as db, db.transaction():
            a.leases.fenced(db, "t1")  # A is writing a step, then stops (SIGSTOP) before it commits
            assert b.leases.take(b.store.db, "t1") == a.leases.me.owner  # its lease is good: B sends joiners there
            _expired(b, "t1")
            b.store.db.execute("SELECT pg_sleep(%s)", (a.leases.seconds,))  # (the database ends A's session by then)
            db.execute("SELECT 1")
    assert b.leases.take(b.store.db, "t1") is None and b.leases.epoch("t1") == 2


def test_a_due_table_another_process_is_claiming_is_skipped_not_waited_for(two, pg_url):
    import psycopg

    a, b = two
    _made(a, "t1")
    a.leases.release(a.store.db, ["t1"])
    with psycopg.connect(pg_url) as claiming:  # a third process in the middle of its claim
        claiming.execute("SELECT id FROM tables WHERE id = 't1' FOR UPDATE")
        b.store.db.execute("SET lock_timeout = '5s'")  # (were it waiting, this would fail it, not hang the test)
        assert b.leases.take(b.store.db, "t1") == ""  # at once: nobody's, but being claimed
        claiming.rollback()
    assert b.leases.take(b.store.db, "t1") is None


def test_a_released_table_is_taken_by_the_next_hello_anywhere(two):
    a, b = two
    _made(a, "t1")
    a.leases.release(a.store.db, ["t1"])
    assert a.row("t1")[:2] == (None, 1)
    assert b.leases.take(b.store.db, "t1") is None and b.leases.epoch("t1") == 2


def _chunk(data: bytes, offset: int) -> Chunk:
    """A save's write as the shelf takes it (only its bytes and offset matter to the shelf)."""
    return Chunk(version=3, epoch=0, offset=offset, data=data, steps=0, snapshots=0, base=0)


def test_a_table_being_made_is_not_lost_to_a_renewal_before_its_row_is_written(two):
    a, _ = two
    a.leases.claim_new("t1")  # made: its first save is written, its row is in the next batch
    a.leases.renew(a.store.db)
    assert a.lost == [] and a.leases.epoch("t1") == 1
    _made(a, "t1")
    a.leases.renew(a.store.db)
    assert a.lost == [] and a.row("t1")[:2] == (a.leases.me.owner, 1)


@pytest.mark.trio
async def test_a_process_stopping_with_nowhere_to_send_its_joiners_tells_them_to_try_again(pg_url, tmp_path):
    """SIGTERM with no other live process: a hello that still reaches it is told the table is
    moving, not fatally, so the client tries again (from home) instead of giving up."""
    import trio
    import trio.testing

    from cthulhu.net.client import PeerSession, TrioPeer
    from cthulhu.net.lobbymessages import CreateTable
    from cthulhu.net.messages import Error
    from cthulhu.server import open_server
    from cthulhu.server.fleet import Fleet

    server = open_server(tmp_path / "data", store_url=pg_url)
    server.fleet = Fleet(server.store, Me.new("127.0.0.1", 7801), 15.0)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            created = await server.create(CreateTable(seq=1, mode="main", seats=2, bots=1, bot="random"), None, "10.0.0.1")
            await server.fleet.hand_off()
            assert server.store.db.execute("SELECT owner FROM tables WHERE id = %s", (created.id,)).fetchone() == (None,)
            client, end = trio.testing.memory_stream_pair()
            nursery.start_soon(server.handle, end, "10.0.0.2")
            peer = TrioPeer(client, PeerSession("Ann", table_id=created.id))
            await peer.flush()
            with trio.fail_after(30):
                messages = await peer.receive()
            [error] = [m for m in messages if isinstance(m, Error)]
            assert error.code == "table_moving" and not error.fatal and peer.session.closed is None
            nursery.cancel_scope.cancel()
    finally:
        server.store.close()


def test_a_write_refused_by_the_database_is_reported_where_the_save_is_kept(two, tmp_path, content, caplog):
    """A table's save in PostgreSQL has no file: a write the fence refuses (another process took
    the table) names the database, and a server's table says it waits rather than plays on."""
    import logging

    from cthulhu.core import Game, Setup
    from cthulhu.savegame import SaveWriter
    from cthulhu.table.autosave import HostSave

    a, b = two
    _made(a, "t1")
    game = Game.new(Setup(mode="main", seed=3, players=2), content)
    writer = SaveWriter(tmp_path / "t1.save", game, autosave=False, shelf=a.store.shelf("t1"), started=True)
    saves = HostSave(writer, hold=True)
    assert saves.save_blocking()
    time.sleep(0.6)  # a's lease (0.5 s) runs out
    assert b.leases.take(b.store.db, "t1") is None
    with caplog.at_level(logging.WARNING, logger="cthulhu.table.host"):
        assert not saves.save_blocking()
    [warning] = [r.getMessage() for r in caplog.records if "could not save" in r.getMessage()]
    assert "table t1's save in the PostgreSQL database" in warning and ".save" not in warning.replace("'s save", ""), warning
    assert "the table waits and tries again" in warning
