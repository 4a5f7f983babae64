"""Shared fixtures. Network tests are marked `trio` explicitly (no trio_mode), so
Textual's asyncio-based Pilot tests can run in the same session."""

from __future__ import annotations

import os

# No scroll animations in the app under test (Textual's own setting, read when it is imported, and
# inherited by the apps tests start in real terminals): a test waits for where a scroll ends, and
# an animated End or PgDn kept every Pilot test idle for up to a second a key.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

import pytest  # noqa: E402

from cthulhu.content import builtin


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path_factory, monkeypatch):
    """Seat tokens, table codes and user saves go to a fresh folder, never the real home
    (child processes inherit it through the environment)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


@pytest.fixture(autouse=True)
def _a_plain_utf8_color_terminal(monkeypatch):
    """Every test starts in a UTF-8 locale with color allowed, whatever the machine running the
    tests says (the app picks ASCII and no color from the environment); tests of those set them.
    No COLUMNS/LINES either: pytest-xdist's workers are given 80x24, and Textual would take that over
    the size of the terminal (tmux, pty) that a test's app really runs in."""
    for name in ("LC_ALL", "LC_CTYPE", "NO_COLOR", "COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


@pytest.fixture(scope="session")
def content():
    return builtin()
