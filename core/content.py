"""Content loading: TOML text in, validated models out. The caller reads the files.

Each mode validates its own folder (`main/`, `shamblers/`); every problem is
reported with its file, entry and field, and none of them can run code.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .canon import digest
from .errors import ContentError


def describe_validation(path: str, entry: str, err: ValidationError) -> list[str]:
    """Turn a pydantic error into 'file: entry: field: message' lines."""
    out = []
    for e in err.errors(include_input=False, include_url=False):
        loc = ".".join(str(p) for p in e["loc"])
        where = f"{entry}.{loc}" if entry and loc else (entry or loc)
        out.append(f"{path}: {where}: {e['msg']}")
    return out


@dataclass(frozen=True, slots=True)
class Content:
    version: str
    main: Any
    shamblers: Any

    @classmethod
    def from_files(cls, files: dict[str, str]) -> "Content":
        problems: list[str] = []
        docs: dict[str, dict[str, Any]] = {}
        for path, text in sorted(files.items()):
            try:
                docs[path] = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                problems.append(f"{path}: not valid TOML: {exc}")
        if problems:
            raise ContentError(problems)

        def folder(prefix: str) -> dict[str, dict[str, Any]]:
            return {p: d for p, d in docs.items() if p.startswith(prefix + "/")}

        main = shamblers = None
        try:
            from .main.content import load_main

            main = load_main(folder("main"))
        except ContentError as exc:
            problems.extend(exc.problems)
        try:
            from .shamblers.content import load_shamblers

            shamblers = load_shamblers(folder("shamblers"))
        except ContentError as exc:
            problems.extend(exc.problems)
        except ImportError:
            shamblers = None
        if problems:
            raise ContentError(problems)
        return cls(version=digest(files), main=main, shamblers=shamblers)
