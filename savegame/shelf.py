"""A save kept somewhere other than a file: a server's database (`server.postgres`).

A `Shelf` holds one save's bytes as the file would (format 3: the body, then appended records)
and takes a `writer.Chunk` the way `writer.put` writes one to a file: the whole save, or a record
at its offset (whatever was kept from that offset on is cut first, so the same chunk twice is
harmless). Reading gives the bytes back for `file.decode`. Who may write it is the shelf's
business (a database lease), so a save on a shelf takes no lock file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .file import SaveFile
    from .writer import Chunk


class Shelf(Protocol):
    """One save's bytes, kept elsewhere than in a file."""

    @property
    def where(self) -> str:
        """Where it is kept, for messages (never a password)."""

    def read(self) -> bytes | None:
        """The save's bytes as a file would hold them; None when nothing is kept yet."""

    def put(self, chunk: Chunk, *, fsync: bool = True) -> None:
        """Keep `chunk` (`fsync` False: it may be lost in a crash of the machine, not of the process).
        A refusal is a `SaveIOError`."""


def load_kept(shelf: Shelf) -> SaveFile | None:
    """The save `shelf` keeps, read and checked as `file.load` reads a file (its errors name where
    it is kept); None when nothing is kept yet."""
    from .file import SaveError, decode

    data = shelf.read()
    if data is None:
        return None
    try:
        return decode(data)
    except SaveError as exc:
        raise exc.at(shelf.where) from None
