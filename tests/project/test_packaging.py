"""The distribution lists every package folder, so a plain (non-editable) install is complete."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = {"core": "cthulhu.core", "savegame": "cthulhu.savegame", "net": "cthulhu.net", "table": "cthulhu.table", "cli": "cthulhu.cli", "tui": "cthulhu.tui", "serve": "cthulhu.serve", "server": "cthulhu.server", "content": "cthulhu.content"}


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


def test_the_front_doors_come_with_the_game():
    """`pip install .` is enough to serve friends over `ssh` or a browser: no extra to know about."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    needed = {dep.split(">")[0].split("=")[0].split("<")[0].strip() for dep in project["dependencies"]}
    assert {"asyncssh", "textual-serve"} <= needed
    assert "serve" not in project.get("optional-dependencies", {})
    extra = "[" + "serve]"  # spelt in two parts so that this file does not find itself
    told = [str(path.relative_to(ROOT)) for folder in (*TOP, "tests", "bench") for path in (ROOT / folder).rglob("*.py")
            if extra in path.read_text()] + [name for name in ("README.md", ".ci/run", *(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))
                                                if extra in (ROOT / name).read_text()]
    assert told == [], f"still sending people to an extra: {told}"
