"""The build: pure Python unless asked to compile the rules core with mypyc (`CTHULHU_COMPILE=1`).

`pip install .` needs no C compiler and installs the pure-Python core, which
stays the reference. `CTHULHU_COMPILE=1 pip install .` also compiles the hot
modules of `cthulhu.core` (the engine, both modes' rules and views, the bots,
the façade) into C extensions beside their sources; the in-tree build backend
(`_build/backend.py`) then adds mypy to the build's requirements. The Python
files stay in the install, so the same code runs either way; CI tests both.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import setup

# The modules worth compiling: where a game spends its time. Left out: pydantic models (content,
# setup), the registries, the simulator (its nested callbacks), and every module that declares a
# TypedDict pydantic validates (the declared views and options' data, wire forms, events): compiled,
# those become `typing.TypedDict`s, which pydantic refuses before Python 3.12. So such types live in
# modules of types only (`wiretypes`, `main/viewtypes`, `main/prompttypes`) and the code beside them.
COMPILED = [
    "basebots.py", "canon.py", "command.py", "game.py", "rng.py", "rules.py", "undo.py",
    "main/actions.py", "main/board.py", "main/describe.py", "main/effects.py", "main/engine.py", "main/fight.py",
    "main/harm.py", "main/heuristic.py", "main/mods.py", "main/policy.py", "main/prepared.py", "main/prompts.py", "main/rules.py",
    "main/state.py", "main/tasks.py", "main/turn.py", "main/view.py",
    "shamblers/heuristic.py", "shamblers/rules.py", "shamblers/state.py", "shamblers/tables.py",
]


def compiled_core() -> list[object]:
    """mypyc's extensions for `COMPILED`, from a copy laid out as the installed package
    (`cthulhu/core/...`), so that mypy names the modules as they are imported."""
    from mypyc.build import mypycify

    stage = Path("build") / "mypyc-src"
    (stage / "cthulhu").mkdir(parents=True)
    (stage / "cthulhu" / "__init__.py").write_text("")
    for folder in ("core", "content"):
        shutil.copytree(folder, stage / "cthulhu" / folder, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    return list(mypycify([str(stage / "cthulhu" / "core" / m) for m in COMPILED], opt_level="3", group_name="cthulhu_core"))


if not os.environ.get("CTHULHU_BUILD_REQUIRES"):
    # A build folder left by an earlier build may hold extensions: none of them may slip into this one.
    shutil.rmtree("build", ignore_errors=True)
compile_core = os.environ.get("CTHULHU_COMPILE") == "1" and not os.environ.get("CTHULHU_BUILD_REQUIRES")
setup(ext_modules=compiled_core() if compile_core else [])
