"""A registry of plug-ins found by package: the game modes (`core.modes`) and their interfaces
(`tui.modes`) are both declared by a sub-package that sets one module attribute."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """Entries of type `kind`, each found on first use as `attribute` of a sub-package of `package`
    (built-ins first, in package order), or added with `register`."""

    def __init__(self, package: str, attribute: str, kind: type[T], name: Callable[[T], str], taken: str) -> None:
        self._package, self._attribute, self._kind, self._name = package, attribute, kind, name
        self._taken = taken  # the error for a second entry of one name: formatted with {name!r}
        self._entries: dict[str, T] = {}
        self._discovered = False

    def register(self, entry: T) -> T:
        self._discover()
        name = self._name(entry)
        old = self._entries.get(name)
        if old is not None and old is not entry:
            raise ValueError(self._taken.format(name=name))
        self._entries[name] = entry
        return entry

    def unregister(self, name: str) -> None:
        self._entries.pop(name, None)

    def find(self, name: str) -> T | None:
        self._discover()
        return self._entries.get(name)

    def names(self) -> list[str]:
        self._discover()
        return list(self._entries)

    def _discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        package = importlib.import_module(self._package)
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            if not info.ispkg:
                continue
            module = importlib.import_module(f"{self._package}.{info.name}")
            entry = getattr(module, self._attribute, None)
            if isinstance(entry, self._kind):
                self._entries.setdefault(self._name(entry), entry)
