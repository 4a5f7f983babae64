"""The type checker runs with the tests: mypy, strict on the rules core, the network layer, the
whole interface (the app, its screens and widgets, the table links, and the mode packages whose
renderers and narrators read the declared views and events), the host's front doors (`serve/`),
the table server (`server/`) and the command line (`cli/`).

The folders are mapped into the `cthulhu` namespace only by the install
(`package-dir`), so the check runs over a folder of links laid out as that
namespace, with the settings in pyproject.toml.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("core", "savegame", "net", "table", "cli", "tui", "serve", "server", "content")


def test_mypy_strict_on_core_net_and_the_mode_renderers(tmp_path):
    tree = tmp_path / "cthulhu"
    tree.mkdir()
    for folder in FOLDERS:
        (tree / folder).symlink_to(ROOT / folder, target_is_directory=True)
    cache = ROOT / ".mypy_cache"
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache),
         "-p", "cthulhu.core", "-p", "cthulhu.savegame", "-p", "cthulhu.net", "-p", "cthulhu.table", "-p", "cthulhu.tui", "-p", "cthulhu.serve", "-p", "cthulhu.server", "-p", "cthulhu.cli"],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "MYPY_FORCE_COLOR": "0"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
