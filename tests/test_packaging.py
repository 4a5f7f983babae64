"""The distribution lists every package folder, so a plain (non-editable) install is complete."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = {"core": "cthulhu.core", "savegame": "cthulhu.savegame", "net": "cthulhu.net", "cli": "cthulhu.cli", "tui": "cthulhu.tui", "serve": "cthulhu.serve", "content": "cthulhu.content"}


def test_every_package_folder_is_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for folder, dotted in TOP.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([dotted, *rel.parts]) if rel.parts else dotted)
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert config["package-dir"] == {v: k for k, v in TOP.items()}
