"""Content loading: TOML text in, validated models out. The caller reads the files.

Each mode validates its own folder (`<mode>/`, e.g. `main/`, `shamblers/`) with
the loader it registers; every problem is reported with its file, entry and
field, and none of them can run code.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from . import modes
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
    """Every mode's validated content, by mode name (`content.main` reads `content.modes["main"]`)."""

    version: str
    modes: Mapping[str, Any]

    def part(self, mode: str) -> Any:
        """The content of `mode`; a `ContentError` when this content has none."""
        found = self.modes.get(mode)
        if found is None:
            raise ContentError([f"{mode}/: no content for mode {mode!r} is loaded"])
        return found

    def __getattr__(self, name: str) -> Any:
        try:
            return object.__getattribute__(self, "modes")[name]
        except KeyError:
            raise AttributeError(name) from None

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
        loaded: dict[str, Any] = {}
        for mode in modes.all_modes():
            if mode.content is None:
                continue
            folder = {p: d for p, d in docs.items() if p.startswith(mode.name + "/")}
            try:
                loaded[mode.name] = mode.content(folder)
            except ContentError as exc:
                problems.extend(exc.problems)
        if problems:
            raise ContentError(problems)
        return cls(version=digest(files), modes=loaded)
