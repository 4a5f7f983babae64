"""The server tests' fixtures: a real PostgreSQL cluster of this worker's own, the store a test's
server keeps (each such test runs on SQLite and on PostgreSQL), and virtual time that waits for the
store's worker threads."""

from __future__ import annotations

import pytest
import trio
import trio.testing


@pytest.fixture(scope="session")
def pg_cluster():
    """This worker's throwaway PostgreSQL cluster (tests/support/pgcluster.py), started when a test first needs it."""
    from support.pgcluster import start

    cluster = start()
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster) -> str:
    """A fresh, empty PostgreSQL database of this test's own: its URL."""
    return pg_cluster.database()


@pytest.fixture
def clock() -> trio.testing.MockClock:
    """Virtual time that jumps once nothing has happened for a moment of real time: a table's save
    and the store are written in worker threads, and a clock jumping while one runs would skip
    past every deadline there is."""
    return trio.testing.MockClock(autojump_threshold=0.05)


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request) -> str | None:
    """The store a test's server keeps: None for SQLite in its data folder, else a fresh
    PostgreSQL database's URL (the same test runs on both)."""
    return None if request.param == "sqlite" else request.getfixturevalue("pg_url")
