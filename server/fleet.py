"""One `cthulhu server` process among several sharing a PostgreSQL store (issue 38's fleet).

The `TableServer` stays a server of many tables; a `Fleet` beside it answers the questions that
only arise when others share its store:

* **Whose is this table?** A table is opened here only once this process holds its lease
  (`server.lease`); a hello for a table another process holds is answered `redirect` to that
  process's advertised address (`Elsewhere`). Taking a lease reads the table's row again, since
  its last owner changed it.
* **What do the others have?** Every process lists every table: a commit here notifies the
  others (`NOTIFY cthulhu_tables` with the ids written), which read those rows (`Listener`,
  waiting on its connection's socket inside trio); a periodic catch-up compares a digest of every
  row with the one last read, so a lost notice costs at most `catch_up` seconds. (Not `updated`:
  it is to the second, and two writes in a second are common.)
* **Who stops?** A lease found lost (a renewal or a fenced write found another owner) stops that
  table here at once: its peers' connections are cut and they reconnect home, which sends them
  to the new owner. On SIGTERM the process releases every lease in its last batch (the one whose
  notice the others act on) and sends its peers to another live process (`hand_off`). A deadline
  that rings while another process holds the table's lease is looked at again a lease later: a
  process that died keeps its tables no longer than that.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import replace
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import trio

from cthulhu.net import encode_frame
from cthulhu.net import Redirect

from .lease import Leases, Me, redirect_to
from .people import key_hash
from .store import Changes, Identity, TableRecord

if TYPE_CHECKING:
    import psycopg

    from .postgres import PostgresStore
    from .server import TableServer
    from .table import ServerTable

log = logging.getLogger(__name__)

CHANNEL = "cthulhu_tables"
CATCH_UP = 5.0  # seconds between two full comparisons of the rows with what is known


class Elsewhere(Exception):
    """The table is run by another process: its joiners go there."""

    def __init__(self, redirect: Redirect | None) -> None:
        super().__init__("the table is run by another process of this server")
        self.redirect = redirect


class Fleet:
    """This process's part in a fleet: its leases, what it tells the others and hears from them."""

    def __init__(self, store: PostgresStore, me: Me, lease: float, *, catch_up: float = CATCH_UP) -> None:
        self.store = store
        self.me = me
        self.catch_up = catch_up
        self._digests: dict[str, str] = {}  # each table's record as the last catch-up read it (an md5 of its columns)
        self.server: TableServer | None = None
        self.leases = Leases(me, lease, on_lost=self._lost_in_thread)
        store.leases = self.leases  # every write for a table is fenced from now on
        self.to_release: set[str] = set()
        self.refused: set[str] = set()  # the tables whose records the last batch found run elsewhere
        self._token: trio.lowlevel.TrioToken | None = None
        self._lost: set[str] = set()
        self._lost_wake = trio.Event()
        self.stopping: Redirect | bool = False  # handing off: every hello goes elsewhere (a redirect there, if one is known)

    # -- leases ------------------------------------------------------------------------------------

    async def take(self, table: ServerTable) -> None:
        """Before `table` is opened here: take its lease (its row read again), or `Elsewhere`."""
        if self.stopping is not False:
            raise Elsewhere(self.stopping if isinstance(self.stopping, Redirect) else None)
        if self.leases.epoch(table.id) is not None and table.id not in self.to_release:
            return
        self.to_release.discard(table.id)
        owner, record = await self._in_store(self._take, table.id)
        for _ in range(3):  # "" : another process is claiming it this very moment: its row says whose soon
            if owner != "":
                break
            await trio.sleep(0.1)
            owner, record = await self._in_store(self._take, table.id)
        if owner is not None:
            raise Elsewhere(redirect_to(owner) if owner else None)
        if record is not None:
            self._learn(record, taken=True)

    def _take(self, table_id: str) -> tuple[str | None, TableRecord | None]:
        db = self.store.db
        owner = self.leases.take(db, table_id)
        return owner, (self._row(db, table_id) if owner is None else None)

    def claim_new(self, table_id: str) -> None:
        """A table made here is this process's from its first row."""
        self.leases.claim_new(table_id)

    def release_soon(self, table: ServerTable) -> None:
        """A table closed here: its lease goes with the batch that writes its last record."""
        self.to_release.add(table.id)

    def commit(self, changes: Changes) -> None:
        """The store's batch (in its thread): the records, the leases of the tables closed since, a
        renewal of every other lease, and a notice to the other processes."""
        db = self.store.db
        self.leases.lost.clear()
        self.store.commit(changes)
        self.refused = set(self.leases.lost)
        self.leases.claimed(db, changes.tables)
        released, self.to_release = self.to_release, set()
        self.leases.release(db, released)
        self.leases.renew(db)
        written = sorted(set(changes.tables) | changes.dropped | released)
        if written:
            db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, " ".join(written)[:7900]))

    def renew(self) -> None:
        self.leases.renew(self.store.db)

    async def _in_store(self, call: Callable[..., Any], *args: Any) -> Any:
        server = self.server
        limiter = server._limiter if server is not None else None
        return await trio.to_thread.run_sync(call, *args, limiter=limiter)

    # -- a lease lost ------------------------------------------------------------------------------

    def _lost_in_thread(self, table_id: str) -> None:
        """(From whichever thread found it.) Stop the table in the event loop, at once."""
        if self._token is None:
            return
        self._token.run_sync_soon(self._note_lost, table_id)

    def _note_lost(self, table_id: str) -> None:
        self._lost.add(table_id)
        self._lost_wake.set()

    async def _stop_lost(self) -> None:
        while True:
            await self._lost_wake.wait()
            self._lost_wake = trio.Event()
            lost, self._lost = self._lost, set()
            for table_id in lost:
                await self.drop(table_id, "another process of this server took it over")

    async def drop(self, table_id: str, why: str | None) -> None:
        """Stop table `table_id` here without writing anything more of it (`why`: told in the log):
        its peers' connections are cut, and they reconnect home."""
        server = self.server
        table = server.tables.get(table_id) if server is not None else None
        if server is None or table is None or table.host is None:
            return
        host = table.host
        for peer in list(host.peers):
            peer.scope.cancel()
        if table.scope is not None:
            table.scope.cancel()
        host.saves.release()
        table.closed()
        server._dirty.discard(table)
        if why is not None:
            log.warning("table %s stopped here: %s", table_id, why)

    # -- the others' tables --------------------------------------------------------------------------

    def _row(self, db: psycopg.Connection[tuple[Any, ...]], table_id: str) -> TableRecord | None:
        from .postgres import _COLUMNS
        from .sqlite import SqliteStore

        row = db.execute(f"SELECT {_COLUMNS} FROM tables WHERE id = %s", (table_id,)).fetchone()
        return SqliteStore._table(row) if row is not None else None

    async def find(self, table_id: str) -> ServerTable | None:
        """A table this process has not heard of yet (made elsewhere a moment ago)."""
        record = await self._in_store(self._row, self.store.db, table_id)
        if record is None or record.archived is not None:
            return None
        return self._learn(record)

    def _learn(self, record: TableRecord, *, taken: bool = False) -> ServerTable | None:
        """What the store says of a table another process ran (or runs): listed as it is now."""
        from .table import ServerTable

        server = self.server
        if server is None:
            return None
        table = server.tables.get(record.id)
        if table is not None and table.host is not None and not taken:
            return table  # ours, open: our record is the newer
        if record.archived is not None:
            if table is not None:
                del server.tables[record.id]
                server.listings.drop(record.id)
            return None
        if table is None:
            table = ServerTable(record, server.folder, self.store.shelf(record.id))
            server.tables[record.id] = table
        else:
            table.record = record
            table._search = None
        server.listings.put(table)
        server._arm(table)  # its clock rings at every process; the lease decides which acts (once)
        return table

    async def know(self, key: str | None) -> None:
        """Before a hello's identity is looked for: one another process made (and its merged-into
        chain) is read from the store, so a person is one identity at every process."""
        server = self.server
        if server is None or not key or server.people.find(key) is not None:
            return
        for identity in await self._in_store(self._identities, key_hash(key)):
            server.people.learn(identity)

    def _identities(self, hashed: str) -> list[Identity]:
        db = self.store.db
        found: list[Identity] = []
        row = db.execute("SELECT id, key_hash, name, created, last_seen, merged_into FROM identities WHERE key_hash = %s", (hashed,)).fetchone()
        while row is not None and len(found) < 8:
            found.append(Identity(*row))
            merged = found[-1].merged_into
            row = db.execute("SELECT id, key_hash, name, created, last_seen, merged_into FROM identities WHERE id = %s",
                             (merged,)).fetchone() if merged else None
        return found[::-1]  # (the one it stands for first)

    def _forget(self, table_id: str) -> None:
        server = self.server
        if server is not None and table_id in server.tables and server.tables[table_id].host is None:
            del server.tables[table_id]
            server.listings.drop(table_id)

    async def _listen(self) -> None:
        """Hear the other processes' notices (on a connection of its own, its socket awaited in
        trio) and read the rows they name; compare everything every `catch_up` seconds."""
        import psycopg

        db = await trio.to_thread.run_sync(lambda: psycopg.connect(self.store.url, autocommit=True))
        try:
            db.execute(f"LISTEN {CHANNEL}")
            while True:
                # Notices that came in while this connection read rows were taken off its socket
                # then (psycopg keeps them): heard before the socket is waited on again.
                ids = {table for notice in db.notifies(timeout=0) for table in notice.payload.split()}
                if ids:
                    await self._heard(db, ids)
                    continue
                with trio.move_on_after(self.catch_up) as waited:
                    await trio.lowlevel.wait_readable(db.pgconn.socket)
                if waited.cancelled_caught:
                    await self._catch_up(db)
        finally:
            db.close()

    async def _heard(self, db: psycopg.Connection[tuple[Any, ...]], ids: set[str]) -> None:
        records = await trio.to_thread.run_sync(lambda: {i: self._row(db, i) for i in sorted(ids)})
        for table_id, record in records.items():
            if record is None:
                self._forget(table_id)
            else:
                self._learn(record)

    async def _catch_up(self, db: psycopg.Connection[tuple[Any, ...]]) -> None:
        server = self.server
        if server is None:
            return
        from .postgres import _COLUMNS

        # (the record's columns only: a lease renewed is no change to learn)
        rows = await trio.to_thread.run_sync(lambda: db.execute(f"SELECT id, md5(ROW({_COLUMNS})::text) FROM tables WHERE archived IS NULL").fetchall())
        digests = {str(i): str(digest) for i, digest in rows}
        stale = {i for i, digest in digests.items() if i not in server.tables or self._digests.get(i) != digest}
        for gone in set(server.tables) - set(digests):
            self._forget(gone)
        self._digests = digests  # (a row written again since it was read here is read again next time)
        if stale:
            await self._heard(db, stale)

    # -- running -----------------------------------------------------------------------------------

    async def run(self, server: TableServer, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Renew the leases (a third of a lease apart), stop the tables lost, hear the others."""
        self.server = server
        self._token = trio.lowlevel.current_trio_token()
        if self.me.port == 0 and server.port is not None:  # (--port 0 and no --advertise: the port it got)
            self.me = self.leases.me = replace(self.me, port=server.port)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._stop_lost)
            nursery.start_soon(self._listen)
            task_status.started()
            while True:
                await trio.sleep(self.leases.seconds / 3)
                await self._in_store(self.renew)

    def elsewhere(self) -> Redirect | None:
        """Another live process of the fleet (one that holds a lease now), for joiners sent away
        when this one stops; None if none is known."""
        rows = self.store.db.execute("SELECT DISTINCT owner FROM tables WHERE owner IS NOT NULL AND owner <> %s AND owner_until > now() LIMIT 1",
                                     (self.me.owner,)).fetchall()
        return redirect_to(str(rows[0][0])) if rows else None

    def release_all(self) -> None:
        """At the end (in the store's thread, after the last batch): every lease released."""
        self.leases.release(self.store.db, list(self.leases.held))
        self.to_release.clear()

    async def hand_off(self, grace: float = 1.0) -> None:
        """SIGTERM, while the process still listens: every open table's save and record written
        (its turn clock stopped with the time it had left: the hand-off costs its player none),
        every lease released in that batch, then its peers sent to another live process (none
        known: cut, and they reconnect home). From now on every hello here is sent away."""
        server = self.server
        if server is None:
            return
        to = await self._in_store(self.elsewhere)
        self.stopping = to or True
        now = trio.current_time()
        tables = [t for t in server.tables.values() if t.host is not None and t.opening is None]
        for table in tables:
            host = table.host
            assert host is not None
            clock, step = host.clock, host.told
            left = clock.left(now) if clock is not None and not clock.paused else None
            kept = clock.saved() if clock is not None else None
            if table.scope is not None:
                table.scope.cancel()  # its game, clock and bots stop here (its peers' connections stay, for the redirect)
            await trio.sleep(0)
            table.refresh(server.now())
            if host.told == step and kept is not None:
                table.record.clock = kept  # (the clock as it ran: the stopped loop forgets it)
            await trio.to_thread.run_sync(host.flush_log)
            if left is not None and table.record.clock is not None and host.told == step:
                table.record.clock["left_ms"] = int(left * 1000)
            server._changes.tables[table.id] = copy.deepcopy(table.record)
            self.to_release.add(table.id)  # in the batch whose notice the others act on: they find it free
        await server.flush()
        await self._in_store(self.release_all)
        frame = encode_frame(to.wire()) if to is not None else None
        for table in tables:
            for peer in list(table.host.peers) if table.host is not None else []:
                if frame is not None:
                    peer.close_with(frame, grace)
                else:
                    peer.scope.cancel()
        with trio.move_on_after(grace):
            while any(t.host is not None and t.host.peers for t in tables):
                await trio.sleep(0.01)
        for table in tables:
            await self.drop(table.id, None)
        log.info("handed off %d table%s%s", len(tables), "s" if len(tables) != 1 else "", f" to {to.host}:{to.port}" if to else "")
