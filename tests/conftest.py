"""Shared fixtures. Network tests are marked `trio` explicitly (no trio_mode), so
Textual's asyncio-based Pilot tests can run in the same session."""

from __future__ import annotations

import pytest

from cthulhu.content import builtin


@pytest.fixture(scope="session")
def content():
    return builtin()
