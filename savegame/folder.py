"""Where saves live, and what a folder of them contains.

From a checkout (a `pyproject.toml` naming the `cthulhu` project next to the
package folders) saves go to the checkout's `saves/`, so developers see the
example saves; an installed copy uses the user's data directory
(`$XDG_DATA_HOME/cthulhu/saves`, else `~/.local/share/cthulhu/saves`).
`--saves DIR` overrides both.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .file import SUFFIX, SaveError, SaveFile, SaveIOError, load, save_files

_PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def checkout_root(start: Path = _PACKAGE_ROOT) -> Path | None:
    """The checkout this code runs from, or None when installed."""
    pyproject = start / "pyproject.toml"
    if not (pyproject.is_file() and (start / "net").is_dir() and (start / "core").is_dir()):
        return None
    try:
        name = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("name")
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    return start if name == "cthulhu" else None


def user_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_DATA_HOME/cthulhu`, else `~/.local/share/cthulhu` (tests point XDG_DATA_HOME elsewhere)."""
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return Path(base) / "cthulhu"


def user_saves_dir(env: Mapping[str, str] | None = None) -> Path:
    return user_data_dir(env) / "saves"


def default_saves_dir(override: str | Path | None = None) -> Path:
    """`--saves DIR` if given, else the checkout's `saves/`, else the user's data dir."""
    if override is not None:
        return Path(override).expanduser()
    root = checkout_root()
    return root / "saves" if root is not None else user_saves_dir()


def fallback_saves_dir() -> Path:
    """Where a game is saved when its saves folder cannot be written: this user's folder in the temporary directory."""
    import getpass
    import tempfile

    try:
        user = re.sub(r"[^A-Za-z0-9_.-]+", "-", getpass.getuser()) or str(os.getuid())
    except Exception:  # no login name (a container without a passwd entry)
        user = str(os.getuid())
    try:
        temp = tempfile.gettempdir()
    except OSError:  # none takes data (a full disk): the folder is still named, and found unwritable
        temp = os.environ.get("TMPDIR") or "/tmp"
    return Path(temp) / f"cthulhu-saves-{user}"


PROBE = b"\0" * 4096  # some data, as a save has: a folder that takes a name but no data (a full disk) is found


def unwritable(folder: Path) -> str | None:
    """Why saves cannot be written in `folder` (a short phrase), or None when they can: the folder is
    made if missing, and a probe file written in it (some data, to the disk) and removed."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".cthulhu-probe-") as probe:
            probe.write(PROBE)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def autosave_folder(folder: Path) -> tuple[Path | None, str | None]:
    """The folder a new game autosaves in, and what to tell the player when it is not `folder`:
    the fallback folder (named), or no autosave at all when that cannot be written either."""
    problem = unwritable(folder)
    if problem is None:
        return folder, None
    fallback = fallback_saves_dir()
    if fallback != folder and unwritable(fallback) is None:
        return fallback, f"The saves folder {folder} cannot be written ({problem}): this game is saved in {fallback} instead."
    return None, f"The saves folder {folder} cannot be written ({problem}): the game goes on without autosave."


def resolve_save(name: str | Path, saves_dir: str | Path | None = None) -> Path:
    """A path as given if it exists; else `NAME` or `NAME.save` inside the saves folder."""
    path = Path(name).expanduser()
    if path.exists() or path.parent != Path("."):
        return path
    folder = default_saves_dir(saves_dir)
    for candidate in (folder / path.name, folder / (path.name + SUFFIX)):
        if candidate.exists():
            return candidate
    return path


def find_save(name: str | Path, saves_dir: str | Path | None = None) -> Path:
    """What every command taking a save uses: a path, or a name as `cthulhu saves` lists it."""
    path = resolve_save(name, saves_dir)
    if not path.is_file():
        folder = default_saves_dir(saves_dir)
        raise SaveIOError(f"no such file, here or in {folder} (`cthulhu saves` lists the saves there)", path=name)
    return path


def delete_save(path: str | Path) -> None:
    """Delete a save no process holds: `SaveLocked` (naming the holder) if a running game has it.
    Held while it is removed, so no game can take it up half-deleted."""
    from .lock import hold, release

    hold(path)
    try:
        Path(path).unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise SaveIOError(f"cannot delete it: {exc.strerror or exc}", path=path) from None
    finally:
        release(path)


def save_name(path: str | Path, saves_dir: str | Path | None = None) -> str:
    """How to name `path` on a command line: its file name when it lies in the saves folder."""
    path = Path(path)
    try:
        if path.resolve().parent == default_saves_dir(saves_dir).resolve():
            return path.name
    except OSError:
        pass
    return str(path)


def new_save_path(folder: str | Path, stem: str) -> Path:
    """A file name in `folder` that is not taken yet, from `stem` (made file-name safe)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-.") or "game"
    base = Path(folder)
    candidate = base / f"{safe}{SUFFIX}"
    n = 2
    while candidate.exists():
        candidate = base / f"{safe}-{n}{SUFFIX}"
        n += 1
    return candidate


@dataclass(frozen=True, slots=True)
class SaveEntry:
    """One file of a listing: the save, or the reason it cannot be read."""

    path: Path
    save: SaveFile | None
    error: SaveError | None


def list_saves(folder: str | Path) -> list[SaveEntry]:
    """Every save in `folder`, damaged ones included (with their error)."""
    out = []
    for path in save_files(folder):
        try:
            out.append(SaveEntry(path, load(path), None))
        except SaveError as exc:
            out.append(SaveEntry(path, None, exc))
    return out
