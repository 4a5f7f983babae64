"""The layer graph of DESIGN.md, pinned: which of our packages each package may import.

Every import counts, at module level or inside a function, under `TYPE_CHECKING` or not: a layer
that needs another only for a type still depends on it. The scanner reads the source (nothing is
imported), so the test also shows a violation it finds in a small tree made for it.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# package -> the packages it may import (besides itself). Imports point down only.
LAYERS: dict[str, set[str]] = {
    "core": {"content"},  # the built-in content, the default of `Game.new` (imported when first needed)
    "content": {"core"},  # the loader that reads its folder (`core.content`) and nothing else of core's
    "savegame": {"core", "content"},  # save files: bytes <-> a checked game record, folders, locks
    "net": {"core", "content", "savegame"},  # the wire, both ends: frames, messages, deltas, the peer client, limits
    "table": {"core", "content", "savegame", "net"},  # a table at run time: its spec, its host and the host's parts
    "serve": {"net", "savegame"},
    "server": {"core", "content", "savegame", "net", "table"},  # many tables in one process, its lobby and its store
    "tui": {"core", "content", "net", "savegame"},  # an interface is a peer: it never imports `table`, nor what serves tables
    "cli": {"core", "content", "savegame", "net", "table", "serve", "server", "tui"},
}
# Finer rules inside an allowed edge: (package, imported package) -> the only modules it may name.
ONLY: dict[tuple[str, str], set[str]] = {
    ("content", "core"): {"cthulhu.core.content"},
    ("core", "content"): {"cthulhu.content"},
}


def imported(path: Path, package: str, root: Path) -> list[str]:
    """The `cthulhu.*` modules a file imports, relative imports resolved."""
    rel = path.relative_to(root / package).with_suffix("").parts
    here = ["cthulhu", package, *rel]
    if here[-1] == "__init__":
        here = here[:-1]
    else:
        here = here[:-1]  # a module's relative imports start from its package
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
                names = [module] if node.module else [f"{module}.{a.name}" for a in node.names]
            else:
                names = [node.module or ""]
            out += names
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
    return [name for name in out if name.startswith("cthulhu.")]


def violations(root: Path, layers: dict[str, set[str]], only: dict[tuple[str, str], set[str]]) -> list[str]:
    found = []
    for package, allowed in layers.items():
        for path in sorted((root / package).rglob("*.py")):
            for module in imported(path, package, root):
                target = module.split(".")[1]
                if target == package:
                    continue
                where = f"{path.relative_to(root)} imports {module}"
                if target not in allowed:
                    found.append(f"{where}: {package} may not import {target}")
                elif (package, target) in only and not any(module == m or module.startswith(m + ".") for m in only[package, target]):
                    found.append(f"{where}: {package} may import only {', '.join(sorted(only[package, target]))} of {target}")
    return found


def test_every_package_imports_only_the_layers_below_it():
    """Among them: the interface is a peer, never importing `table` (a table of this process's own is
    built and run by `cli.embedded`, in `table/`'s thread)."""
    assert violations(ROOT, LAYERS, ONLY) == []


def test_every_installed_package_has_its_place_in_the_graph():
    """A new top-level package must be given its layer here (and in DESIGN.md) on purpose."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = set(pyproject["tool"]["setuptools"]["package-dir"].values())
    assert folders == set(LAYERS)


def test_the_scanner_finds_an_upward_import_wherever_it_hides(tmp_path):
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "sub").mkdir()
    (tmp_path / "net").mkdir()
    (tmp_path / "core" / "ok.py").write_text("from . import sub\nfrom cthulhu.content import builtin\n")
    (tmp_path / "core" / "sub" / "deep.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cthulhu.net.host import Host\n"
        "def later():\n    import cthulhu.tui.app\n    from ... import net\n")
    (tmp_path / "net" / "fine.py").write_text("from cthulhu.core import Game\n")
    found = violations(tmp_path, {"core": {"content"}, "net": {"core"}}, {})
    assert found == [
        "core/sub/deep.py imports cthulhu.net.host: core may not import net",
        "core/sub/deep.py imports cthulhu.tui.app: core may not import tui",
        "core/sub/deep.py imports cthulhu.net: core may not import net",
    ]
