"""The table's room (issue 37): a `Host` made of parts, opened one way by everyone, a server
included, which sets nothing on a host from outside, hands it the hello it read, and keeps a
table as the typed `TableSpec` it is opened from."""

from __future__ import annotations

import ast
import json
from functools import partial
from pathlib import Path

import pytest
import trio
import trio.testing

from cthulhu.core import Setup
from cthulhu.net import PROTOCOL_VERSION, FrameDecoder, Hello, Limits, Ping, Pong, Welcome, encode_frame, parse_to_host
from cthulhu.net.messages import parse_to_peer
from cthulhu.server.sqlite import SqliteStore
from cthulhu.server.store import Changes
from cthulhu.server.table import ServerTable
from cthulhu.table import Pace, StandIns, TableSpec

from support.memory import memory_table
from support.net_games import make_game

ROOT = Path(__file__).resolve().parents[2]


def test_the_host_is_made_of_parts_and_no_file_of_the_table_is_long():
    tree = ast.parse((ROOT / "table" / "host.py").read_text(encoding="utf-8"))
    host = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Host")
    assert host.end_lineno is not None and host.end_lineno - host.lineno + 1 < 550
    long = {p.name: n for p in (ROOT / "table").glob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert long == {}


def _server_sources() -> list[tuple[str, ast.AST]]:
    return [(str(p.relative_to(ROOT)), ast.parse(p.read_text(encoding="utf-8"))) for p in sorted((ROOT / "server").glob("*.py"))]


def _is_host(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "host") or (isinstance(node, ast.Attribute) and node.attr == "host")


def test_the_server_opens_its_tables_with_open_table_and_sets_nothing_on_a_host():
    found = []
    for where, tree in _server_sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Host":
                found.append(f"{where}:{node.lineno} calls {node.func.id}")
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            found += [f"{where}:{node.lineno} sets host.{t.attr}" for t in targets if isinstance(t, ast.Attribute) and _is_host(t.value)]
    assert found == []


def test_the_server_hands_a_table_the_hello_it_read_not_its_bytes_again():
    encoded = [f"{where}:{node.lineno}" for where, tree in _server_sources() for node in ast.walk(tree)
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "wire"
               and isinstance(node.func.value, ast.Name) and node.func.value.id == "hello"]
    assert encoded == []


@pytest.mark.trio
async def test_a_host_handed_a_parsed_hello_welcomes_it_and_reads_what_came_after_it(autojump_clock):
    """As a server does: the hello read (and parsed) once, the decoder holding the frame that came
    right behind it, which the host then reads as the peer's next frame."""
    async with memory_table(TableSpec(start=make_game("main", seed=3, players=1))) as table:
        client, server = trio.testing.memory_stream_pair()
        decoder = FrameDecoder(Limits().first_frame)
        [first] = decoder.feed(encode_frame(Hello(proto=PROTOCOL_VERSION, name="Ann").wire()) + encode_frame(Ping(n=7).wire()), max_frames=1)
        table.nursery.start_soon(partial(table.host.handle, server, "10.0.0.1", greeted=(parse_to_host(first), decoder)))
        heard, reader = [], FrameDecoder()
        with trio.fail_after(60):
            while not any(isinstance(m, Pong) for m in heard):
                heard += [parse_to_peer(frame) for frame in reader.feed(await client.receive_some(65536))]
        assert isinstance(heard[0], Welcome) and heard[0].seat == 0
        assert [m.n for m in heard if isinstance(m, Pong)] == [7] and table.host.crashes == 0


V1_SETTINGS = {"bots": {"1": "heuristic"}, "bot": "heuristic", "bot_delay": 0.25, "pace": {"kind": "live"}}


def test_a_tables_record_keeps_the_spec_it_is_opened_from_typed_and_an_old_row_loads_into_it(tmp_path):
    """A row as the first schema wrote it loads as a typed `TableSpec`; written back, it is stored
    exactly as before (so no migration), and the table opens from it with its bots and pause."""
    path = tmp_path / "server.db"
    old = SqliteStore(path, upto=1)
    old.db.execute("INSERT INTO tables (id, mode, setup, settings, created, save, private, about, seats, step, to_move, finished, updated) "
                   "VALUES ('t1', 'main', ?, ?, 'c', 't1.save', 0, '', '[]', 0, '[]', 0, 'u')",
                   (json.dumps({"mode": "main", "seed": 9, "players": 2}), json.dumps(V1_SETTINGS, sort_keys=True)))
    old.close()
    store = SqliteStore(path)
    [record] = store.load().tables
    assert record.spec == TableSpec(start=Setup(mode="main", seed=9, players=2), bots={1: "heuristic"}, stand_ins=StandIns(kind="heuristic"),
                                    bot_delay=0.25, pace=Pace())
    store.commit(Changes(tables={"t1": record}))
    assert json.loads(store.db.execute("SELECT settings FROM tables").fetchone()[0]) == V1_SETTINGS
    store.close()
    spec = ServerTable(record, tmp_path / "tables").spec(Limits())
    assert (spec.start, spec.bots, spec.stand_ins.kind, spec.bot_delay, spec.table_id) == (record.setup, {1: "heuristic"}, "heuristic", 0.25, "t1")
    assert spec.save is not None and spec.save.file == tmp_path / "tables" / "t1.save" and spec.save.at_once
