"""A throwaway PostgreSQL cluster for the tests: the distribution's `initdb` and `pg_ctl`, a
temporary folder, a Unix socket and no TCP port, fsync off; each test gets a database of its own,
copied from a template (`Cluster.database`).

One cluster per pytest-xdist worker (each worker is a process with its session fixtures), so the
workers share nothing but the machine. As root (CI's containers) the server runs as the
`postgres` user through `runuser`, since PostgreSQL refuses to run as root. A machine without
PostgreSQL's programs fails the tests that need them, never skips them (`.ci/run` installs the
`postgresql` package when they are missing).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest

TEMPLATE = "cthulhu_template"
# Where the distributions put the programs (Debian keeps them out of PATH, by version).
SEARCH = ["/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin", "/usr/local/pgsql/bin"]


def programs() -> Path | None:
    """The folder holding `initdb` and `pg_ctl` (the newest version's), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for pattern in SEARCH:
        for folder in sorted(Path("/").glob(pattern.lstrip("/")), reverse=True):
            if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
                return folder
    return None


PREFIX = "cthulhu-pg-"


class Cluster:
    """A running cluster in `folder` (its socket in the folder too), and the URLs of its databases.
    The folder names the test process it belongs to (`owner`), so a cluster left behind by a test
    run that was killed is stopped and removed by the next one (`sweep`)."""

    def __init__(self, bin: Path, folder: Path | None = None) -> None:
        self.bin = bin
        self.as_root = os.geteuid() == 0
        self.folder = folder or Path(tempfile.mkdtemp(prefix=PREFIX))  # (short: a socket's path has ~100 bytes)
        self.data = self.folder / "data"
        self._names = itertools.count(1)
        if folder is not None:
            return  # (one found by `sweep`: only to be stopped)
        (self.folder / "owner").write_text(str(os.getpid()))
        if self.as_root:
            os.chown(self.folder, pwd.getpwnam("postgres").pw_uid, -1)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--locale=C")
        options = f"-k {self.folder} -c listen_addresses='' -F -c max_connections=200 -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "-s", "start")
        self.admin(f"CREATE DATABASE {TEMPLATE} TEMPLATE template0 ENCODING 'UTF8'")

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=self.folder)
        if done.returncode != 0:
            log = (self.folder / "log").read_text(errors="replace") if (self.folder / "log").exists() else ""
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()} {log[-2000:]}")

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={quote(str(self.folder), safe='')}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as db:
            db.execute(sql)

    def database(self) -> str:
        """A new, empty database (from the template), its URL."""
        name = f"t{os.getpid()}_{next(self._names)}"
        self.admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-s", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(bin: Path) -> None:
    """Stop and remove the clusters of test processes that are gone (killed before their teardown)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            owner = int((folder / "owner").read_text())
        except (OSError, ValueError):
            continue
        if not _alive(owner):
            try:
                Cluster(bin, folder).stop()
            except RuntimeError:  # (never started, or stopped already): only the folder is left
                shutil.rmtree(folder, ignore_errors=True)


def start() -> Cluster:
    """A new cluster; a test fails (never skips) when PostgreSQL or psycopg is not installed."""
    bin = programs()
    if bin is None:
        pytest.fail("PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql): the PostgreSQL store's tests need them")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.fail("psycopg is not installed (pip install -e '.[test]'): the PostgreSQL store's tests need it")
    sweep(bin)
    return Cluster(bin)
