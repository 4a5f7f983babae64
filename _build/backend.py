"""setuptools' build backend, plus mypy in the build's requirements when the core is to be compiled.

See setup.py: `CTHULHU_COMPILE=1 pip install .` compiles the rules core with
mypyc; without it the build is setuptools' own and pure Python.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every hook not overridden here)

# What mypy needs to compile the core: itself, and the libraries whose types the core uses.
_COMPILER = ["mypy==2.4.1", "pydantic>=2.14,<3", "typing_extensions"]


def _requires(ask):  # type: ignore[no-untyped-def]
    """setuptools runs setup.py to learn the requirements, before mypy is there: setup.py is told."""
    os.environ["CTHULHU_BUILD_REQUIRES"] = "1"
    try:
        found = ask()
    finally:
        del os.environ["CTHULHU_BUILD_REQUIRES"]
    return found + (list(_COMPILER) if os.environ.get("CTHULHU_COMPILE") == "1" else [])


def get_requires_for_build_wheel(config_settings=None):  # type: ignore[no-untyped-def]
    return _requires(lambda: _setuptools.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(config_settings=None):  # type: ignore[no-untyped-def]
    return _requires(lambda: _setuptools.get_requires_for_build_editable(config_settings))
