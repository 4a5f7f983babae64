"""Built-in content: TOML data only. This module just finds and reads the files."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cthulhu.core.content import Content

HERE = Path(__file__).resolve().parent


def read_tree(root: Path | str | None = None) -> dict[str, str]:
    """Every `.toml` below `root` (default: the built-in content) by relative path."""
    base = Path(root) if root is not None else HERE
    if not base.is_dir():
        raise FileNotFoundError(f"no content folder at {base}")
    out = {}
    for path in sorted(base.rglob("*.toml")):
        name = path.relative_to(base).as_posix()
        try:
            out[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{name}: not UTF-8 text") from None
    return out


@lru_cache(maxsize=1)
def builtin() -> Content:
    """The validated built-in content (cached: it never changes while running)."""
    from cthulhu.core.content import Content

    return Content.from_files(read_tree())
